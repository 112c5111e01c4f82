package org.nlspark.core.tfce;

import java.io.Serializable;
import org.nlspark.core.gpu.GpuTileExecutor;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;

/**
 * Where a whole-map tile of a permutation test gets its statistic maps, one voxel block of the
 * fixed kernel grid at a time: the job's CPU kernels ({@link #CPU}) or the GPU kernels ({@link
 * #GPU}: the same GEMM and epilogue kernels as a voxelwise GPU run, maps copied back to the
 * executor, where TFCE runs). Either way each (block, window) cell is computed as the voxelwise
 * test computes it.
 */
@FunctionalInterface
public interface StatisticMaps extends Serializable {
  /**
   * Writes block {@code block}'s observed statistic into {@code observed[at ..]} and the
   * statistic of every replicate of the tile's windows into {@code maps} (row r of the tile at
   * {@code r * stride + at}): for whole maps {@code stride} is the voxels and {@code at} the
   * block's first voxel; for one block's slice ({@link MapSlice}) the block's width and 0.
   * {@code inputs} may be the whole inputs or the block as an executor holds it.
   *
   * @param device the task's GPU (ignored on the CPU)
   */
  GpuTileExecutor.BlockMaps compute(JobSpec spec, JobInputs inputs, ResamplingPlan resampling,
      Grid kernelGrid, int block, TilePlan plan, TileSpec tile, double[] maps, int stride,
      int at, double[] observed, int device);

  /** The job's CPU kernels ({@link Kernels}). */
  StatisticMaps CPU = (spec, inputs, resampling, kernelGrid, block, plan, tile, maps, stride,
      at, observed, device) -> {
    int voxels = inputs.voxels();
    int w = kernelGrid.window();
    int from = kernelGrid.blockStart(block);
    int b = kernelGrid.blockEnd(block, voxels) - from;
    double[] buf = new double[w * b];
    BlockStatistic kernel = Kernels.create(spec, inputs, resampling, from, from + b, w);
    kernel.observed(buf);
    System.arraycopy(buf, 0, observed, at, b);
    long first = plan.windowStart(tile.firstWindow());
    for (int window = tile.firstWindow(); window < tile.firstWindow() + tile.windowCount();
        window++) {
      long windowFirst = plan.windowStart(window);
      int rows = plan.windowRows(window);
      kernel.compute(windowFirst, rows, buf);
      int row0 = (int) (windowFirst - first);
      for (int r = 0; r < rows; r++) {
        System.arraycopy(buf, r * b, maps, (row0 + r) * stride + at, b);
      }
    }
    return new GpuTileExecutor.BlockMaps(kernel.flops(), kernel.undefinedVoxels());
  };

  /** The GPU kernels on the task's device ({@link GpuTileExecutor#statisticMaps}). */
  StatisticMaps GPU = (spec, inputs, resampling, kernelGrid, block, plan, tile, maps, stride,
      at, observed, device) -> GpuTileExecutor.statisticMaps(spec, inputs, resampling,
          kernelGrid, block, plan, tile, maps, stride, at, observed, device);
}
