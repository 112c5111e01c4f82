package org.nlspark.core.stats;

import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;

/** Chooses and builds the CPU kernel of a job's statistic for one voxel block. */
public final class Kernels {
  private Kernels() {}

  /**
   * @param from first voxel of the block
   * @param to end of the block (exclusive)
   * @param w replicate window of the grid (the kernel's call shape)
   */
  public static BlockStatistic create(JobSpec spec, JobInputs inputs, ResamplingPlan plan,
      int from, int to, int w) {
    DataMatrix x = inputs.x();
    int b = to - from;
    int n = x.rows();
    double[] xb = x.copyColumns(from, to);
    String stat = spec.statistic();
    switch (spec.analysis()) {
      case BOOTSTRAP:
        switch (stat) {
          case "mean":
            return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
                BootstrapLinearStatistic.Kind.MEAN, plan.seed());
          case "sum":
            return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
                BootstrapLinearStatistic.Kind.SUM, plan.seed());
          case "std":
            return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
                BootstrapLinearStatistic.Kind.STD, plan.seed());
          case "median":
            return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MEDIAN,
                plan.seed());
          case "min":
            return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MIN,
                plan.seed());
          case "max":
            return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MAX,
                plan.seed());
          default:
            break;
        }
        break;
      case ONE_SAMPLE:
        return new SignFlipStatistic(spec.precision(), xb, n, b, w, stat.equals("t"),
            plan.enumerated(), plan.seed());
      case TWO_SAMPLE: {
        DataMatrix y = inputs.y();
        return TwoSampleStatistic.create(spec.precision(), xb, n, y.copyColumns(from, to),
            y.rows(), b, w, stat.equals("welch-t"), plan.seed());
      }
      case CORRELATION:
        return CorrelationStatistic.create(spec.precision(), xb, n, b, w, inputs.target(),
            stat.equals("spearman"), plan.seed());
      default:
        break;
    }
    throw new IllegalStateException("[BUG] no kernel for " + spec.analysis() + " " + stat);
  }
}
