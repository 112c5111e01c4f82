package org.nlspark.core.gpu;

import java.util.HashMap;
import java.util.Map;
import org.nlspark.core.memory.DeviceOutOfMemoryException;

/**
 * A {@link Device} on the CPU: memory is host memory, kernels are the host build of the CUDA
 * source (nlspark_host.cpp), and a GEMM is the CPU kernels' own {@code BlockGemm} call of the same
 * shape, so {@link GpuTileExecutor} on this device must reproduce the CPU tile executor bit for
 * bit. An optional memory limit makes allocations beyond it fail as a device out-of-memory does,
 * to exercise the halving recovery without a GPU.
 */
final class HostDevice extends Device {
  private final long limitBytes;
  private final boolean reversedGemm;
  private final Map<Long, Long> live = new HashMap<>();
  private long liveBytes;
  private long peakBytes;
  private long refusals;

  /** @param limitBytes most bytes live at once before an allocation fails; Long.MAX_VALUE: none */
  HostDevice(long limitBytes) {
    this(limitBytes, false);
  }

  /**
   * @param reversedGemm sum each GEMM product in reverse order with a naive loop instead of the
   *     CPU's BLAS call: a stand-in for cuBLAS's different summation order (results then equal
   *     the CPU's only where every product is exact)
   */
  HostDevice(long limitBytes, boolean reversedGemm) {
    String reason = HostKernels.load();
    if (reason != null) {
      throw new IllegalStateException("Cannot run the host build of the GPU kernels: " + reason);
    }
    this.limitBytes = limitBytes;
    this.reversedGemm = reversedGemm;
  }

  /** Allocations refused by the limit so far. */
  long refusals() {
    return refusals;
  }

  long liveBytes() {
    return liveBytes;
  }

  /** The most bytes live at once so far. */
  long peakBytes() {
    return peakBytes;
  }

  @Override
  DeviceBuffer allocate(long bytes) {
    if (bytes > limitBytes - liveBytes) {
      refusals++;
      throw new DeviceOutOfMemoryException("Cannot allocate " + bytes + " bytes of emulated"
          + " device memory: " + liveBytes + " of the limit " + limitBytes + " are in use");
    }
    long address = HostKernels.alloc(bytes);
    live.put(address, bytes);
    liveBytes += bytes;
    peakBytes = Math.max(peakBytes, liveBytes);
    return new DeviceBuffer(this, address, bytes, null);
  }

  @Override
  void free(long address) {
    Long bytes = live.remove(address);
    if (bytes == null) {
      throw new IllegalStateException("[BUG] free of an address this device did not allocate");
    }
    liveBytes -= bytes;
    HostKernels.free(address);
  }

  @Override
  void zero(long address, long bytes) {
    HostKernels.zero(address, bytes);
  }

  @Override
  void copyToDevice(long dst, Object array, long hostOffset, long bytes) {
    HostKernels.copyIn(dst, array, hostOffset, bytes);
  }

  @Override
  void copyToHost(Object array, long hostOffset, long src, long bytes) {
    HostKernels.copyOut(array, hostOffset, src, bytes);
  }

  /** The CPU's BlockGemm call of the same shape (see {@link Device#hostGemm}). */
  @Override
  void gemm(boolean dbl, boolean transA, boolean transB, int m, int n, int k, double alpha,
      long a, int lda, long b, int ldb, double beta, long c, int ldc) {
    if (!reversedGemm) {
      hostGemm(dbl, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      return;
    }
    // column-major C (m x n) := A (m x k) · B (k x n), each sum from l = k - 1 down to 0
    if (dbl) {
      double[] x = new double[k * m];
      double[] d = new double[k * n];
      copyToHost(x, 0, a, 8L * x.length);
      copyToHost(d, 0, b, 8L * d.length);
      double[] out = new double[m * n];
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
          double sum = 0;
          for (int l = k - 1; l >= 0; l--) {
            sum += x[l * m + i] * d[j * k + l];
          }
          out[j * m + i] = sum;
        }
      }
      copyToDevice(c, out, 0, 8L * out.length);
    } else {
      float[] x = new float[k * m];
      float[] d = new float[k * n];
      copyToHost(x, 0, a, 4L * x.length);
      copyToHost(d, 0, b, 4L * d.length);
      float[] out = new float[m * n];
      for (int j = 0; j < n; j++) {
        for (int i = 0; i < m; i++) {
          float sum = 0;
          for (int l = k - 1; l >= 0; l--) {
            sum += x[l * m + i] * d[j * k + l];
          }
          out[j * m + i] = sum;
        }
      }
      copyToDevice(c, out, 0, 4L * out.length);
    }
  }

  @Override
  void launch(String name, long blocks, int threads, Object... args) {
    if (blocks <= 0) {
      return;
    }
    HostKernels.launch(name, (int) blocks, threads, launchSlots(name, blocks, args));
  }

  @Override
  void synchronize() {
    // host launches complete before they return
  }
}
