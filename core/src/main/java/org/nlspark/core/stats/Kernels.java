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
    return spec.statisticRow().dispatch(new Statistic.Dispatch<BlockStatistic>() {
      @Override
      public BlockStatistic bootstrapLinear(Statistic.Reduction reduction) {
        return BootstrapLinearStatistic.create(spec.precision(), xb, n, b, w, reduction,
            plan.seed());
      }

      @Override
      public BlockStatistic bootstrapOrder(Statistic.Order order) {
        return new BootstrapOrderStatistic(xb, n, b, order, plan.seed());
      }

      @Override
      public BlockStatistic signFlip(boolean tStatistic) {
        return new SignFlipStatistic(spec.precision(), xb, n, b, w, tStatistic,
            plan.enumerated(), plan.seed());
      }

      @Override
      public BlockStatistic twoSample(boolean welch) {
        DataMatrix y = inputs.y();
        return TwoSampleStatistic.create(spec.precision(), xb, n, y.copyColumns(from, to),
            y.rows(), b, w, welch, plan.seed());
      }

      @Override
      public BlockStatistic correlation(boolean spearman) {
        return CorrelationStatistic.create(spec.precision(), xb, n, b, w, inputs.target(),
            spearman, plan.seed());
      }
    });
  }
}
