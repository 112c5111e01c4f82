package org.nlspark.core.io.nifti;

import java.io.Serializable;
import java.util.Arrays;
import org.nlspark.core.InvalidInputException;

/**
 * A voxel grid: the spatial dimensions (nx, ny, nz) and the voxel-to-world affine. Two images
 * can be analysed together only on the same grid (DESIGN §8): equal dims and affines equal
 * within {@link #AFFINE_TOLERANCE} in every element.
 */
public final class NiftiGrid implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Largest absolute difference of two affine elements on the same grid (mm). */
  public static final double AFFINE_TOLERANCE = 1e-4;

  private final int[] dims;
  private final double[][] affine;

  public NiftiGrid(int[] dims, double[][] affine) {
    if (dims.length != 3 || affine.length != 4) {
      throw new IllegalArgumentException(
          "[BUG] a grid needs 3 dims and a 4x4 affine, but had " + dims.length + " dims and "
              + affine.length + " affine rows");
    }
    this.dims = dims.clone();
    this.affine = new double[4][];
    for (int i = 0; i < 4; i++) {
      this.affine[i] = Arrays.copyOf(affine[i], 4);
    }
  }

  /** (nx, ny, nz). */
  public int[] dims() {
    return dims.clone();
  }

  /** Voxels of the grid: nx·ny·nz. */
  public int voxels() {
    return dims[0] * dims[1] * dims[2];
  }

  /** The 4 × 4 affine (a copy). */
  public double[][] affine() {
    double[][] copy = new double[4][];
    for (int i = 0; i < 4; i++) {
      copy[i] = affine[i].clone();
    }
    return copy;
  }

  /**
   * Refuses an image whose grid differs from this one.
   *
   * @param name the image's file, named in the message
   * @param reference what this grid is ("mask", or the first file's name)
   * @throws InvalidInputException "Cannot use NAME: its grid differs from the mask's: dims
   *     (91,109,91) vs mask (64,64,40)" or "... affine differs by 2.0 at [0][3] (...)"
   */
  public void requireSame(NiftiGrid other, String name, String reference) {
    String difference = difference(other, reference);
    if (difference != null) {
      throw new InvalidInputException(
          "Cannot use " + name + ": its grid differs from the " + reference + "'s: " + difference
              + "; resample it onto the " + reference + "'s grid (e.g. nilearn.image.resample_to_img)");
    }
  }

  /** Why {@code other} is not on this grid, or null when it is. */
  public String difference(NiftiGrid other, String reference) {
    if (!Arrays.equals(dims, other.dims)) {
      return "dims " + formatDims(other.dims) + " vs " + reference + " " + formatDims(dims);
    }
    double worst = 0;
    int wi = -1;
    int wj = -1;
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        double d = Math.abs(other.affine[i][j] - affine[i][j]);
        if (d > worst || Double.isNaN(d)) {
          worst = d;
          wi = i;
          wj = j;
        }
      }
    }
    if (wi >= 0 && !(worst <= AFFINE_TOLERANCE)) {
      return "affine differs by " + worst + " at [" + wi + "][" + wj + "] (" + other.affine[wi][wj]
          + " vs " + reference + " " + affine[wi][wj] + "; tolerance " + AFFINE_TOLERANCE + ")";
    }
    return null;
  }

  static String formatDims(int[] d) {
    return "(" + d[0] + "," + d[1] + "," + d[2] + ")";
  }

  @Override
  public String toString() {
    return "grid " + formatDims(dims) + " affine " + Arrays.deepToString(affine);
  }
}
