package org.nlspark.core.gpu;

import org.nlspark.core.tfce.StatisticMaps;

/**
 * The host build of the GPU kernels ({@link HostDevice}) as the statistic maps of whole-map
 * tiles, for Spark tests of {@code --backend gpu} on a machine without a GPU: each call makes its
 * own host device, so the maps travel with a task like {@link StatisticMaps#GPU}.
 */
public final class HostGpuMaps {
  private static final java.util.concurrent.atomic.AtomicLong CALLS =
      new java.util.concurrent.atomic.AtomicLong();

  private HostGpuMaps() {}

  /** Blocks computed by {@link #maps} in this JVM so far (local mode: every task's). */
  public static long calls() {
    return CALLS.get();
  }

  /** Null when the host kernels are usable, else why not. */
  public static String unavailable() {
    return HostKernels.load();
  }

  /** {@link GpuTileExecutor#statisticMaps} on a fresh host device per block. */
  public static StatisticMaps maps() {
    return (spec, inputs, resampling, kernelGrid, block, plan, tile, out, stride, at, observed,
        device) -> {
      CALLS.incrementAndGet();
      HostDevice host = new HostDevice(Long.MAX_VALUE);
      GpuTileExecutor.BlockMaps m = GpuTileExecutor.statisticMaps(host, spec, inputs,
          resampling, kernelGrid, block, plan, tile, out, stride, at, observed);
      if (host.liveBytes() != 0) {
        throw new AssertionError("device memory left allocated: " + host.liveBytes());
      }
      return m;
    };
  }
}
