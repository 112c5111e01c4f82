package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Permutation test per voxel: the observed statistic, its p-value (count + 1) / (P + 1) — or
 * count / 2^n under exact enumeration — and with FWER the max-statistic p-values and the null
 * distribution of the maximum (DESIGN §4). Voxels with an undefined statistic are NaN and counted.
 */
public final class PermutationResult implements Result {
  public final double[] observed;
  public final double[] p;
  /** Null if FWER is off. */
  public final double[] pFwer;
  /** Per-replicate maxima of the extremeness key (|stat| two-tailed), length = draws; or null. */
  public final double[] nullMax;
  public final long draws;
  public final boolean enumerated;
  public final int undefinedVoxels;

  public PermutationResult(double[] observed, double[] p, double[] pFwer, double[] nullMax,
      long draws, boolean enumerated, int undefinedVoxels) {
    this.observed = observed;
    this.p = p;
    this.pFwer = pFwer;
    this.nullMax = nullMax;
    this.draws = draws;
    this.enumerated = enumerated;
    this.undefinedVoxels = undefinedVoxels;
  }

  @Override
  public int voxels() {
    return observed.length;
  }

  @Override
  public List<Output> outputs() {
    long[] shape = {observed.length};
    List<Output> out = new ArrayList<>();
    out.add(new Output("observed", shape, observed));
    out.add(new Output("p", shape, p));
    if (pFwer != null) {
      out.add(new Output("p_fwer", shape, pFwer));
      out.add(new Output("null_max", new long[] {nullMax.length}, nullMax));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("voxels", observed.length);
    m.put("draws", draws);
    m.put("exact_enumeration", enumerated);
    m.put("smallest_possible_p", enumerated ? 1.0 / draws : 1.0 / (draws + 1));
    m.put("undefined_voxels", undefinedVoxels);
    return m;
  }
}
