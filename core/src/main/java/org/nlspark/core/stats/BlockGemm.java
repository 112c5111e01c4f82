package org.nlspark.core.stats;

import dev.ludovic.netlib.blas.BLAS;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.job.Precision;

/**
 * One grid cell's product, always of the same shape: OUT (window x b) := D (window x n) * X (n x b),
 * all row-major, computed by one single-threaded BLAS call (DESIGN §5: the call shape fixes the
 * last bits, so it never depends on how many replicates are left or how work is split).
 *
 * <p>Row-major X (n x b) is column-major X^T (b x n), so in BLAS terms
 * OUT^T (b x window) := X^T (b x n) * D^T (n x window). In float32 the data block is converted once
 * and D/OUT per call; the epilogue always reads float64.
 */
public final class BlockGemm {
  private final Precision precision;
  private final int n;
  private final int b;
  private final int window;
  private final double[] x;
  private final float[] xf;
  private final float[] df;
  private final float[] outf;
  private final BLAS blas = Blas.get();

  /** @param x row-major n x b block (kept, not copied) */
  public BlockGemm(Precision precision, double[] x, int n, int b, int window) {
    if (x.length != n * b) {
      throw new IllegalArgumentException("[BUG] block of " + x.length + " values is not " + n + " x " + b);
    }
    this.precision = precision;
    this.n = n;
    this.b = b;
    this.window = window;
    if (precision == Precision.FLOAT32) {
      this.x = null;
      this.xf = new float[x.length];
      for (int i = 0; i < x.length; i++) {
        xf[i] = (float) x[i];
      }
      this.df = new float[window * n];
      this.outf = new float[window * b];
    } else {
      this.x = x;
      this.xf = null;
      this.df = null;
      this.outf = null;
    }
  }

  /** OUT := D * X for the full window (rows past the live ones are computed and ignored). */
  public void multiply(double[] d, double[] out) {
    if (precision == Precision.FLOAT64) {
      blas.dgemm("N", "N", b, window, n, 1.0, x, b, d, n, 0.0, out, b);
    } else {
      for (int i = 0; i < window * n; i++) {
        df[i] = (float) d[i];
      }
      blas.sgemm("N", "N", b, window, n, 1.0f, xf, b, df, n, 0.0f, outf, b);
      for (int i = 0; i < window * b; i++) {
        out[i] = outf[i];
      }
    }
  }

  /**
   * float32 only: OUT := D * X left in single precision (no widening pass); the returned buffer is
   * reused by the next call. Fused epilogues read it directly.
   */
  public float[] multiplyFloat(double[] d) {
    if (precision != Precision.FLOAT32) {
      throw new IllegalStateException("[BUG] multiplyFloat on a float64 block");
    }
    for (int i = 0; i < window * n; i++) {
      df[i] = (float) d[i];
    }
    blas.sgemm("N", "N", b, window, n, 1.0f, xf, b, df, n, 0.0f, outf, b);
    return outf;
  }

  public boolean isFloat32() {
    return precision == Precision.FLOAT32;
  }

  /** Floating-point operations of one multiply (for the performance report). */
  public long flops() {
    return 2L * n * b * window;
  }
}
