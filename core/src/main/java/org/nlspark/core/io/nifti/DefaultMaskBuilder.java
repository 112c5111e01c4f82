package org.nlspark.core.io.nifti;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;

/**
 * The mask used when none is given (DESIGN §8): every voxel that is finite in every sample and
 * non-zero in at least one. It is built from volumes in any order and any partition, and
 * partial builders merge ({@link #merge}), so executors can each see their share of samples and
 * the driver combine O(voxels) state.
 *
 * <p>Invariants: {@code nonFinite} and {@code nonZero} are bitsets over the grid's voxels in
 * file order; bit f of {@code nonFinite} is set iff some sample seen had a NaN or infinity at
 * f; bit f of {@code nonZero} iff some sample seen had a non-zero (possibly non-finite) value.
 */
public final class DefaultMaskBuilder implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int voxels;
  private final long[] nonFinite;
  private final long[] nonZero;
  private long samples;

  /** A builder for volumes of {@code voxels} voxels. */
  public DefaultMaskBuilder(int voxels) {
    if (voxels < 1) {
      throw new IllegalArgumentException("voxels must be >= 1, but was: " + voxels);
    }
    this.voxels = voxels;
    this.nonFinite = new long[(voxels + 63) >>> 6];
    this.nonZero = new long[(voxels + 63) >>> 6];
  }

  /** Adds one sample's volume (file order). */
  public void add(float[] volume) {
    checkLength(volume.length);
    for (int f = 0; f < voxels; f++) {
      float v = volume[f];
      if (!Float.isFinite(v)) {
        nonFinite[f >>> 6] |= 1L << f;
      }
      if (v != 0) {
        nonZero[f >>> 6] |= 1L << f;
      }
    }
    samples++;
  }

  /** Adds one sample's volume (file order), in float64. */
  public void add(double[] volume) {
    checkLength(volume.length);
    for (int f = 0; f < voxels; f++) {
      double v = volume[f];
      if (!Double.isFinite(v)) {
        nonFinite[f >>> 6] |= 1L << f;
      }
      if (v != 0) {
        nonZero[f >>> 6] |= 1L << f;
      }
    }
    samples++;
  }

  private void checkLength(int length) {
    if (length < voxels) {
      throw new IllegalArgumentException("[BUG] a volume must have " + voxels
          + " voxels, but had: " + length);
    }
  }

  /** Folds {@code other} (same grid size) into this builder; returns this. */
  public DefaultMaskBuilder merge(DefaultMaskBuilder other) {
    if (other.voxels != voxels) {
      throw new IllegalArgumentException("[BUG] cannot merge mask builders of " + voxels
          + " and " + other.voxels + " voxels");
    }
    for (int w = 0; w < nonFinite.length; w++) {
      nonFinite[w] |= other.nonFinite[w];
      nonZero[w] |= other.nonZero[w];
    }
    samples += other.samples;
    return this;
  }

  /** Samples added so far, over all merged builders. */
  public long samples() {
    return samples;
  }

  /**
   * The mask on the grid of {@code geometry} (the first input's header).
   *
   * @throws InvalidInputException when no voxel qualifies
   */
  public NiftiMask build(NiftiHeader geometry) {
    if (geometry.voxelsPerVolume() != voxels) {
      throw new IllegalArgumentException("[BUG] the geometry has " + geometry.voxelsPerVolume()
          + " voxels, the builder " + voxels);
    }
    boolean[] selected = new boolean[voxels];
    int count = 0;
    long droppedNonFinite = 0;
    long droppedAllZero = 0; // a non-finite value is non-zero, so the two never overlap
    for (int f = 0; f < voxels; f++) {
      boolean finite = (nonFinite[f >>> 6] & (1L << f)) == 0;
      boolean someNonZero = (nonZero[f >>> 6] & (1L << f)) != 0;
      selected[f] = someNonZero && finite;
      count += selected[f] ? 1 : 0;
      droppedNonFinite += finite ? 0 : 1;
      droppedAllZero += someNonZero ? 0 : 1;
    }
    if (count == 0) {
      throw new InvalidInputException(
          "Cannot compute the default mask: no voxel is finite in all " + samples
              + " samples and non-zero in at least one; check the inputs or give --mask");
    }
    return NiftiMask.fromSelection(geometry, selected, "the default mask")
        .withDropped(droppedNonFinite, droppedAllZero);
  }
}
