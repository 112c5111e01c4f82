package org.nlspark.core.io.nifti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class NiftiMaskTest {
  private static NiftiHeader geometry(int nx, int ny, int nz) {
    return NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(nx, ny, nz).build();
  }

  @Test
  void voxelOrderIsCOrderOverIjkWithKFastest() {
    // A 2 × 3 × 2 grid; the file stores i fastest: f = i + 2·(j + 3·k).
    int nx = 2;
    int ny = 3;
    int nz = 2;
    double[] values = new double[12];
    int[][] selected = {{1, 2, 1}, {0, 0, 1}, {1, 0, 0}, {0, 2, 0}, {0, 0, 0}};
    for (int[] v : selected) {
      values[v[0] + nx * (v[1] + ny * v[2])] = 7;
    }
    NiftiMask mask = NiftiMask.fromImage(geometry(nx, ny, nz), values, "m.nii");
    // By hand: sort (i, j, k) lexicographically, as numpy's data[mask] walks C order.
    int[][] expected = {{0, 0, 0}, {0, 0, 1}, {0, 2, 0}, {1, 0, 0}, {1, 2, 1}};
    assertThat(mask.count()).isEqualTo(5);
    for (int n = 0; n < 5; n++) {
      assertThat(mask.ijk(n)).as("voxel " + n).containsExactly(expected[n]);
      int[] e = expected[n];
      assertThat(mask.fileIndex(n)).isEqualTo(e[0] + nx * (e[1] + ny * e[2]));
    }
  }

  @Test
  void extractAndToVolumeAreInverseOnTheMask() {
    SplittableRandom r = new SplittableRandom(5);
    int nx = 5;
    int ny = 4;
    int nz = 3;
    double[] m = new double[60];
    for (int f = 0; f < 60; f++) {
      m[f] = r.nextInt(3) == 0 ? 0 : r.nextInt(1, 4) * (r.nextBoolean() ? 1 : -1);
    }
    NiftiMask mask = NiftiMask.fromImage(geometry(nx, ny, nz), m, "m.nii");
    float[] volume = new float[60];
    for (int f = 0; f < 60; f++) {
      volume[f] = f;
    }
    float[] masked = new float[mask.count() + 2];
    mask.extract(volume, masked, 2);
    // Brute force: walk i, j, k with k innermost.
    List<Float> expected = new ArrayList<>();
    for (int i = 0; i < nx; i++) {
      for (int j = 0; j < ny; j++) {
        for (int k = 0; k < nz; k++) {
          int f = i + nx * (j + ny * k);
          if (m[f] != 0) {
            expected.add((float) f);
          }
        }
      }
    }
    for (int n = 0; n < expected.size(); n++) {
      assertThat(masked[2 + n]).isEqualTo(expected.get(n));
    }
    float[] back = mask.toVolume(java.util.Arrays.copyOfRange(masked, 2, masked.length), -1f);
    for (int f = 0; f < 60; f++) {
      assertThat(back[f]).isEqualTo(m[f] != 0 ? f : -1f);
    }
    byte[] sel = mask.toSelectionVolume();
    for (int f = 0; f < 60; f++) {
      assertThat(sel[f]).isEqualTo((byte) (m[f] != 0 ? 1 : 0));
    }
  }

  @Test
  void nanInTheMaskIsRefusedWithItsVoxel() {
    double[] values = new double[8];
    values[1 + 2 * (0 + 2 * 1)] = Double.NaN; // (1, 0, 1)
    assertThatThrownBy(() -> NiftiMask.fromImage(geometry(2, 2, 2), values, "nanmask.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot use nanmask.nii as a mask: voxel (1,0,1) is NaN");
  }

  @Test
  void emptyAnd4dMasksAreRefused() {
    assertThatThrownBy(() -> NiftiMask.fromImage(geometry(2, 2, 2), new double[8], "zero.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("zero.nii as a mask: it selects no voxel (all 8 are zero)");
    NiftiHeader four = NiftiHeader.builder().shape(2, 2, 2, 3).build();
    assertThatThrownBy(() -> NiftiMask.fromImage(four, new double[24], "four.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("four.nii as a mask: a mask must be 3-D, but its dims are (2,2,2,3)");
  }

  @Test
  void defaultMaskIsFiniteEverywhereAndNonZeroSomewhereInAnyMergeOrder() {
    SplittableRandom r = new SplittableRandom(11);
    int voxels = 4 * 5 * 7; // 140: more than two 64-bit words
    int samples = 9;
    float[][] volumes = new float[samples][voxels];
    for (float[] v : volumes) {
      for (int f = 0; f < voxels; f++) {
        int c = r.nextInt(20);
        v[f] = c < 12 ? 0f : c == 12 ? Float.NaN : c == 13 ? Float.NEGATIVE_INFINITY
            : (float) r.nextGaussian();
      }
    }
    // Brute force of the rule.
    boolean[] expected = new boolean[voxels];
    for (int f = 0; f < voxels; f++) {
      boolean finite = true;
      boolean nonZero = false;
      for (float[] v : volumes) {
        finite &= Float.isFinite(v[f]);
        nonZero |= v[f] != 0;
      }
      expected[f] = finite && nonZero;
    }
    NiftiHeader g = geometry(4, 5, 7);
    NiftiMask reference = NiftiMask.fromSelection(g, expected, "expected");
    DefaultMaskBuilder all = new DefaultMaskBuilder(voxels);
    for (float[] v : volumes) {
      all.add(v);
    }
    assertSameMask(all.build(g), reference);
    // Split into three parts, one fed in float64, merged in both directions.
    DefaultMaskBuilder a = new DefaultMaskBuilder(voxels);
    DefaultMaskBuilder b = new DefaultMaskBuilder(voxels);
    DefaultMaskBuilder c = new DefaultMaskBuilder(voxels);
    for (int s = 0; s < samples; s++) {
      DefaultMaskBuilder target = s % 3 == 0 ? a : s % 3 == 1 ? b : c;
      double[] wide = new double[voxels];
      for (int f = 0; f < voxels; f++) {
        wide[f] = volumes[s][f];
      }
      target.add(wide);
    }
    DefaultMaskBuilder cba = new DefaultMaskBuilder(voxels).merge(c).merge(b).merge(a);
    assertThat(cba.samples()).isEqualTo(samples);
    assertSameMask(cba.build(g), reference);
    assertSameMask(a.merge(b.merge(c)).build(g), reference);
  }

  @Test
  void defaultMaskWithNoQualifyingVoxelIsRefused() {
    DefaultMaskBuilder b = new DefaultMaskBuilder(8);
    b.add(new float[8]);
    assertThatThrownBy(() -> b.build(geometry(2, 2, 2)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot compute the default mask: no voxel is finite in all 1"
            + " samples and non-zero in at least one");
  }

  private static void assertSameMask(NiftiMask actual, NiftiMask expected) {
    assertThat(actual.count()).isEqualTo(expected.count());
    for (int n = 0; n < expected.count(); n++) {
      assertThat(actual.fileIndex(n)).isEqualTo(expected.fileIndex(n));
    }
  }
}
