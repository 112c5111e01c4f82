package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Bootstrap summary per voxel (DESIGN §4): mean and std (ddof = 1) of the replicates, the interval
 * (exact percentile or normal), z = mean / std and p = 2 (1 - Phi(|z|)); optionally every replicate.
 * Voxels whose replicates have zero spread get NaN z and p and are counted.
 */
public final class BootstrapResult implements Result {
  /** The statistic on the full data, or null where none applies (ridge: see RidgeResult). */
  public final double[] observed;
  public final double[] mean;
  public final double[] std;
  public final double[] ciLower;
  public final double[] ciUpper;
  public final double[] z;
  public final double[] p;
  /** (B, n_voxels) row-major, or null without --save-samples. */
  public final double[] samples;
  public final long replicates;
  public final int zeroSpreadVoxels;

  public BootstrapResult(double[] mean, double[] std, double[] ciLower, double[] ciUpper,
      double[] z, double[] p, double[] samples, long replicates, int zeroSpreadVoxels) {
    this(null, mean, std, ciLower, ciUpper, z, p, samples, replicates, zeroSpreadVoxels);
  }

  public BootstrapResult(double[] observed, double[] mean, double[] std, double[] ciLower,
      double[] ciUpper, double[] z, double[] p, double[] samples, long replicates,
      int zeroSpreadVoxels) {
    this.observed = observed;
    this.mean = mean;
    this.std = std;
    this.ciLower = ciLower;
    this.ciUpper = ciUpper;
    this.z = z;
    this.p = p;
    this.samples = samples;
    this.replicates = replicates;
    this.zeroSpreadVoxels = zeroSpreadVoxels;
  }

  /** The same result with the statistic on the full data. */
  public BootstrapResult withObserved(double[] values) {
    return new BootstrapResult(values, mean, std, ciLower, ciUpper, z, p, samples, replicates,
        zeroSpreadVoxels);
  }

  @Override
  public int voxels() {
    return mean.length;
  }

  @Override
  public List<Output> outputs() {
    long[] shape = {mean.length};
    List<Output> out = new ArrayList<>();
    if (observed != null) {
      out.add(new Output("observed", shape, observed));
    }
    out.add(new Output("mean", shape, mean));
    out.add(new Output("std", shape, std));
    out.add(new Output("ci_lower", shape, ciLower));
    out.add(new Output("ci_upper", shape, ciUpper));
    out.add(new Output("z", shape, z));
    out.add(new Output("p", shape, p));
    if (samples != null) {
      out.add(new Output("samples", new long[] {replicates, mean.length}, samples));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("voxels", mean.length);
    m.put("replicates", replicates);
    m.put("zero_variance_voxels", zeroSpreadVoxels);
    return m;
  }
}
