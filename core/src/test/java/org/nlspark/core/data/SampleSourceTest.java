package org.nlspark.core.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TilePlanner;

/** Row ranges of an .npy against the whole-file reader; column windows; block bytes in plans. */
class SampleSourceTest {
  @TempDir Path dir;

  static final SampleSource.Opener LOCAL = new SampleSource.Opener() {
    @Override
    public InputStream open(String path) throws IOException {
      return Files.newInputStream(Path.of(path));
    }

    @Override
    public long size(String path) throws IOException {
      return Files.size(Path.of(path));
    }
  };

  private static double[] readAll(SampleSource s) {
    double[] out = new double[s.samples() * s.voxels()];
    int v = s.voxels();
    for (int split = 0; split < s.splits(); split++) {
      s.read(split, LOCAL, new SampleSource.Sink() {
        @Override
        public void float32(int sample, float[] values) {
          for (int j = 0; j < v; j++) {
            out[sample * v + j] = values[j];
          }
        }

        @Override
        public void float64(int sample, double[] values) {
          System.arraycopy(values, 0, out, sample * v, v);
        }
      });
    }
    return out;
  }

  @Test
  void npyRowRangesReadTheSameValuesAsTheWholeFileForAnySplitSize() {
    SplittableRandom r = new SplittableRandom(3);
    int rows = 17;
    int cols = 33;
    float[] f = new float[rows * cols];
    double[] d = new double[rows * cols];
    for (int i = 0; i < f.length; i++) {
      f[i] = (float) r.nextGaussian();
      d[i] = r.nextGaussian();
    }
    Path p32 = dir.resolve("x32.npy");
    Path p64 = dir.resolve("x64.npy");
    NpyWriter.writeFloat32(p32, new long[] {rows, cols}, f);
    NpyWriter.writeFloat64(p64, new long[] {rows, cols}, d);
    for (Path p : new Path[] {p32, p64}) {
      NpyArray whole = NpyReader.read(p, 2);
      for (long splitBytes : new long[] {1, 4 * cols * 3, 8 * cols * 5, 1 << 20}) {
        NpySamples s = NpySamples.describe(LOCAL, p.toString(), "--input", splitBytes);
        assertThat(s.float32()).isEqualTo(p == p32);
        assertThat(s.samples()).isEqualTo(rows);
        int covered = 0;
        for (int split = 0; split < s.splits(); split++) {
          assertThat(s.firstSample(split)).isEqualTo(covered);
          covered += s.splitSamples(split);
        }
        assertThat(covered).isEqualTo(rows);
        assertThat(readAll(s)).as(p + " split " + splitBytes).containsExactly(whole.data());
      }
    }
  }

  @Test
  void npyRefusesATruncatedFileAndNanNamingTheRow() throws Exception {
    Path p = dir.resolve("x.npy");
    double[] v = new double[4 * 5];
    v[2 * 5 + 3] = Double.NaN;
    NpyWriter.writeFloat64(p, new long[] {4, 5}, v);
    NpySamples s = NpySamples.describe(LOCAL, p.toString(), "--input x.npy", 1);
    assertThatThrownBy(() -> readAll(s)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("row 2 holds NaN at voxel 3");
    byte[] all = Files.readAllBytes(p);
    Files.write(p, java.util.Arrays.copyOf(all, all.length - 8));
    assertThatThrownBy(() -> NpySamples.describe(LOCAL, p.toString(), "--input x.npy", 1))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("truncated");
  }

  @Test
  void aColumnWindowCopiesTheSameColumnsAsTheWholeMatrix() {
    int rows = 3;
    int cols = 10;
    double[] all = new double[rows * cols];
    for (int i = 0; i < all.length; i++) {
      all[i] = i;
    }
    DataMatrix whole = DataMatrix.of(rows, cols, all, "x");
    DataMatrix window = DataMatrix.window(rows, cols, 4, 3, whole.copyColumns(4, 7));
    assertThat(window.cols()).isEqualTo(cols);
    assertThat(window.isWhole()).isFalse();
    assertThat(window.copyColumns(5, 7)).containsExactly(whole.copyColumns(5, 7));
    assertThat(window.get(2, 6)).isEqualTo(whole.get(2, 6));
    assertThatThrownBy(() -> window.copyColumns(3, 5)).isInstanceOf(IllegalStateException.class);
    assertThatThrownBy(window::values).isInstanceOf(IllegalStateException.class);
  }

  @Test
  void thePlannerCountsTheHeldVoxelBlockInATilesBytes() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(1000).build();
    int n = 40;
    int v = 5000;
    JobInputs inMemory = JobInputs.of(DataMatrix.of(n, v, new double[n * v], "x"));
    JobInputs held32 = JobInputs.onExecutors(n, v, 0, null, 4);
    JobInputs held64 = JobInputs.onExecutors(n, v, 0, null, 8);
    long base = TilePlanner.bytesPerTile(spec, inMemory, Grid.DEFAULT, 2, 0);
    assertThat(TilePlanner.bytesPerTile(spec, held32, Grid.DEFAULT, 2, 0))
        .isEqualTo(base + 4L * n * 1024);
    assertThat(TilePlanner.bytesPerTile(spec, held64, Grid.DEFAULT, 2, 0))
        .isEqualTo(base + 8L * n * 1024);
    assertThat(held32.bytes()).isZero(); // nothing of the data is held by the driver
  }
}
