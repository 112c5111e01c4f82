package org.nlspark.core.data;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.io.nifti.DefaultMaskBuilder;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;

/**
 * One 4-D NIfTI image per subject, time on the 4th axis (DESIGN §8: how ISC and the time-series
 * commands take images), read into the (subjects, timepoints, voxels) float64 array their
 * analyses hold, C order: value (s, t, v) at {@code (s · T + t) · V + v}, voxels in the mask's
 * order (nilearn's), so the array equals the {@code .npy} a user would have masked with nilearn.
 *
 * <p>{@link #describe} reads every file's header (no data): each must be on the grid of the
 * mask (or, without one, of the first file) and have the first file's number of time points;
 * either difference is an exit-2 error naming the file. The data are then read one volume at a
 * time (a 4-D file may exceed any Java array): the default mask, when needed, in one pass over
 * every volume of every subject ({@link #defaultMask}), and the masked values in a second
 * ({@link #read}). Memory beyond the result is one volume in float64 and its masked copy.
 * Values are scaled as nibabel does and kept exactly (float32 files widen exactly to float64).
 */
public final class SeriesImages {
  /** The largest array the JVM allocates (some VMs reserve a few header words). */
  public static final long MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  private final String name;
  private final List<String> files;
  private final NiftiHeader reference;
  private final int timepoints;

  private SeriesImages(String name, List<String> files, NiftiHeader reference, int timepoints) {
    this.name = name;
    this.files = List.copyOf(files);
    this.reference = reference;
    this.timepoints = timepoints;
  }

  /**
   * Reads and checks the header of every subject's file.
   *
   * @param name what the input is in messages ({@code "--input subjects.txt"})
   * @param files one image per subject, in subject order
   * @param mask the given mask, or null (the first file's grid is then the reference)
   * @throws InvalidInputException for no file, an unreadable header, another grid or another
   *     number of time points than the first file's
   */
  public static SeriesImages describe(String name, List<String> files,
      SampleSource.Opener opener, NiftiMask mask) {
    if (files.isEmpty()) {
      throw new InvalidInputException("Cannot read " + name + ": it names no image");
    }
    NiftiHeader first = null;
    for (int s = 0; s < files.size(); s++) {
      String file = files.get(s);
      NiftiHeader h = header(opener, file, name);
      if (mask != null) {
        mask.grid().requireSame(h.grid(), file, "mask");
      }
      if (first == null) {
        first = h;
        if (h.volumes() > Integer.MAX_VALUE) {
          throw new InvalidInputException("Cannot read " + file + ": it has " + h.volumes()
              + " time points, more than " + Integer.MAX_VALUE);
        }
        continue;
      }
      if (mask == null) {
        first.grid().requireSame(h.grid(), file, "first image (" + files.get(0) + ")");
      }
      if (h.volumes() != first.volumes()) {
        throw new InvalidInputException("Cannot use " + file + " as subject " + s + " of "
            + name + ": it has " + h.volumes() + " time points, but " + files.get(0) + " has "
            + first.volumes() + "; every subject's series must have the same length (time on"
            + " the 4th axis), so trim them to a common length");
      }
    }
    return new SeriesImages(name, files, first, (int) first.volumes());
  }

  private static NiftiHeader header(SampleSource.Opener opener, String file, String name) {
    try (NiftiReader r = NiftiReader.open(opener.open(file), opener.size(file), file)) {
      return r.header();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + file + " of " + name + ": "
          + e.getMessage(), e);
    }
  }

  public String name() {
    return name;
  }

  public List<String> files() {
    return files;
  }

  public int subjects() {
    return files.size();
  }

  public int timepoints() {
    return timepoints;
  }

  /** The first file's header: the grid of every file, and of a default mask. */
  public NiftiHeader reference() {
    return reference;
  }

  /**
   * Values the array holds for {@code mask}: subjects × timepoints × mask voxels.
   *
   * @throws ResourceRefusedException (exit 3) when that exceeds one Java array
   */
  public long values(NiftiMask mask) {
    long total = (long) subjects() * timepoints * mask.count();
    if (total > MAX_ARRAY_LENGTH) {
      throw new ResourceRefusedException("Cannot read " + name + ": " + subjects()
          + " subjects x " + timepoints + " time points x " + mask.count() + " mask voxels = "
          + total + " values, more than the " + MAX_ARRAY_LENGTH + " one Java array holds"
          + " (these series are read on the driver); give a smaller --mask, fewer subjects"
          + " or shorter series");
    }
    return total;
  }

  /**
   * The default mask (DESIGN §8): every voxel finite in every volume of every subject and
   * non-zero in at least one, on the first file's grid.
   */
  public NiftiMask defaultMask(SampleSource.Opener opener) {
    DefaultMaskBuilder builder = new DefaultMaskBuilder(reference.voxelsPerVolume());
    double[] volume = new double[reference.voxelsPerVolume()];
    for (String file : files) {
      try (NiftiReader r = NiftiReader.open(opener.open(file), opener.size(file), file)) {
        for (int t = 0; t < timepoints; t++) {
          r.readVolume(volume);
          builder.add(volume);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
      }
    }
    return builder.build(reference);
  }

  /**
   * The masked series of every subject as one (subjects, timepoints, mask voxels) array.
   *
   * @throws ResourceRefusedException when it exceeds one Java array ({@link #values})
   * @throws InvalidInputException for a NaN or infinity inside the mask, naming file and volume
   */
  public double[] read(SampleSource.Opener opener, NiftiMask mask) {
    int v = mask.count();
    double[] out = new double[(int) values(mask)];
    double[] volume = new double[mask.grid().voxels()];
    double[] masked = new double[v];
    for (int s = 0; s < files.size(); s++) {
      String file = files.get(s);
      try (NiftiReader r = NiftiReader.open(opener.open(file), opener.size(file), file)) {
        // Re-checked here: the file may have changed since describe read its header.
        mask.grid().requireSame(r.header().grid(), file, "mask");
        if (r.header().volumes() != timepoints) {
          throw new InvalidInputException("Cannot use " + file + ": it now has "
              + r.header().volumes() + " time points, but had " + timepoints
              + " when the inputs were resolved; was it rewritten during the run?");
        }
        for (int t = 0; t < timepoints; t++) {
          r.readVolume(volume);
          mask.extract(volume, masked, 0);
          SampleChecks.requireFinite(masked, v, file, t, "volume");
          System.arraycopy(masked, 0, out, (s * timepoints + t) * v, v);
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
      }
    }
    return out;
  }
}
