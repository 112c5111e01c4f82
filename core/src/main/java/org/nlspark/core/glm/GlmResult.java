package org.nlspark.core.glm;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Outputs of a GLM run named as DESIGN §9, per contrast c: {@code tstat{c}} (or {@code fstat{c}}),
 * {@code p_tstat{c}}, and with FWER {@code p_fwer_tstat{c}} and {@code null_max_tstat{c}} (one
 * maximum key per drawn replicate). Values are p, not 1 - p. {@code draws} holds each contrast's
 * draw plan (summary.json: scheme, replicates, exact enumeration).
 */
public record GlmResult(Map<String, double[]> maps, Map<String, Map<String, Object>> draws,
    Map<String, Integer> undefinedVoxels) {
  public GlmResult {
    maps = Collections.unmodifiableMap(new LinkedHashMap<>(maps));
    draws = Collections.unmodifiableMap(new LinkedHashMap<>(draws));
    undefinedVoxels = Collections.unmodifiableMap(new LinkedHashMap<>(undefinedVoxels));
  }

  public double[] get(String name) {
    double[] m = maps.get(name);
    if (m == null) {
      throw new IllegalArgumentException("Cannot find output " + name + ": the run has "
          + maps.keySet());
    }
    return m;
  }
}
