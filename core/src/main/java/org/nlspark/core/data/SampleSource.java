package org.nlspark.core.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * Where the samples of one input live, small enough to ship with every task (DESIGN §8): the
 * driver describes the input from headers only, and each executor reads its share of samples
 * ({@link #read} of one split) through whatever file system {@link Opener} reaches. Samples come
 * out as masked vectors in voxel order, in the precision of their file (float32 stays float32),
 * each value checked finite.
 *
 * <p>Invariants: splits cover samples [0, samples) in order, each split a contiguous run;
 * {@code read} of a split is a pure function of the files (a retried task reads the same values).
 */
public interface SampleSource extends Serializable {
  /** What the input is called in messages (its path, or the list it came from). */
  String name();

  int samples();

  /** Values per sample (the mask's voxels for images, the columns for an .npy). */
  int voxels();

  /** The grid and mask of image inputs, or null (an .npy has no grid). */
  NiftiMask mask();

  /** Independent read units (files, volume ranges, row ranges). */
  int splits();

  /** First sample of {@code split}. */
  int firstSample(int split);

  /** Samples in {@code split}. */
  int splitSamples(int split);

  /** Whether every value fits float32 exactly (so blocks may be held in float32). */
  boolean float32();

  /** Bytes the values take in float64: what the in-memory (broadcast) path would hold. */
  default long float64Bytes() {
    return (long) samples() * voxels() * Double.BYTES;
  }

  /** Reads the samples of {@code split}, in sample order, into {@code sink}. */
  void read(int split, Opener files, Sink sink);

  /**
   * Every sample read on this JVM, widened to float64 exactly (the in-memory path): the splits
   * in order through {@link #read}, so the values are those the executors would read.
   *
   * @throws InvalidInputException when the matrix exceeds one Java array
   */
  default DataMatrix readAll(Opener files) {
    int v = voxels();
    long total = (long) samples() * v;
    if (total > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException("Cannot read " + name() + " into one process: it holds "
          + total + " values, more than one Java array can hold; let executors read it"
          + " (spark.nlspark.ingest=blocks)");
    }
    double[] values = new double[(int) total];
    Sink sink = new Sink() {
      @Override
      public void float32(int sample, float[] row) {
        int at = sample * v;
        for (int j = 0; j < v; j++) {
          values[at + j] = row[j];
        }
      }

      @Override
      public void float64(int sample, double[] row) {
        System.arraycopy(row, 0, values, sample * v, v);
      }
    };
    for (int s = 0; s < splits(); s++) {
      read(s, files, sink);
    }
    return DataMatrix.of(samples(), v, values, name());
  }

  /** Opens files by path on the executor's file system (local, HDFS, ...). */
  interface Opener {
    InputStream open(String path) throws IOException;

    long size(String path) throws IOException;
  }

  /** Receives one masked sample; the array is reused after the call returns. */
  interface Sink {
    void float32(int sample, float[] values);

    void float64(int sample, double[] values);
  }

  /** Splits of about {@code target} samples each, over {@code samples}. */
  static int splitCount(int samples, int target) {
    return (samples + Math.max(1, target) - 1) / Math.max(1, target);
  }
}
