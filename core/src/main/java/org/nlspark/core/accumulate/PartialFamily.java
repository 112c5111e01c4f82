package org.nlspark.core.accumulate;

import java.util.Locale;

/**
 * The one registry of the byte forms partials travel in (DESIGN §2: tiles return bytes the
 * driver merges), after DataSketches' {@code Family}: each family's first byte (its id) and its
 * format version. A form starts with the id and the version; a reader rejects another family's
 * bytes, and bytes of no family, with a message naming what it found.
 *
 * <p>Invariants: 1. no two families share an id (checked when the class loads); 2. a family's
 * version changes when its layout does, so mixed builds fail loudly instead of misreading.
 * 3. every form is big-endian (one byte order for all partials). These bytes never leave a run:
 * no output file or fixture stores them.
 */
public enum PartialFamily {
  // Accumulators: version 2 since their numbers became big-endian like every other partial.
  /** {@link TailAccumulator}: the retained tails. */
  TAIL_ACCUMULATOR('T', 2, "TailAccumulator"),
  /** {@link TailAccumulator#upperOnly}: the retained largest values only. */
  UPPER_TAIL_ACCUMULATOR('U', 1, "TailAccumulator (upper only)"),
  /** {@link MomentAccumulator}: window moments. */
  MOMENT_ACCUMULATOR('M', 2, "MomentAccumulator"),
  /** {@link ExceedanceCounter}: exceedance counts. */
  EXCEEDANCE_COUNTER('E', 2, "ExceedanceCounter"),
  /** {@link NullMaxAccumulator}: per-replicate maxima. */
  NULL_MAX_ACCUMULATOR('N', 2, "NullMaxAccumulator"),
  /** {@link SampleStore}: saved replicates. */
  SAMPLE_STORE('S', 2, "SampleStore"),
  /** A voxelwise tile's partial ({@code tile.PartialResult}). */
  TILE_PARTIAL('P', 1, "a partial result"),
  /** A glm tile's partial ({@code glm.GlmAnalysis}). */
  GLM_PARTIAL('G', 3, "a glm partial result"), // 2: null tails; 3: written v and G
  /** A whole-map (TFCE, cluster) tile's partial ({@code tfce.TfcePartial}). */
  WHOLE_MAP_PARTIAL('W', 4, "a TFCE partial result"), // 3: cluster mass; 4: written v, G
  /** An isc voxel block's outcome ({@code isc.Isc.BlockOutcome}). */
  ISC_BLOCK('I', 1, "an isc block outcome"),
  /** A time-series voxel block's outcome ({@code timeseries.TimeSeriesCorrelation.BlockOut}). */
  TIME_SERIES_BLOCK('C', 1, "a time-series block outcome"),
  /** One voxel block's slice of a whole-map tile's statistic maps ({@code tfce.MapSlice}). */
  MAP_SLICE('L', 1, "a map slice");

  private final byte id;
  private final byte version;
  private final String what;

  PartialFamily(char id, int version, String what) {
    this.id = (byte) id;
    this.version = (byte) version;
    this.what = what;
  }

  static {
    for (PartialFamily a : values()) {
      for (PartialFamily b : values()) {
        if (a != b && a.id == b.id) {
          throw new ExceptionInInitializerError("[BUG] partial families " + a + " and " + b
              + " share the id byte " + hex(a.id));
        }
      }
    }
  }

  /** The first byte of this family's form. */
  public byte id() {
    return id;
  }

  /** The format version this build writes and reads. */
  public byte version() {
    return version;
  }

  /** What messages call bytes of this family ("TailAccumulator", "a glm partial result"). */
  public String what() {
    return what;
  }

  /** The family whose id is {@code id}, or null for bytes of no family. */
  public static PartialFamily of(byte id) {
    for (PartialFamily f : values()) {
      if (f.id == id) {
        return f;
      }
    }
    return null;
  }

  /**
   * Checks the two header bytes of a form of this family.
   *
   * @throws IllegalArgumentException naming the family found (or that none has that id), or the
   *     version found and the one this build reads
   */
  public void check(byte foundId, byte foundVersion) {
    if (foundId != id) {
      PartialFamily found = of(foundId);
      throw new IllegalArgumentException(String.format(Locale.ROOT,
          "Cannot read %s: magic byte must be %s, but was: %s (%s)", what, hex(id),
          hex(foundId), found == null ? "bytes of no partial this build knows"
              : "bytes of " + found.what));
    }
    if (foundVersion != version) {
      throw new IllegalArgumentException("Cannot read " + what + ": unknown format version "
          + foundVersion + " (this build reads version " + version + "); use the same nlspark"
          + " version on driver and executors");
    }
  }

  private static String hex(byte b) {
    return String.format(Locale.ROOT, "0x%02x", b);
  }
}
