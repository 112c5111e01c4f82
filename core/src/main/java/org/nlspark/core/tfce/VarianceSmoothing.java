package org.nlspark.core.tfce;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;

/**
 * Variance smoothing of t maps (DESIGN §9; {@code --variance-smoothing SIGMA_MM}; ports the
 * definition of FSL randomise's {@code -v}): for one draw, the variance map σ²_v
 * = RSS_v / dof is smoothed inside the mask by the Gaussian of {@link GaussianSmoother} and
 * divided by the equally smoothed mask (edge correction), σ̃²_v = G(σ² · 1_mask)_v /
 * G(1_mask)_v, and the t map becomes the pseudo-t
 *
 * <pre>
 *   t̃_v = t_v · sqrt(σ²_v / σ̃²_v).
 * </pre>
 *
 * Every draw (the observed one included) is transformed the same way before any p-value, maximum,
 * cluster or TFCE score is taken, so inference is on the pseudo-t. A map transform only: it
 * knows nothing of how the maps were computed, and is applied once per draw of the whole-map
 * loop.
 *
 * <p>Voxels without a statistic (NaN t and variance: the data lie in the model's space) are left
 * out of both smoothings (as if outside the mask) and stay NaN. A voxel whose variance is 0 in a
 * draw (an exact fit to rounding, t infinite) keeps its t: σ²/σ̃² is 0 and ∞ · 0 has no value.
 *
 * <p>Serializable (it travels with the tile runners); the smoother's buffers are made per task
 * by {@link #forMaps}.
 */
public final class VarianceSmoothing implements Serializable {
  private static final long serialVersionUID = 1L;

  private final MaskGrid mask;
  private final double sigmaMm;
  private final double[] voxelSizesMm;

  private VarianceSmoothing(MaskGrid mask, double sigmaMm, double[] voxelSizesMm) {
    this.mask = mask;
    this.sigmaMm = sigmaMm;
    this.voxelSizesMm = voxelSizesMm.clone();
  }

  /**
   * Checks sigma and the voxel sizes (exit 2).
   *
   * @param voxelSizesMm the sizes of axes i, j, k ({@link #voxelSizes} of the mask's affine)
   */
  public static VarianceSmoothing of(MaskGrid mask, double sigmaMm, double[] voxelSizesMm) {
    GaussianSmoother.kernels(sigmaMm, voxelSizesMm); // checks every value
    return new VarianceSmoothing(mask, sigmaMm, voxelSizesMm);
  }

  /** The one check of {@code --variance-smoothing}: finite and &gt; 0 mm. */
  public static double checkSigma(double sigmaMm) {
    if (!(sigmaMm > 0) || Double.isInfinite(sigmaMm)) {
      throw new InvalidInputException("--variance-smoothing must be a finite standard deviation"
          + " > 0 in mm, but was: " + sigmaMm);
    }
    return sigmaMm;
  }

  /**
   * The voxel sizes (mm) of axes i, j, k of a voxel-to-world affine: the lengths of its first
   * three columns (nibabel's {@code zooms} from an affine).
   */
  public static double[] voxelSizes(double[][] affine) {
    double[] sizes = new double[3];
    for (int axis = 0; axis < 3; axis++) {
      double s = 0;
      for (int row = 0; row < 3; row++) {
        s += affine[row][axis] * affine[row][axis];
      }
      sizes[axis] = Math.sqrt(s);
    }
    return sizes;
  }

  /** The one refusal of an input without a grid (exit 2). */
  public static void requireGrid(boolean hasGrid) {
    if (!hasGrid) {
      throw new InvalidInputException("Cannot smooth the variance: --variance-smoothing smooths"
          + " over the image grid in mm, but this input has no grid (an .npy matrix); give"
          + " NIfTI inputs (with --mask) instead");
    }
  }

  public MaskGrid mask() {
    return mask;
  }

  public double sigmaMm() {
    return sigmaMm;
  }

  /** What summary.json says ({@code whole_map.variance_smoothing}). */
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("sigma_mm", sigmaMm);
    m.put("voxel_sizes_mm", voxelSizesMm.clone());
    double[][] k = GaussianSmoother.kernels(sigmaMm, voxelSizesMm);
    m.put("kernel_radii_voxels", new int[] {k[0].length / 2, k[1].length / 2, k[2].length / 2});
    m.put("kernel", "separable gaussian, each axis cut at ceil(" + GaussianSmoother.TRUNCATION_SIGMAS
        + " sigma) voxels and normalised to sum 1; smoothed variance divided by the smoothed"
        + " mask");
    m.put("statistic", "pseudo-t = t * sqrt(variance / smoothed variance) in tstat{c} and every"
        + " p-value, cluster and TFCE map of t contrasts");
    return m;
  }

  /**
   * The transform of one contrast's maps in one task. {@code defined} marks the voxels with a
   * statistic (the same in every draw of a contrast); the smoothed mask is computed once here.
   */
  public Maps forMaps(boolean[] defined) {
    return new Maps(new GaussianSmoother(mask, sigmaMm, voxelSizesMm), defined);
  }

  /** {@link #forMaps} for the voxels whose variance is not NaN. */
  public Maps forMaps(double[] variance, int offset) {
    boolean[] defined = new boolean[mask.voxels()];
    for (int v = 0; v < defined.length; v++) {
      defined[v] = !Double.isNaN(variance[offset + v]);
    }
    return forMaps(defined);
  }

  /** The pseudo-t of one draw (a new array): t and variance are masked maps of this grid. */
  public double[] pseudoT(double[] t, double[] variance) {
    double[] out = t.clone();
    forMaps(variance, 0).apply(out, 0, variance, 0);
    return out;
  }

  /** One contrast's transform with its smoother's buffers; not thread-safe. */
  public static final class Maps {
    private final GaussianSmoother smoother;
    private final boolean[] defined;
    private final double[] weights;
    private final double[] work;

    Maps(GaussianSmoother smoother, boolean[] defined) {
      int voxels = smoother.mask().voxels();
      if (defined.length != voxels) {
        throw new IllegalArgumentException("[BUG] " + defined.length + " flags for " + voxels
            + " voxels");
      }
      this.smoother = smoother;
      this.defined = defined.clone();
      this.weights = new double[voxels];
      this.work = new double[voxels];
      for (int v = 0; v < voxels; v++) {
        weights[v] = defined[v] ? 1.0 : 0.0;
      }
      smoother.smooth(weights, 0, weights, 0);
    }

    /**
     * Turns {@code t[tOffset ..]} into the pseudo-t in place, from the same draw's variance
     * map {@code variance[vOffset ..]}.
     */
    public void apply(double[] t, int tOffset, double[] variance, int vOffset) {
      int voxels = work.length;
      for (int v = 0; v < voxels; v++) {
        work[v] = defined[v] ? variance[vOffset + v] : 0.0;
      }
      smoother.smooth(work, 0, work, 0);
      for (int v = 0; v < voxels; v++) {
        double s2 = variance[vOffset + v];
        if (!defined[v] || !(s2 > 0)) {
          continue; // NaN stays NaN; a zero variance keeps its infinite t
        }
        double smoothed = work[v] / weights[v];
        t[tOffset + v] = t[tOffset + v] * Math.sqrt(s2 / smoothed);
      }
    }
  }
}
