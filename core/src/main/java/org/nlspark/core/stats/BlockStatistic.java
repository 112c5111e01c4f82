package org.nlspark.core.stats;

/**
 * A statistic's batched kernel over one voxel block: fills {@code out} (rows x width, row-major)
 * with the statistic of replicates [first, first + rows). Implementations keep their buffers, so
 * one instance serves one thread. Voxels where the statistic is undefined (zero variance) get NaN
 * in every row and in {@link #observed(double[])}.
 */
public interface BlockStatistic {
  /** Voxels in the block. */
  int width();

  /** Statistic values of replicates [first, first + rows), rows &lt;= the grid window. */
  void compute(long first, int rows, double[] out);

  /** The observed statistic (permutation tests), computed through the same cell shape. */
  void observed(double[] out);

  /** Voxels of the block whose statistic is undefined (NaN everywhere). */
  int undefinedVoxels();

  /**
   * Optional fused permutation epilogue: computes replicates [first, first + rows) and folds them
   * straight into per-voxel exceedance counts and per-replicate maximum keys (DESIGN §4 rules),
   * never writing the statistics out. Returns false when the kernel has no fused path for this
   * tail; the caller then uses {@link #compute} and the generic fold.
   */
  default boolean foldWindow(long first, int rows, org.nlspark.core.job.Tail tail, int[] counts,
      double[] rowMax) {
    return false;
  }

  /**
   * Each voxel's expected replicate value and its spread, when the kernel knows them before
   * computing any replicate (the bootstrap mean: the sample mean and sd/√n); they only seed the
   * retained tails' thresholds ({@link org.nlspark.core.accumulate.TailSeeds}), never a result.
   * Returns false (arrays untouched) when the kernel has no such estimate.
   */
  default boolean replicateSpread(double[] mean, double[] sd) {
    return false;
  }

  /** Floating-point work done so far (GEMM flops; 0 for non-GEMM kernels). */
  long flops();
}
