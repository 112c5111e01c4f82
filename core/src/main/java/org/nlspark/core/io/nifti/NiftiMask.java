package org.nlspark.core.io.nifti;

import java.io.InputStream;
import java.io.Serializable;
import java.nio.file.Path;
import org.nlspark.core.InvalidInputException;

/**
 * The analysed voxels of a grid, in nlspark's voxel order, and the header whose geometry
 * (dims, pixdims, qform/sform) every output map copies.
 *
 * <p><b>Voxel order.</b> Voxels are numbered in C order over the voxel indices (i, j, k), k
 * varying fastest: voxel n of a masked vector is the n-th non-zero of the mask when the mask is
 * walked {@code for i: for j: for k}. This is nilearn's {@code NiftiMasker} order (it masks with
 * numpy boolean indexing, {@code data[mask]}, on arrays that nibabel indexes (i, j, k), and
 * numpy walks C order), so a masked vector or a result {@code .npy} compares one to one with
 * nilearn's, and a samples × voxels {@code .npy} prepared with nilearn gives the same numbers
 * as the NIfTI files it came from. The file itself stores i fastest (Fortran order), so {@link
 * #fileIndex} maps between the two.
 *
 * <p>Invariants: 1 ≤ count ≤ grid voxels; {@code fileIndices} holds distinct file indices, in
 * voxel order.
 */
public final class NiftiMask implements Serializable {
  private static final long serialVersionUID = 1L;

  private final NiftiHeader geometry;
  private final NiftiGrid grid;
  private final int[] fileIndices;
  /** A default mask's voxels left out as non-finite in some sample; -1 for any other mask. */
  private final long droppedNonFinite;
  /** A default mask's voxels left out as zero in every sample; -1 for any other mask. */
  private final long droppedAllZero;

  private NiftiMask(NiftiHeader geometry, int[] fileIndices) {
    this(geometry, fileIndices, -1, -1);
  }

  private NiftiMask(NiftiHeader geometry, int[] fileIndices, long droppedNonFinite,
      long droppedAllZero) {
    this.geometry = geometry;
    this.grid = geometry.grid();
    this.fileIndices = fileIndices;
    this.droppedNonFinite = droppedNonFinite;
    this.droppedAllZero = droppedAllZero;
  }

  /** This mask, recorded as a default mask that left out these voxels (DESIGN §8). */
  public NiftiMask withDropped(long nonFinite, long allZero) {
    return new NiftiMask(geometry, fileIndices, nonFinite, allZero);
  }

  /** Voxels a default mask left out for a NaN or infinity in some sample; -1 if not one. */
  public long droppedNonFinite() {
    return droppedNonFinite;
  }

  /** Voxels a default mask left out for being zero in every sample; -1 if not one. */
  public long droppedAllZero() {
    return droppedAllZero;
  }

  /**
   * The mask of a 3-D image: non-zero voxels are analysed.
   *
   * @param values the image's values in file order (as {@link NiftiReader} reads them)
   * @throws InvalidInputException when the image is 4-D, holds a NaN or selects no voxel
   */
  public static NiftiMask fromImage(NiftiHeader header, double[] values, String name) {
    if (header.volumes() != 1) {
      throw new InvalidInputException(
          "Cannot use " + name + " as a mask: a mask must be 3-D, but its dims are "
              + NiftiHeader.formatDims(header.dim()));
    }
    int[] n = header.spatialDims();
    int voxels = header.voxelsPerVolume();
    if (values.length < voxels) {
      throw new IllegalArgumentException("[BUG] mask values must have " + voxels
          + " entries, but had " + values.length);
    }
    for (int f = 0; f < voxels; f++) {
      if (Double.isNaN(values[f])) {
        int i = f % n[0];
        int j = (f / n[0]) % n[1];
        int k = f / (n[0] * n[1]);
        throw new InvalidInputException(
            "Cannot use " + name + " as a mask: voxel (" + i + "," + j + "," + k
                + ") is NaN; a mask must be 0 (excluded) or non-zero (analysed) everywhere,"
                + " so replace its NaNs (e.g. numpy.nan_to_num)");
      }
    }
    boolean[] selected = new boolean[voxels];
    for (int f = 0; f < voxels; f++) {
      selected[f] = values[f] != 0;
    }
    return fromSelection(header, selected, name);
  }

  /**
   * The mask of the selected voxels.
   *
   * @param selected per voxel in file order, true when analysed
   * @param name what the mask is, for the message when nothing is selected
   */
  public static NiftiMask fromSelection(NiftiHeader geometry, boolean[] selected, String name) {
    int[] n = geometry.spatialDims();
    int count = 0;
    for (int f = 0; f < geometry.voxelsPerVolume(); f++) {
      count += selected[f] ? 1 : 0;
    }
    if (count == 0) {
      throw new InvalidInputException(
          "Cannot use " + name + " as a mask: it selects no voxel (all "
              + geometry.voxelsPerVolume() + " are zero); give a mask with non-zero voxels");
    }
    int[] indices = new int[count];
    int next = 0;
    // C order over (i, j, k): k fastest; the file index is i + nx·(j + ny·k).
    for (int i = 0; i < n[0]; i++) {
      for (int j = 0; j < n[1]; j++) {
        for (int k = 0; k < n[2]; k++) {
          int f = i + n[0] * (j + n[1] * k);
          if (selected[f]) {
            indices[next++] = f;
          }
        }
      }
    }
    return new NiftiMask(geometry, indices);
  }

  /** Reads a mask file (3-D NIfTI, non-zero = analysed). */
  public static NiftiMask read(Path path) {
    NiftiHeader[] header = new NiftiHeader[1];
    double[] values = NiftiReader.read3d(path, header);
    return fromImage(header[0], values, path.toString());
  }

  /** Reads a mask from a stream; see {@link NiftiReader#open(InputStream, long, String)}. */
  public static NiftiMask read(InputStream in, long fileSize, String name) {
    try (NiftiReader reader = NiftiReader.open(in, fileSize, name)) {
      NiftiHeader h = reader.header();
      if (h.volumes() != 1) {
        throw new InvalidInputException(
            "Cannot use " + name + " as a mask: a mask must be 3-D, but its dims are "
                + NiftiHeader.formatDims(h.dim()));
      }
      double[] values = new double[h.voxelsPerVolume()];
      reader.readVolume(values);
      return fromImage(h, values, name);
    }
  }

  /** Number of analysed voxels. */
  public int count() {
    return fileIndices.length;
  }

  public NiftiGrid grid() {
    return grid;
  }

  /** The header whose geometry output maps copy (dims, pixdims, qform, sform). */
  public NiftiHeader geometry() {
    return geometry;
  }

  /** The file-order index (i + nx·(j + ny·k)) of voxel {@code n}. */
  public int fileIndex(int n) {
    return fileIndices[n];
  }

  /** (i, j, k) of voxel {@code n}. */
  public int[] ijk(int n) {
    int[] d = grid.dims();
    int f = fileIndices[n];
    return new int[] {f % d[0], (f / d[0]) % d[1], f / (d[0] * d[1])};
  }

  /** Copies the analysed voxels of a volume (file order) into {@code dest[at ..]}, voxel order. */
  public void extract(float[] volume, float[] dest, int at) {
    for (int n = 0; n < fileIndices.length; n++) {
      dest[at + n] = volume[fileIndices[n]];
    }
  }

  /** As {@link #extract(float[], float[], int)}, in float64. */
  public void extract(double[] volume, double[] dest, int at) {
    for (int n = 0; n < fileIndices.length; n++) {
      dest[at + n] = volume[fileIndices[n]];
    }
  }

  /**
   * A volume (file order) holding {@code values[n]} at voxel n and {@code outside} elsewhere.
   *
   * @throws IllegalArgumentException when values does not have one entry per voxel
   */
  public float[] toVolume(float[] values, float outside) {
    if (values.length != fileIndices.length) {
      throw new IllegalArgumentException("A map must have one value per mask voxel ("
          + fileIndices.length + "), but had: " + values.length);
    }
    float[] volume = new float[grid.voxels()];
    java.util.Arrays.fill(volume, outside);
    for (int n = 0; n < fileIndices.length; n++) {
      volume[fileIndices[n]] = values[n];
    }
    return volume;
  }

  /** A volume (file order) that is 1 at analysed voxels and 0 elsewhere. */
  public byte[] toSelectionVolume() {
    byte[] volume = new byte[grid.voxels()];
    for (int f : fileIndices) {
      volume[f] = 1;
    }
    return volume;
  }
}
