package org.nlspark.core.stats;

import java.util.Arrays;
import org.nlspark.core.job.Precision;

/**
 * Skeleton of every GEMM-shaped statistic: fill the window's draw matrix D (one row per
 * replicate, padded with zero rows to the full window), multiply it by one or two transformed
 * data blocks, then run the statistic's epilogue on the products while they are hot in cache.
 */
abstract class GemmStatistic implements BlockStatistic {
  protected final int n;
  protected final int b;
  protected final int window;
  protected final double[] draws;
  protected final double[] product;
  protected final double[] product2;
  private final BlockGemm gemm;
  private final BlockGemm gemm2;
  private final int[] undefined;
  private long flops;
  /** Row 0 of the identity product (the observed data through the cell shape), once per block. */
  private double[] identityRow;
  /** The observed statistic as {@link #observed} wrote it (undefined voxels NaN). */
  private double[] observedRow;

  /**
   * @param data transformed block (n x b, row-major) multiplied by D
   * @param data2 second transformed block (e.g. squares) or null
   * @param undefined voxel indices whose statistic is undefined (NaN)
   */
  GemmStatistic(Precision precision, double[] data, double[] data2, int n, int b, int window,
      int[] undefined) {
    this.n = n;
    this.b = b;
    this.window = window;
    this.draws = new double[window * n];
    this.product = new double[window * b];
    this.gemm = new BlockGemm(precision, data, n, b, window);
    this.product2 = data2 == null ? null : new double[window * b];
    this.gemm2 = data2 == null ? null : new BlockGemm(precision, data2, n, b, window);
    this.undefined = undefined;
  }

  @Override
  public final int width() {
    return b;
  }

  @Override
  public final int undefinedVoxels() {
    return undefined.length;
  }

  @Override
  public final long flops() {
    return flops;
  }

  @Override
  public final void compute(long first, int rows, double[] out) {
    multiplyWindow(first, rows);
    finish(rows, out);
  }

  @Override
  public final void observed(double[] out) {
    Arrays.fill(draws, 0.0);
    fillIdentity(draws, 0);
    gemm.multiply(draws, product);
    flops += gemm.flops();
    if (gemm2 != null) {
      gemm2.multiply(draws, product2);
      flops += gemm2.flops();
    } else {
      identityRow = Arrays.copyOf(product, b);
    }
    finish(1, out); // the epilogue writes only row 0: no window-sized output buffer
    observedRow = Arrays.copyOf(out, b);
  }

  /** The observed statistic per voxel (computed here when {@link #observed} was not called). */
  protected final double[] observedValues() {
    if (observedRow == null) {
      observed(new double[b]);
    }
    return observedRow;
  }

  /** Fills the window's draws and multiplies every data block into {@link #product} (and
   *  {@link #product2}) in float64, widening float32 products exactly. */
  protected final void multiplyWindow(long first, int rows) {
    for (int r = 0; r < rows; r++) {
      fillDraw(first + r, draws, r * n);
    }
    Arrays.fill(draws, rows * n, window * n, 0.0);
    multiplyOnly();
  }

  /**
   * Fills the window's draws and multiplies the first data block. Returns the float32 product
   * when the precision is float32 (rows [0, rows) valid, no widening pass), else null and
   * {@link #product} holds the float64 rows.
   */
  protected final float[] multiplyDraws(long first, int rows) {
    for (int r = 0; r < rows; r++) {
      fillDraw(first + r, draws, r * n);
    }
    Arrays.fill(draws, rows * n, window * n, 0.0);
    if (gemm.isFloat32() && gemm2 == null) {
      flops += gemm.flops();
      return gemm.multiplyFloat(draws);
    }
    multiplyOnly();
    return null;
  }

  /**
   * Row 0 of the identity product D_identity * X (single data block only): the one computed by
   * {@link #observed}, or multiplied here when observed was not asked for.
   */
  protected final double[] identityRow() {
    if (identityRow == null) {
      Arrays.fill(draws, 0.0);
      fillIdentity(draws, 0);
      multiplyOnly();
      identityRow = Arrays.copyOf(product, b);
    }
    return identityRow;
  }

  private void multiplyOnly() {
    gemm.multiply(draws, product);
    flops += gemm.flops();
    if (gemm2 != null) {
      gemm2.multiply(draws, product2);
      flops += gemm2.flops();
    }
  }

  private void finish(int rows, double[] out) {
    epilogue(rows, out);
    for (int r = 0; r < rows; r++) {
      int base = r * b;
      for (int v : undefined) {
        out[base + v] = Double.NaN;
      }
    }
  }

  /** Writes replicate {@code replicate}'s row of D at {@code offset}. */
  abstract void fillDraw(long replicate, double[] d, int offset);

  /** Writes the identity (observed) row of D at {@code offset}. */
  abstract void fillIdentity(double[] d, int offset);

  /** Turns {@link #product} (and {@link #product2}) rows [0, rows) into statistic values. */
  abstract void epilogue(int rows, double[] out);

  static int[] constantColumns(double[] x, int n, int b) {
    return BlockTransforms.constantColumns(x, n, b);
  }
}
