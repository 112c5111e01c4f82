package org.nlspark.core.gpu;

import org.nlspark.core.job.Precision;
import org.nlspark.core.stats.BlockGemm;

/**
 * What {@link GpuTileExecutor} needs of a device: memory, copies, GEMMs and kernel launches by
 * name. {@link CudaContext} is the real one; {@link HostDevice} runs the host build of the same
 * kernel source on the CPU, so the whole executor can be checked against the CPU kernels without
 * a GPU. Addresses are raw device addresses (or host pointers for the host device).
 */
abstract class Device {
  /** Allocates; a device out-of-memory throws DeviceOutOfMemoryException. */
  abstract DeviceBuffer allocate(long bytes);

  abstract void free(long address);

  abstract void zero(long address, long bytes);

  /** Copies {@code bytes} bytes of a Java primitive array from byte {@code hostOffset} to dst. */
  abstract void copyToDevice(long dst, Object array, long hostOffset, long bytes);

  /** Copies {@code bytes} bytes from src into a Java primitive array at byte {@code hostOffset}. */
  abstract void copyToHost(Object array, long hostOffset, long src, long bytes);

  /** Column-major C := alpha · op(A) · op(B) + beta · C, DGEMM when {@code dbl}, else SGEMM. */
  abstract void gemm(boolean dbl, boolean transA, boolean transB, int m, int n, int k,
      double alpha, long a, int lda, long b, int ldb, double beta, long c, int ldc);

  /**
   * Launches kernel {@code name} with a 1-D grid. Arguments are {@link DeviceBuffer}s (their
   * address), Long or Integer (as long long), Double, or null (a null pointer).
   */
  abstract void launch(String name, long blocks, int threads, Object... args);

  abstract void synchronize();

  /** The 8-byte parameter slots of a launch (CudaNative.launch's convention). */
  static long[] launchSlots(String name, long blocks, Object... args) {
    if (blocks > Integer.MAX_VALUE) {
      throw new IllegalArgumentException("[BUG] grid of " + blocks + " blocks is too large");
    }
    long[] bits = new long[args.length];
    for (int i = 0; i < args.length; i++) {
      Object a = args[i];
      if (a == null) {
        bits[i] = 0L;
      } else if (a instanceof DeviceBuffer) {
        bits[i] = ((DeviceBuffer) a).address();
      } else if (a instanceof Long || a instanceof Integer) {
        bits[i] = ((Number) a).longValue();
      } else if (a instanceof Double) {
        bits[i] = Double.doubleToRawLongBits((Double) a);
      } else {
        throw new IllegalArgumentException("[BUG] kernel argument " + i + " of " + name
            + " has unsupported type " + a.getClass().getName());
      }
    }
    return bits;
  }

  /**
   * The executor's GEMM form run on the host by the CPU kernels' own {@link BlockGemm} call of the
   * same shape: C (m x n) := A (m x k) · B (k x n), column-major, no transposes, alpha 1, beta 0 —
   * that is row-major OUT (n x m) := D (n x k) · X (k x m). Operands are read from this device and
   * the product written back, so the products equal the CPU's bit for bit.
   */
  final void hostGemm(boolean dbl, boolean transA, boolean transB, int m, int n, int k,
      double alpha, long a, int lda, long b, int ldb, double beta, long c, int ldc) {
    if (transA || transB || alpha != 1.0 || beta != 0.0 || lda != m || ldb != k || ldc != m) {
      throw new UnsupportedOperationException("[BUG] only the executor's GEMM form (no"
          + " transposes, alpha 1, beta 0, packed leading dimensions) runs on the host");
    }
    double[] x = hostCopy(a, (long) k * m, dbl);
    double[] d = hostCopy(b, (long) k * n, dbl);
    double[] out = new double[n * m];
    new BlockGemm(dbl ? Precision.FLOAT64 : Precision.FLOAT32, x, k, m, n).multiply(d, out);
    if (dbl) {
      copyToDevice(c, out, 0, 8L * out.length);
    } else {
      float[] f = new float[out.length];
      for (int i = 0; i < f.length; i++) {
        f[i] = (float) out[i]; // exact: BlockGemm widened single-precision products
      }
      copyToDevice(c, f, 0, 4L * f.length);
    }
  }

  private double[] hostCopy(long address, long count, boolean dbl) {
    double[] v = new double[(int) count];
    if (dbl) {
      copyToHost(v, 0, address, 8L * count);
      return v;
    }
    float[] f = new float[(int) count];
    copyToHost(f, 0, address, 4L * count);
    for (int i = 0; i < f.length; i++) {
      v[i] = f[i];
    }
    return v;
  }
}
