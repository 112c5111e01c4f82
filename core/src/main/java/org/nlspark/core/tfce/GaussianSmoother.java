package org.nlspark.core.tfce;

import java.util.Arrays;
import org.nlspark.core.InvalidInputException;

/**
 * A separable Gaussian of standard deviation {@code sigmaMm} (world millimetres) over the voxels
 * of a {@link MaskGrid}, for variance smoothing (DESIGN §9, {@link VarianceSmoothing}).
 *
 * <p><b>Kernel</b>: on axis a (i, j, k) the standard deviation in voxels is σ_a = sigmaMm /
 * voxelSize_a, the voxel sizes being the lengths of the affine's first three columns (nibabel's
 * zooms). Each 1-D kernel is w_a(d) = exp(−d² / (2 σ_a²)) for the integer offsets |d| ≤ R_a =
 * ceil({@link #TRUNCATION_SIGMAS} σ_a) and 0 beyond, divided by its sum so that it adds to 1. At 4
 * σ the weight left out is below 6.4e-5 of a kernel's mass, and because {@link
 * VarianceSmoothing} divides by the equally smoothed mask the normalisation cancels in the
 * result; it is kept so smoothed values stay on the data's scale. The 3-D kernel is the product
 * w_i(di) w_j(dj) w_k(dk) on the box |di| ≤ R_i, |dj| ≤ R_j, |dk| ≤ R_k: an isotropic Gaussian in
 * world mm when the axes are orthogonal (an oblique affine's shear is ignored: the kernel runs
 * along the voxel axes).
 *
 * <p><b>Convolution</b>: the masked values are placed on the grid (0 outside the mask), then
 * filtered along k, j and i in turn (zero outside the grid), each output a sum over the offsets
 * in increasing order, and read back at the mask's voxels. Only the mask's bounding box is
 * filtered: outside it the values are 0, so the sums are the same. Not thread-safe (two grid
 * buffers are reused); a task makes its own.
 */
public final class GaussianSmoother {
  /** Kernels are cut at this many standard deviations (rounded up to whole voxels). */
  public static final double TRUNCATION_SIGMAS = 4.0;

  private final MaskGrid mask;
  private final double[][] kernels;
  private final int[] radii;
  private final int i0;
  private final int j0;
  private final int k0;
  private final int bi;
  private final int bj;
  private final int bk;
  /** The box cell (row-major over the bounding box) of each in-mask voxel. */
  private final int[] boxCell;
  private final double[] a;
  private final double[] b;

  /**
   * @param voxelSizesMm the voxel size of axes i, j, k in mm (finite and &gt; 0)
   */
  public GaussianSmoother(MaskGrid mask, double sigmaMm, double[] voxelSizesMm) {
    this.mask = mask;
    this.kernels = kernels(sigmaMm, voxelSizesMm);
    this.radii = new int[3];
    for (int axis = 0; axis < 3; axis++) {
      radii[axis] = kernels[axis].length / 2;
    }
    int voxels = mask.voxels();
    int nj = mask.nj();
    int nk = mask.nk();
    int[] lo = {Integer.MAX_VALUE, Integer.MAX_VALUE, Integer.MAX_VALUE};
    int[] hi = {-1, -1, -1};
    for (int v = 0; v < voxels; v++) {
      int c = mask.cellOf(v);
      int[] ijk = {c / (nj * nk), (c / nk) % nj, c % nk};
      for (int axis = 0; axis < 3; axis++) {
        lo[axis] = Math.min(lo[axis], ijk[axis]);
        hi[axis] = Math.max(hi[axis], ijk[axis]);
      }
    }
    if (voxels == 0) {
      lo = new int[3];
      hi = new int[3];
    }
    this.i0 = lo[0];
    this.j0 = lo[1];
    this.k0 = lo[2];
    this.bi = hi[0] - lo[0] + 1;
    this.bj = hi[1] - lo[1] + 1;
    this.bk = hi[2] - lo[2] + 1;
    this.boxCell = new int[voxels];
    for (int v = 0; v < voxels; v++) {
      int c = mask.cellOf(v);
      int i = c / (nj * nk) - i0;
      int j = (c / nk) % nj - j0;
      int k = c % nk - k0;
      boxCell[v] = (i * bj + j) * bk + k;
    }
    this.a = new double[Math.multiplyExact(Math.multiplyExact(bi, bj), bk)];
    this.b = new double[a.length];
  }

  /**
   * The three normalised 1-D kernels (axes i, j, k), each of length 2 R_a + 1, centre at R_a.
   *
   * @throws InvalidInputException for a sigma or voxel size that is not finite and &gt; 0
   */
  public static double[][] kernels(double sigmaMm, double[] voxelSizesMm) {
    VarianceSmoothing.checkSigma(sigmaMm);
    if (voxelSizesMm.length != 3) {
      throw new IllegalArgumentException("[BUG] " + voxelSizesMm.length + " voxel sizes, not 3");
    }
    double[][] out = new double[3][];
    for (int axis = 0; axis < 3; axis++) {
      double size = voxelSizesMm[axis];
      if (!(size > 0) || Double.isInfinite(size)) {
        throw new InvalidInputException("Cannot smooth the variance: the voxel size of axis "
            + axis + " must be finite and > 0 mm, but was: " + size + "; check the mask's"
            + " affine");
      }
      double s = sigmaMm / size;
      double reach = Math.ceil(TRUNCATION_SIGMAS * s);
      // A kernel wider than any grid adds only zeros; cap it so the array stays small.
      int r = (int) Math.min(reach, 1 << 20);
      double[] w = new double[2 * r + 1];
      double sum = 0;
      for (int d = -r; d <= r; d++) {
        w[d + r] = StrictMath.exp(-((double) d * d) / (2 * s * s));
      }
      for (double x : w) {
        sum += x;
      }
      for (int d = 0; d < w.length; d++) {
        w[d] /= sum;
      }
      out[axis] = w;
    }
    return out;
  }

  /** R_i, R_j, R_k: the kernels reach this many voxels either side. */
  public int[] radii() {
    return radii.clone();
  }

  public MaskGrid mask() {
    return mask;
  }

  /**
   * Smooths one masked map: {@code in[inOffset + v]} for the mask's voxels v (finite values) into
   * {@code out[outOffset + v]}. {@code in} and {@code out} may be the same array and range.
   */
  public void smooth(double[] in, int inOffset, double[] out, int outOffset) {
    mask.checkMap("smooth a map", in, inOffset);
    mask.checkMap("smooth a map", out, outOffset);
    int voxels = boxCell.length;
    Arrays.fill(a, 0.0);
    for (int v = 0; v < voxels; v++) {
      a[boxCell[v]] = in[inOffset + v];
    }
    // Along k (stride 1), j (stride bk), i (stride bj bk): a -> b -> a -> b.
    pass(a, b, bi * bj, bk, 1, kernels[2]);
    pass(b, a, bi, bj, bk, kernels[1]);
    pass(a, b, 1, bi, bj * bk, kernels[0]);
    for (int v = 0; v < voxels; v++) {
      out[outOffset + v] = b[boxCell[v]];
    }
  }

  /**
   * Filters one axis of the box: it is {@code outer} blocks of {@code length × inner} values, the
   * axis being the one of {@code length} (stride {@code inner}). Each output is the sum over the
   * offsets d in increasing order of w(d) times the input d steps away (inputs off the box are
   * 0); the loop over {@code inner} is innermost only for speed, the order of each sum is the
   * same.
   */
  private static void pass(double[] src, double[] dst, int outer, int length, int inner,
      double[] w) {
    int r = w.length / 2;
    for (int o = 0; o < outer; o++) {
      int block = o * length * inner;
      for (int x = 0; x < length; x++) {
        int lo = Math.max(-r, -x);
        int hi = Math.min(r, length - 1 - x);
        int at = block + x * inner;
        if (inner == 1) {
          double s = 0;
          for (int d = lo; d <= hi; d++) {
            s += w[d + r] * src[at + d];
          }
          dst[at] = s;
          continue;
        }
        Arrays.fill(dst, at, at + inner, 0.0);
        for (int d = lo; d <= hi; d++) {
          double wd = w[d + r];
          int from = at + d * inner;
          for (int in = 0; in < inner; in++) {
            dst[at + in] += wd * src[from + in];
          }
        }
      }
    }
  }
}
