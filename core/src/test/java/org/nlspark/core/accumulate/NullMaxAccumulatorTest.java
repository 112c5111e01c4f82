package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.job.Tail;

class NullMaxAccumulatorTest {

  /** Copies rows [r0, r1) × columns [c0, c1) of a rows × cols matrix into a fresh row-major buffer. */
  private static double[] cell(double[] x, int cols, int r0, int r1, int c0, int c1, int pad) {
    int w = c1 - c0;
    double[] out = new double[pad + (r1 - r0) * w];
    for (int r = r0; r < r1; r++) {
      System.arraycopy(x, r * cols + c0, out, pad + (r - r0) * w, w);
    }
    return out;
  }

  private static boolean touch(NullMaxAccumulator a, NullMaxAccumulator b) {
    long ea = a.firstReplicate() + a.length();
    long eb = b.firstReplicate() + b.length();
    return Math.max(a.firstReplicate(), b.firstReplicate()) <= Math.min(ea, eb);
  }

  /** Voxel blocks × replicate windows, merged in random valid orders, against brute force. */
  @Test
  void maximaMatchBruteForceForAnyGridAndValidOrder() {
    SplittableRandom rnd = new SplittableRandom(31);
    for (int trial = 0; trial < 40; trial++) {
      int p = 1 + rnd.nextInt(80);
      int v = 1 + rnd.nextInt(9);
      Tail tail = Tail.values()[trial % 3];
      double[] keys = new double[p * v];
      for (int i = 0; i < keys.length; i++) {
        double s = rnd.nextInt(9) == 0 ? Double.NaN : (rnd.nextInt(7) - 3) * 0.5;
        keys[i] = tail.key(s);
      }
      int allNanRow = rnd.nextInt(p);
      for (int e = 0; e < v; e++) {
        keys[allNanRow * v + e] = Double.NaN;
      }
      double[] want = new double[p];
      for (int r = 0; r < p; r++) {
        want[r] = Double.NEGATIVE_INFINITY;
        for (int e = 0; e < v; e++) {
          double k = keys[r * v + e];
          if (!Double.isNaN(k) && k > want[r]) {
            want[r] = k;
          }
        }
      }
      NullMaxAccumulator whole = new NullMaxAccumulator(0, p);
      whole.update(keys, 0, p, v, 0);
      assertThat(whole.maxima()).containsExactly(want);
      assertThat(whole.maxima()[allNanRow]).isEqualTo(Double.NEGATIVE_INFINITY);
      assertThat(whole.n()).isEqualTo(p);
      byte[] expected = whole.toBytes();

      int[] windows = Splits.cuts(rnd, p, 7);
      int[] blocks = Splits.cuts(rnd, v, 4);
      List<NullMaxAccumulator> live = new ArrayList<>();
      for (int w = 0; w + 1 < windows.length; w++) {
        for (int b = 0; b + 1 < blocks.length; b++) {
          int pad = rnd.nextInt(3);
          int r0 = windows[w];
          int r1 = windows[w + 1];
          NullMaxAccumulator acc = new NullMaxAccumulator(r0, r1 - r0);
          double[] buf = cell(keys, v, r0, r1, blocks[b], blocks[b + 1], pad);
          // rows of a window may arrive in pieces
          int mid = r0 + rnd.nextInt(r1 - r0 + 1);
          int w0 = blocks[b + 1] - blocks[b];
          acc.update(buf, pad, mid - r0, w0, r0);
          acc.update(buf, pad + (mid - r0) * w0, r1 - mid, w0, mid);
          live.add(rnd.nextBoolean() ? NullMaxAccumulator.fromBytes(acc.toBytes()) : acc);
        }
      }
      while (live.size() > 1) {
        int i = rnd.nextInt(live.size());
        int j = rnd.nextInt(live.size());
        if (i == j || !touch(live.get(i), live.get(j))) {
          continue;
        }
        live.get(i).merge(live.get(j));
        live.remove(j);
      }
      assertThat(live.get(0).toBytes()).as("trial %d", trial).isEqualTo(expected);

      // FWER from the streamed maxima equals counting over the full P x V null
      double[] observed = new double[v];
      for (int e = 0; e < v; e++) {
        observed[e] = e == 0 ? Double.NaN : (rnd.nextInt(7) - 3) * 0.5;
      }
      double[] fwer = PValues.fwer(live.get(0).maxima(), observed, false);
      for (int e = 0; e < v; e++) {
        if (e == 0) {
          assertThat(fwer[e]).isNaN();
          continue;
        }
        long count = 0;
        for (int r = 0; r < p; r++) {
          boolean any = false;
          for (int c = 0; c < v; c++) {
            any |= keys[r * v + c] >= observed[e];
          }
          if (any) {
            count++;
          }
        }
        assertThat(fwer[e]).isEqualTo((count + 1.0) / (p + 1.0));
      }
    }
  }

  @Test
  void aGapIsABug() {
    NullMaxAccumulator a = new NullMaxAccumulator(0, 10);
    NullMaxAccumulator b = new NullMaxAccumulator(11, 5);
    assertThatThrownBy(() -> a.merge(b))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] Cannot merge NullMaxAccumulator over replicates [0, 10) and [11, 16):"
            + " the ranges leave a gap; merge adjacent windows first");
    NullMaxAccumulator c = new NullMaxAccumulator(10, 1);
    a.merge(c);
    assertThat(a.firstReplicate()).isZero();
    assertThat(a.length()).isEqualTo(11);
    assertThatThrownBy(() -> c.update(new double[2], 0, 2, 1, 10))
        .hasMessage("Cannot update NullMaxAccumulator: replicates [10, 12) lie outside its range"
            + " [10, 11)");
  }

  @Test
  void emptySignedZeroAndBytes() {
    NullMaxAccumulator empty = new NullMaxAccumulator(5, 0);
    assertThat(empty.isEmpty()).isTrue();
    NullMaxAccumulator a = new NullMaxAccumulator(3, 2);
    assertThat(a.isEmpty()).isTrue();
    a.update(new double[] {-0.0, Double.NaN}, 0, 1, 2, 3);
    NullMaxAccumulator b = new NullMaxAccumulator(3, 2);
    b.update(new double[] {0.0}, 0, 1, 1, 3);
    NullMaxAccumulator ab = NullMaxAccumulator.fromBytes(a.toBytes());
    ab.merge(b);
    NullMaxAccumulator ba = NullMaxAccumulator.fromBytes(b.toBytes());
    ba.merge(a);
    ba.merge(empty);
    assertThat(ab.toBytes()).isEqualTo(ba.toBytes());
    assertThat(Double.doubleToRawLongBits(ab.maxima()[0])).isZero(); // +0.0 wins over -0.0
    assertThat(ab.maxima()[1]).isEqualTo(Double.NEGATIVE_INFINITY); // never updated
    assertThat(ab.n()).isEqualTo(1);
    empty.merge(ab);
    assertThat(empty.toBytes()).isEqualTo(ab.toBytes());
    byte[] bytes = ab.toBytes();
    assertThat(bytes).hasSize(2 + 8 + 4 + 2 * 9);
    assertThat(bytes[0]).isEqualTo((byte) 'N');
    bytes[1] = 3;
    assertThatThrownBy(() -> NullMaxAccumulator.fromBytes(bytes))
        .hasMessageStartingWith("Cannot read NullMaxAccumulator: unknown format version 3");
  }
}
