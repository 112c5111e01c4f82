package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class SampleStoreTest {

  @Test
  void windowsMergeToTheFullMatrixInAnyAdjacentOrder() {
    SplittableRandom rnd = new SplittableRandom(55);
    for (int trial = 0; trial < 30; trial++) {
      int b = 1 + rnd.nextInt(100);
      int v = rnd.nextInt(5);
      long first = rnd.nextInt(1000);
      double[] x = rnd.doubles((long) b * v).toArray();
      SampleStore whole = new SampleStore(first, b, v);
      for (int r = 0; r < b; r++) {
        whole.put(first + r, x, r * v, v);
      }
      assertThat(whole.values()).isEqualTo(x);
      assertThat(whole.n()).isEqualTo(b);
      int[] cut = Splits.cuts(rnd, b, 7);
      List<SampleStore> parts = new ArrayList<>();
      for (int p = 0; p + 1 < cut.length; p++) {
        SampleStore s = new SampleStore(first + cut[p], cut[p + 1] - cut[p], v);
        for (int r = cut[p]; r < cut[p + 1]; r++) {
          s.put(first + r, x, r * v, v);
        }
        parts.add(rnd.nextBoolean() ? SampleStore.fromBytes(s.toBytes()) : s);
      }
      SampleStore merged = Splits.mergeAdjacent(rnd, parts, SampleStore::merge);
      assertThat(merged.toBytes()).isEqualTo(whole.toBytes());
      assertThat(merged.firstReplicate()).isEqualTo(first);
      assertThat(merged.rows()).isEqualTo(b);
      assertThat(merged.elements()).isEqualTo(v);
    }
  }

  @Test
  void overlapsMustAgreeAndGapsAreBugs() {
    SampleStore a = new SampleStore(0, 2, 2);
    a.put(0, new double[] {1, 2}, 0, 2);
    SampleStore b = new SampleStore(1, 2, 2);
    b.put(2, new double[] {9, 5, 6}, 1, 2);
    a.merge(b);
    assertThat(a.rows()).isEqualTo(3);
    assertThat(a.hasReplicate(1)).isFalse();
    assertThat(a.hasReplicate(2)).isTrue();
    double[] v = a.values();
    assertThat(v[0]).isEqualTo(1.0);
    assertThat(v[2]).isNaN();
    assertThat(v[4]).isEqualTo(5.0);
    SampleStore c = new SampleStore(2, 1, 2);
    c.put(2, new double[] {5, 7}, 0, 2);
    assertThatThrownBy(() -> a.merge(c))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] Cannot merge SampleStore: replicate 2 has two different values for"
            + " element 1: 6.0 and 7.0");
    assertThatThrownBy(() -> a.merge(new SampleStore(4, 1, 2)))
        .hasMessage("[BUG] Cannot merge SampleStore over replicates [0, 3) and [4, 5): the ranges"
            + " leave a gap; merge adjacent windows first");
    assertThatThrownBy(() -> a.put(3, new double[2], 0, 2))
        .hasMessage("Cannot update SampleStore: replicates [3, 4) lie outside its range [0, 3)");
  }

  @Test
  void emptyAndBytes() {
    SampleStore e = new SampleStore(0, 0, 1);
    assertThat(e.isEmpty()).isTrue();
    SampleStore one = new SampleStore(7, 1, 1);
    one.put(7, new double[] {-0.0}, 0, 1);
    e.merge(one);
    assertThat(e.toBytes()).isEqualTo(one.toBytes()).hasSize(2 + 8 + 4 + 4 + 1 + 8);
    byte[] bytes = one.toBytes();
    assertThat(bytes[0]).isEqualTo((byte) 'S');
    assertThat(SampleStore.fromBytes(bytes).toBytes()).isEqualTo(bytes);
    bytes[1] = 7;
    assertThatThrownBy(() -> SampleStore.fromBytes(bytes))
        .hasMessageStartingWith("Cannot read SampleStore: unknown format version 7");
  }
}
