package org.nlspark.core.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.DefaultMaskBuilder;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;

/**
 * NIfTI samples as a {@link SampleSource} (DESIGN §8): either one 3-D image per sample, in the
 * given order, or the volumes of one 4-D image. Executors open the files, check each image's
 * grid against the mask's, scale as nibabel does, keep the mask's voxels in voxel order, and
 * pass each sample on in its file's precision (float32 unless {@link NiftiHeader#prefersDouble}).
 * The driver reads no image data: a 3-D list needs no header on the driver, a 4-D file only its
 * header (for the number of volumes).
 */
public final class NiftiSamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final String[] files; // one per sample (3-D), or the one 4-D file
  private final boolean fourD;
  private final int samples;
  private final NiftiMask mask;
  private final int samplesPerSplit;
  private final boolean float32;
  // Scaled values kept in float64 (SeriesImages' rule for time series) rather than stored in
  // float32 when the data type and the scaling factors fit it.
  private final boolean exactScaling;

  private NiftiSamples(String name, String[] files, boolean fourD, int samples, NiftiMask mask,
      int samplesPerSplit, boolean float32) {
    this(name, files, fourD, samples, mask, samplesPerSplit, float32, false);
  }

  private NiftiSamples(String name, String[] files, boolean fourD, int samples, NiftiMask mask,
      int samplesPerSplit, boolean float32, boolean exactScaling) {
    this.exactScaling = exactScaling;
    this.name = name;
    this.files = files;
    this.fourD = fourD;
    this.samples = samples;
    this.mask = mask;
    this.samplesPerSplit = Math.max(1, samplesPerSplit);
    this.float32 = float32;
  }

  /**
   * One 3-D image per sample, in this order.
   *
   * @param float32 whether the images hold values float32 keeps exactly (the caller's claim,
   *     from a header; a file that prefers float64 is still read in float64)
   */
  public static NiftiSamples volumes(String name, List<String> files, NiftiMask mask,
      int samplesPerSplit, boolean float32) {
    if (files.isEmpty()) {
      throw new InvalidInputException("Cannot read " + name + ": it names no image");
    }
    return new NiftiSamples(name, files.toArray(new String[0]), false, files.size(), mask,
        samplesPerSplit, float32);
  }

  /** The volumes of one 4-D image, described from its header. */
  public static NiftiSamples fourD(Opener opener, String file, String name, NiftiMask mask,
      int samplesPerSplit) {
    return fourD(opener, file, name, mask, samplesPerSplit, false);
  }

  /**
   * The volumes of one subject's 4-D time series, read with {@link SeriesImages}' values:
   * scaled values stay float64 (only unscaled data that float32 holds exactly travel in
   * float32), so ISC and time-series runs give the bits of the series read whole.
   */
  public static NiftiSamples series(Opener opener, String file, String name, NiftiMask mask,
      int samplesPerSplit) {
    return fourD(opener, file, name, mask, samplesPerSplit, true);
  }

  private static NiftiSamples fourD(Opener opener, String file, String name, NiftiMask mask,
      int samplesPerSplit, boolean exactScaling) {
    NiftiHeader header;
    try (NiftiReader reader = NiftiReader.open(opener.open(file), opener.size(file), name)) {
      header = reader.header();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    mask.grid().requireSame(header.grid(), name, "mask");
    if (header.volumes() > Integer.MAX_VALUE) {
      throw new InvalidInputException("Cannot read " + name + ": it has " + header.volumes()
          + " volumes, more than " + Integer.MAX_VALUE + " samples");
    }
    return new NiftiSamples(name, new String[] {file}, true, (int) header.volumes(), mask,
        samplesPerSplit, !wide(header, exactScaling), exactScaling);
  }

  /** Whether this file's values are read in float64. */
  private static boolean wide(NiftiHeader h, boolean exactScaling) {
    return h.prefersDouble() || (exactScaling && h.hasScaling()
        && !(h.effectiveSlope() == 1.0 && h.effectiveInter() == 0.0));
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int samples() {
    return samples;
  }

  @Override
  public int voxels() {
    return mask.count();
  }

  @Override
  public NiftiMask mask() {
    return mask;
  }

  @Override
  public int splits() {
    return SampleSource.splitCount(samples, samplesPerSplit);
  }

  @Override
  public int firstSample(int split) {
    return split * samplesPerSplit;
  }

  @Override
  public int splitSamples(int split) {
    return Math.min(samples, (split + 1) * samplesPerSplit) - split * samplesPerSplit;
  }

  @Override
  public boolean float32() {
    return float32;
  }

  @Override
  public void read(int split, Opener opener, Sink sink) {
    int first = firstSample(split);
    int count = splitSamples(split);
    int v = mask.count();
    float[] maskedF = new float[v];
    double[] maskedD = new double[v];
    float[] volumeF = null;
    double[] volumeD = null;
    try {
      if (fourD) {
        try (NiftiReader reader = NiftiReader.open(opener.open(files[0]),
            opener.size(files[0]), name)) {
          mask.grid().requireSame(reader.header().grid(), name, "mask");
          boolean asDouble = wide(reader.header(), exactScaling);
          for (int s = 0; s < first; s++) {
            reader.skipVolume();
          }
          for (int s = first; s < first + count; s++) {
            if (asDouble) {
              volumeD = volumeD == null ? new double[mask.grid().voxels()] : volumeD;
              reader.readVolume(volumeD);
              emit(s, volumeD, maskedD, sink, "volume");
            } else {
              volumeF = volumeF == null ? new float[mask.grid().voxels()] : volumeF;
              reader.readVolume(volumeF);
              emit(s, volumeF, maskedF, sink, "volume");
            }
          }
        }
        return;
      }
      for (int s = first; s < first + count; s++) {
        String file = files[s];
        try (NiftiReader reader = NiftiReader.open(opener.open(file), opener.size(file),
            name + " (" + file + ")")) {
          NiftiHeader h = reader.header();
          if (h.volumes() != 1) {
            throw new InvalidInputException("Cannot use " + file + " as sample " + s + " of "
                + name + ": it holds " + h.volumes() + " volumes, but each file of a list must"
                + " be one 3-D image; pass a 4-D image as the --input itself");
          }
          mask.grid().requireSame(h.grid(), name + " (" + file + ")", "mask");
          if (h.prefersDouble()) {
            volumeD = volumeD == null ? new double[mask.grid().voxels()] : volumeD;
            reader.readVolume(volumeD);
            emit(s, volumeD, maskedD, sink, "sample");
          } else {
            volumeF = volumeF == null ? new float[mask.grid().voxels()] : volumeF;
            reader.readVolume(volumeF);
            emit(s, volumeF, maskedF, sink, "sample");
          }
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * Adds the whole volumes of {@code split} (unmasked, non-finite values allowed) to a default
   * mask builder (DESIGN §8: finite in every sample, non-zero in one): the first pass when no
   * mask is given, run where the files are. Grids are checked against this source's mask grid.
   */
  public DefaultMaskBuilder scan(int split, Opener opener) {
    DefaultMaskBuilder builder = new DefaultMaskBuilder(mask.grid().voxels());
    int first = firstSample(split);
    int count = splitSamples(split);
    float[] f = new float[mask.grid().voxels()];
    double[] d = null;
    try {
      if (fourD) {
        try (NiftiReader reader = NiftiReader.open(opener.open(files[0]),
            opener.size(files[0]), name)) {
          mask.grid().requireSame(reader.header().grid(), name, "first image");
          for (int s = 0; s < first; s++) {
            reader.skipVolume();
          }
          for (int s = first; s < first + count; s++) {
            if (wide(reader.header(), exactScaling)) {
              d = d == null ? new double[f.length] : d;
              reader.readVolume(d);
              builder.add(d);
            } else {
              reader.readVolume(f);
              builder.add(f);
            }
          }
        }
        return builder;
      }
      for (int s = first; s < first + count; s++) {
        try (NiftiReader reader = NiftiReader.open(opener.open(files[s]), opener.size(files[s]),
            name + " (" + files[s] + ")")) {
          mask.grid().requireSame(reader.header().grid(), name + " (" + files[s] + ")",
              "first image");
          if (reader.header().prefersDouble()) {
            d = d == null ? new double[f.length] : d;
            reader.readVolume(d);
            builder.add(d);
          } else {
            reader.readVolume(f);
            builder.add(f);
          }
        }
      }
      return builder;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  /** The same files with another mask (after the default mask is built). */
  public NiftiSamples withMask(NiftiMask other) {
    return new NiftiSamples(name, files, fourD, samples, other, samplesPerSplit, float32,
        exactScaling);
  }

  private void emit(int sample, float[] volume, float[] masked, Sink sink, String what) {
    mask.extract(volume, masked, 0);
    SampleChecks.requireFinite(masked, masked.length, sampleName(sample), sample, what,
        this::voxelAt);
    sink.float32(sample, masked);
  }

  private void emit(int sample, double[] volume, double[] masked, Sink sink, String what) {
    mask.extract(volume, masked, 0);
    SampleChecks.requireFinite(masked, masked.length, sampleName(sample), sample, what,
        this::voxelAt);
    sink.float64(sample, masked);
  }

  /** A masked voxel as the user finds it in a viewer: its (i, j, k) in the image. */
  private String voxelAt(int masked) {
    int[] ijk = mask.ijk(masked);
    return "voxel (i, j, k) = (" + ijk[0] + ", " + ijk[1] + ", " + ijk[2] + ")";
  }

  private String sampleName(int sample) {
    return fourD ? name : files[sample];
  }
}
