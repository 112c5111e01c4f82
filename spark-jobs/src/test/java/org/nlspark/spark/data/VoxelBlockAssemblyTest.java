package org.nlspark.spark.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** A block assembled from its shuffle slices is the same whatever order they arrive in. */
class VoxelBlockAssemblyTest {
  private static final int V = 11; // voxels per sample
  private static final int FROM = 3;
  private static final int WIDTH = 5;

  @Test
  void anyOrderGivesTheSameFloat32Block() {
    float[] all = values(9);
    List<byte[]> slices = List.of(Slice.of(0, 0, 4, part(all, 0, 4), V, FROM, WIDTH),
        Slice.of(0, 4, 2, part(all, 4, 2), V, FROM, WIDTH),
        Slice.of(0, 6, 3, part(all, 6, 3), V, FROM, WIDTH));
    float[] expected = new float[9 * WIDTH];
    for (int r = 0; r < 9; r++) {
      System.arraycopy(all, r * V + FROM, expected, r * WIDTH, WIDTH);
    }
    for (long seed = 0; seed < 6; seed++) {
      List<byte[]> order = new ArrayList<>(slices);
      Collections.shuffle(order, new Random(seed));
      VoxelBlock b = assemble(new int[] {9}, order);
      assertThat(b.d).isNull();
      assertThat(b.f[0]).containsExactly(expected);
    }
  }

  @Test
  void aFloat64SliceWidensTheBlockWhateverItsPlace() {
    float[] f = values(5);
    double[] d = new double[2 * V];
    for (int i = 0; i < d.length; i++) {
      d[i] = Math.PI * i + 1e-12;
    }
    byte[] narrow = Slice.of(0, 0, 3, part(f, 0, 3), V, FROM, WIDTH);
    byte[] wide = Slice.of(0, 3, 2, d, V, FROM, WIDTH);
    double[] expected = new double[5 * WIDTH];
    for (int r = 0; r < 3; r++) {
      for (int c = 0; c < WIDTH; c++) {
        expected[r * WIDTH + c] = f[r * V + FROM + c];
      }
    }
    for (int r = 0; r < 2; r++) {
      System.arraycopy(d, r * V + FROM, expected, (3 + r) * WIDTH, WIDTH);
    }
    VoxelBlock a = assemble(new int[] {5}, List.of(narrow, wide));
    VoxelBlock b = assemble(new int[] {5}, List.of(wide, narrow));
    assertThat(a.f).isNull();
    assertThat(a.d[0]).containsExactly(expected);
    assertThat(b.d[0]).containsExactly(expected);
  }

  @Test
  void twoGroupsFillTheirOwnArrays() {
    float[] x = values(2);
    float[] y = values(3);
    VoxelBlock b = assemble(new int[] {2, 3}, List.of(Slice.of(1, 0, 3, y, V, FROM, WIDTH),
        Slice.of(0, 0, 2, x, V, FROM, WIDTH)));
    assertThat(b.f[0]).hasSize(2 * WIDTH).startsWith(x[FROM], x[FROM + 1]);
    assertThat(b.f[1]).hasSize(3 * WIDTH).startsWith(y[FROM], y[FROM + 1]);
  }

  @Test
  void aMissingSampleIsABug() {
    VoxelBlock.Assembly a = new VoxelBlock.Assembly(7, FROM, WIDTH, new int[] {4});
    a.add(Slice.of(0, 0, 3, values(3), V, FROM, WIDTH));
    assertThatThrownBy(a::build).isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] voxel block 7 of group 0 got 3 samples, expected 4");
  }

  @Test
  void anUnknownLayoutIsRefused() {
    byte[] s = Slice.of(0, 0, 1, values(1), V, FROM, WIDTH);
    s[0] = 9;
    VoxelBlock.Assembly a = new VoxelBlock.Assembly(0, FROM, WIDTH, new int[] {1});
    assertThatThrownBy(() -> a.add(s)).isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[BUG] voxel block slice of unknown layout: version 9");
  }

  private static VoxelBlock assemble(int[] rows, List<byte[]> slices) {
    VoxelBlock.Assembly a = new VoxelBlock.Assembly(0, FROM, WIDTH, rows);
    slices.forEach(a::add);
    return a.build();
  }

  private static float[] values(int samples) {
    float[] v = new float[samples * V];
    for (int i = 0; i < v.length; i++) {
      v[i] = (float) Math.sin(i) * 1000f;
    }
    return v;
  }

  private static float[] part(float[] all, int first, int count) {
    float[] out = new float[count * V];
    System.arraycopy(all, first * V, out, 0, out.length);
    return out;
  }
}
