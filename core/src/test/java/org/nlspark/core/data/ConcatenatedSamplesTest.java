package org.nlspark.core.data;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.io.nifti.NiftiMask;

/** The parts' samples one after the other: splits, first samples and values in order. */
class ConcatenatedSamplesTest {
  /** rows x cols values r * 100 + c + offset, splits of {@code perSplit} rows. */
  private record Rows(int rows, int cols, int perSplit, double offset, boolean f32)
      implements SampleSource {
    @Override
    public String name() {
      return "rows" + offset;
    }

    @Override
    public int samples() {
      return rows;
    }

    @Override
    public int voxels() {
      return cols;
    }

    @Override
    public NiftiMask mask() {
      return null;
    }

    @Override
    public int splits() {
      return SampleSource.splitCount(rows, perSplit);
    }

    @Override
    public int firstSample(int split) {
      return split * perSplit;
    }

    @Override
    public int splitSamples(int split) {
      return Math.min(rows, (split + 1) * perSplit) - split * perSplit;
    }

    @Override
    public boolean float32() {
      return f32;
    }

    @Override
    public void read(int split, Opener files, Sink sink) {
      for (int r = firstSample(split); r < firstSample(split) + splitSamples(split); r++) {
        double[] d = new double[cols];
        for (int c = 0; c < cols; c++) {
          d[c] = r * 100 + c + offset;
        }
        sink.float64(r, d);
      }
    }
  }

  @Test
  void samplesFollowEachOtherAcrossParts() {
    Rows a = new Rows(5, 3, 2, 0.5, true); // splits of 2, 2, 1
    Rows b = new Rows(4, 3, 4, 0.25, false); // one split
    ConcatenatedSamples c = ConcatenatedSamples.of("both", List.of(a, b));
    assertThat(c.samples()).isEqualTo(9);
    assertThat(c.voxels()).isEqualTo(3);
    assertThat(c.splits()).isEqualTo(4);
    assertThat(c.float32()).isFalse();
    int[] first = new int[c.splits()];
    int[] count = new int[c.splits()];
    for (int s = 0; s < c.splits(); s++) {
      first[s] = c.firstSample(s);
      count[s] = c.splitSamples(s);
    }
    assertThat(first).containsExactly(0, 2, 4, 5);
    assertThat(count).containsExactly(2, 2, 1, 4);
    List<Integer> seen = new ArrayList<>();
    c.read(3, null, new SampleSource.Sink() {
      @Override
      public void float32(int sample, float[] values) {
        throw new AssertionError("float64 rows");
      }

      @Override
      public void float64(int sample, double[] values) {
        seen.add(sample);
        assertThat(values[1]).isEqualTo((sample - 5) * 100 + 1 + 0.25);
      }
    });
    assertThat(seen).containsExactly(5, 6, 7, 8);
    DataMatrix all = c.readAll(null);
    for (int r = 0; r < 9; r++) {
      double expected = r < 5 ? r * 100 + 2 + 0.5 : (r - 5) * 100 + 2 + 0.25;
      assertThat(all.get(r, 2)).as("row " + r).isEqualTo(expected);
    }
  }
}
