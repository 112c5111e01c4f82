package org.nlspark.core.ridge;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;

/**
 * Bootstrap summary of ridge weights (p, targets) or predictions (n_test, targets), row-major:
 * mean, std (ddof = 1), exact percentile interval, z = mean / std, p = 2 (1 − Φ(|z|)).
 * Elements whose replicates have zero spread get NaN z and p and are counted.
 */
public final class RidgeResult implements Result {
  public final double[] mean;
  public final double[] std;
  public final double[] ciLower;
  public final double[] ciUpper;
  public final double[] z;
  public final double[] p;
  /** Every replicate's solution, row-major (B, rows * targets), or null without --save-samples. */
  public final double[] samples;
  public final int rows;
  public final int targets;
  public final boolean predictions;
  public final long replicates;
  public final int batchSize;
  public final int batches;
  public final int zeroSpreadElements;

  public RidgeResult(double[] mean, double[] std, double[] ciLower, double[] ciUpper, double[] z,
      double[] p, double[] samples, int rows, int targets, boolean predictions, long replicates, int batchSize,
      int batches, int zeroSpreadElements) {
    this.mean = mean;
    this.std = std;
    this.ciLower = ciLower;
    this.ciUpper = ciUpper;
    this.z = z;
    this.p = p;
    this.samples = samples;
    this.rows = rows;
    this.targets = targets;
    this.predictions = predictions;
    this.replicates = replicates;
    this.batchSize = batchSize;
    this.batches = batches;
    this.zeroSpreadElements = zeroSpreadElements;
  }

  /** Number of targets (the voxel axis). */
  @Override
  public int voxels() {
    return targets;
  }

  @Override
  public List<Output> outputs() {
    long[] shape = {rows, targets};
    List<Output> out = new ArrayList<>();
    out.add(new Output("mean", shape, mean));
    out.add(new Output("std", shape, std));
    out.add(new Output("ci_lower", shape, ciLower));
    out.add(new Output("ci_upper", shape, ciUpper));
    out.add(new Output("z", shape, z));
    out.add(new Output("p", shape, p));
    if (samples != null) {
      out.add(new Output("samples", new long[] {replicates, rows, targets}, samples));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("output", predictions ? "predictions" : "weights");
    m.put("output_shape", List.of(rows, targets));
    m.put("replicates", replicates);
    m.put("batch_size", batchSize);
    m.put("batches", batches);
    m.put("zero_variance_elements", zeroSpreadElements);
    return m;
  }
}
