package org.nlspark.core.data;

import java.util.List;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * The samples of several sources one after the other, as one {@link SampleSource} (DESIGN §8):
 * the volumes of one 4-D time series per subject, sample {@code s · T + t} being volume t of
 * subject s, so the rows are the (subjects, timepoints) C order of the series array that ISC
 * holds. Its splits are the parts' splits in order; every part has the same voxels and mask.
 */
public final class ConcatenatedSamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final SampleSource[] parts;
  private final int[] firstSample; // per part
  private final int[] firstSplit; // per part, and the total at the end
  private final int samples;

  private ConcatenatedSamples(String name, List<? extends SampleSource> parts) {
    if (parts.isEmpty()) {
      throw new IllegalArgumentException("[BUG] no source to concatenate");
    }
    this.name = name;
    this.parts = parts.toArray(new SampleSource[0]);
    this.firstSample = new int[this.parts.length];
    this.firstSplit = new int[this.parts.length + 1];
    long n = 0;
    for (int i = 0; i < this.parts.length; i++) {
      SampleSource p = this.parts[i];
      if (p.voxels() != this.parts[0].voxels()) {
        throw new IllegalArgumentException("[BUG] part " + i + " of " + name + " has "
            + p.voxels() + " voxels, part 0 " + this.parts[0].voxels());
      }
      firstSample[i] = (int) n;
      n += p.samples();
      if (n > Integer.MAX_VALUE) {
        throw new org.nlspark.core.InvalidInputException("Cannot read " + name + ": its parts"
            + " hold more than " + Integer.MAX_VALUE + " samples");
      }
      firstSplit[i + 1] = firstSplit[i] + p.splits();
    }
    this.samples = (int) n;
  }

  /** {@code parts} in order as one source named {@code name}. */
  public static ConcatenatedSamples of(String name, List<? extends SampleSource> parts) {
    return new ConcatenatedSamples(name, parts);
  }

  /** The parts, in order. */
  public List<SampleSource> parts() {
    return List.of(parts);
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
    return parts[0].voxels();
  }

  @Override
  public NiftiMask mask() {
    return parts[0].mask();
  }

  @Override
  public int splits() {
    return firstSplit[parts.length];
  }

  private int partOf(int split) {
    if (split < 0 || split >= splits()) {
      throw new IndexOutOfBoundsException("[BUG] split " + split + " of " + splits());
    }
    int i = java.util.Arrays.binarySearch(firstSplit, split);
    if (i < 0) {
      return -i - 2;
    }
    while (i + 1 < parts.length && firstSplit[i + 1] == split) {
      i++; // a part without splits (no samples) owns none
    }
    return i;
  }

  @Override
  public int firstSample(int split) {
    int i = partOf(split);
    return firstSample[i] + parts[i].firstSample(split - firstSplit[i]);
  }

  @Override
  public int splitSamples(int split) {
    int i = partOf(split);
    return parts[i].splitSamples(split - firstSplit[i]);
  }

  @Override
  public boolean float32() {
    for (SampleSource p : parts) {
      if (!p.float32()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public void read(int split, Opener files, Sink sink) {
    int i = partOf(split);
    int offset = firstSample[i];
    parts[i].read(split - firstSplit[i], files, new Sink() {
      @Override
      public void float32(int sample, float[] values) {
        sink.float32(offset + sample, values);
      }

      @Override
      public void float64(int sample, double[] values) {
        sink.float64(offset + sample, values);
      }
    });
  }
}
