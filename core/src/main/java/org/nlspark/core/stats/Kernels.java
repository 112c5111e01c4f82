package org.nlspark.core.stats;

import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Statistic;
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
    Statistic stat = spec.statisticRow();
    switch (stat) {
      case BOOTSTRAP_MEAN:
        return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
            BootstrapLinearStatistic.Kind.MEAN, plan.seed());
      case BOOTSTRAP_SUM:
        return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
            BootstrapLinearStatistic.Kind.SUM, plan.seed());
      case BOOTSTRAP_STD:
        return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w,
            BootstrapLinearStatistic.Kind.STD, plan.seed());
      case BOOTSTRAP_MEDIAN:
        return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MEDIAN,
            plan.seed());
      case BOOTSTRAP_MIN:
        return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MIN,
            plan.seed());
      case BOOTSTRAP_MAX:
        return new BootstrapOrderStatistic(xb, n, b, BootstrapOrderStatistic.Kind.MAX,
            plan.seed());
      case SIGN_FLIP_MEAN:
      case SIGN_FLIP_T:
        return new SignFlipStatistic(spec.precision(), xb, n, b, w, stat == Statistic.SIGN_FLIP_T,
            plan.enumerated(), plan.seed());
      case MEAN_DIFFERENCE:
      case WELCH_T: {
        DataMatrix y = inputs.y();
        return TwoSampleStatistic.create(spec.precision(), xb, n, y.copyColumns(from, to),
            y.rows(), b, w, stat == Statistic.WELCH_T, plan.seed());
      }
      case PEARSON:
      case SPEARMAN:
        return CorrelationStatistic.create(spec.precision(), xb, n, b, w, inputs.target(),
            stat == Statistic.SPEARMAN, plan.seed());
      default:
        break;
    }
    throw new IllegalStateException("[BUG] no kernel for " + stat);
  }
}
