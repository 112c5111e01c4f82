package org.nlspark.core.glm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;

/**
 * Outputs of a GLM run named as DESIGN §9, per contrast c: {@code tstat{c}} (or {@code fstat{c}}),
 * {@code p_tstat{c}}, and with FWER {@code p_fwer_tstat{c}} and {@code null_max_tstat{c}} (one
 * maximum key per drawn replicate), with TFCE {@code tfce_tstat{c} p_tfce_tstat{c}
 * p_fwer_tfce_tstat{c} null_max_tfce_tstat{c}}, with cluster extent {@code cluster_size_tstat{c}
 * p_fwer_cluster_tstat{c} null_max_cluster_tstat{c}}, then {@code p_cfwer_*} with FWER across
 * contrasts. Values are p, not 1 - p. {@code draws} holds each contrast's draw plan
 * (summary.json: scheme, replicates, exact enumeration); {@code wholeMapInference} each
 * contrast's TFCE and cluster facts (empty without them).
 */
public record GlmResult(Map<String, double[]> maps, Map<String, Map<String, Object>> draws,
    Map<String, Integer> undefinedVoxels, Map<String, Object> wholeMapInference)
    implements Result {
  public GlmResult {
    maps = Collections.unmodifiableMap(new LinkedHashMap<>(maps));
    draws = Collections.unmodifiableMap(new LinkedHashMap<>(draws));
    undefinedVoxels = Collections.unmodifiableMap(new LinkedHashMap<>(undefinedVoxels));
    wholeMapInference = Collections.unmodifiableMap(new LinkedHashMap<>(wholeMapInference));
  }

  /** Without whole-map inference. */
  public GlmResult(Map<String, double[]> maps, Map<String, Map<String, Object>> draws,
      Map<String, Integer> undefinedVoxels) {
    this(maps, draws, undefinedVoxels, Map.of());
  }

  public double[] get(String name) {
    double[] m = maps.get(name);
    if (m == null) {
      throw new IllegalArgumentException("Cannot find output " + name + ": the run has "
          + maps.keySet());
    }
    return m;
  }

  /** Every map in the order of DESIGN §9; {@code null_max_*} has shape (replicates,). */
  @Override
  public List<Output> outputs() {
    List<Output> out = new ArrayList<>();
    for (Map.Entry<String, double[]> e : maps.entrySet()) {
      out.add(new Output(e.getKey(), new long[] {e.getValue().length}, e.getValue()));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    int most = 0;
    for (int u : undefinedVoxels.values()) {
      most = Math.max(most, u);
    }
    // The largest count over contrasts: a voxel without a statistic for any contrast is reported.
    m.put("undefined_voxels", most);
    m.put("undefined_voxels_per_contrast", undefinedVoxels);
    m.put("contrasts", draws);
    if (!wholeMapInference.isEmpty()) {
      m.put("whole_map_inference", wholeMapInference);
    }
    return m;
  }

  @Override
  public int voxels() {
    return maps.isEmpty() ? 0 : maps.values().iterator().next().length;
  }
}
