package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;

class ClusterExtentTest {

  @Test
  void sizesEqualBreadthFirstLabelingOnRandomMaps() {
    SplittableRandom rng = new SplittableRandom(3);
    for (long seed = 0; seed < 500; seed++) {
      RandomMaps r = new RandomMaps(seed);
      double[] x = r.map();
      double finiteMax = Arrays.stream(x).filter(Double::isFinite).map(Math::abs).max().orElse(1);
      // a threshold equal to a value of the map (ties), or anywhere up to twice the largest
      double t = rng.nextDouble(0.01, 2) * Math.max(finiteMax, 1e-3);
      if (x.length > 0 && rng.nextBoolean()) {
        double tie = Math.abs(x[rng.nextInt(x.length)]);
        if (tie > 0 && Double.isFinite(tie)) {
          t = tie;
        }
      }
      for (Tail tail : Tail.values()) {
        ClusterExtent ce = new ClusterExtent(r.grid, t, tail);
        int[] expected = TfceReference.clusterSizes(r.ni, r.nj, r.nk, r.mask, x, tail, t);
        int[] got = ce.sizes(x);
        assertThat(got).as("seed %d %s %s t=%s", seed, r.kind, tail, t).isEqualTo(expected);
        int largest = Arrays.stream(expected).max().orElse(0);
        assertThat(ce.largest(x, 0)).isEqualTo(largest);
        assertThat(ce.sizes(x, 0, new int[x.length], 0)).isEqualTo(largest);
      }
    }
  }

  @Test
  void twoTailsNeverJoinAPositiveAndANegativeVoxel() {
    MaskGrid g = MaskGrid.full(1, 1, 4);
    double[] x = {3, -3, -3, 1};
    assertThat(new ClusterExtent(g, 2, Tail.TWO).sizes(x)).containsExactly(1, 2, 2, 0);
    assertThat(new ClusterExtent(g, 2, Tail.UPPER).sizes(x)).containsExactly(1, 0, 0, 0);
    assertThat(new ClusterExtent(g, 2, Tail.LOWER).sizes(x)).containsExactly(0, 2, 2, 0);
    assertThat(new ClusterExtent(g, 3, Tail.UPPER).sizes(x)).containsExactly(1, 0, 0, 0); // tie
  }

  @Test
  void largestPerRowGivesTheNullMaximaOfAWindow() {
    RandomMaps r = new RandomMaps(11);
    int n = r.grid.voxels();
    double[] maps = new double[2 + 3 * n];
    double[] expected = new double[3];
    ClusterExtent ce = new ClusterExtent(r.grid, 0.7, Tail.TWO);
    for (int row = 0; row < 3; row++) {
      double[] x = r.map();
      System.arraycopy(x, 0, maps, 2 + row * n, n);
      expected[row] = Arrays.stream(
          TfceReference.clusterSizes(r.ni, r.nj, r.nk, r.mask, x, Tail.TWO, 0.7)).max().orElse(0);
    }
    double[] out = new double[3];
    ce.largestPerRow(maps, 2, 3, out);
    assertThat(out).containsExactly(expected);
  }

  @Test
  void theNilearnRuleIsStrictAndItsMassIsTheExcessOverTheThreshold() {
    // nilearn's non_parametric_inference(threshold=): voxels with t > u (two-sided: t < -u as
    // separate clusters), size = voxel count, mass = Σ(|t| - u); brute force written here
    SplittableRandom rng = new SplittableRandom(5);
    for (long seed = 0; seed < 300; seed++) {
      RandomMaps r = new RandomMaps(seed);
      double[] x = r.map();
      double t = rng.nextDouble(0.05, 1.5);
      if (x.length > 0 && rng.nextBoolean()) {
        double tie = Math.abs(x[rng.nextInt(x.length)]);
        if (tie > 0 && Double.isFinite(tie)) {
          t = tie; // a voxel exactly at u is in no cluster
        }
      }
      int connectivity = rng.nextBoolean() ? 6 : 26;
      MaskGrid grid = r.grid.withConnectivity(connectivity);
      for (Tail tail : Tail.values()) {
        double[][] expected = nilearnClusters(r, x, tail, t, connectivity);
        ClusterExtent ce = new ClusterExtent(grid, t, tail, ClusterExtent.Rule.NILEARN);
        String as = String.format("seed %d %s %s t=%s c=%d", seed, r.kind, tail, t,
            connectivity);
        int[] sizes = ce.sizes(x);
        for (int v = 0; v < x.length; v++) {
          assertThat((double) sizes[v]).as(as).isEqualTo(expected[0][v]);
        }
        double[] masses = ce.masses(x);
        double largest = 0;
        for (int v = 0; v < x.length; v++) {
          // the engine keeps the sign of a negative cluster; nilearn's map is |mass|
          assertThat(Math.abs(masses[v])).as(as).isEqualTo(expected[1][v]);
          largest = Math.max(largest, expected[1][v]);
        }
        double[] rowMax = new double[1];
        ce.largestMassPerRow(x, 0, 1, rowMax);
        assertThat(rowMax[0]).as(as).isEqualTo(largest);
      }
    }
  }

  /** {size, mass} per voxel by nilearn's rule: breadth-first labels of |x| > t per side. */
  private static double[][] nilearnClusters(RandomMaps r, double[] x, Tail tail, double t,
      int connectivity) {
    int cells = r.ni * r.nj * r.nk;
    double[] size = new double[x.length];
    double[] mass = new double[x.length];
    for (double sign : tail == Tail.TWO ? new double[] {1, -1}
        : tail == Tail.UPPER ? new double[] {1} : new double[] {-1}) {
      boolean[] active = new boolean[cells];
      double[] full = new double[cells];
      for (int c = 0, v = 0; c < cells; c++) {
        if (r.mask[c]) {
          full[c] = sign * x[v++];
          active[c] = Double.isFinite(full[c]) && full[c] > t;
        }
      }
      int[][] labels = TfceReference.label(r.ni, r.nj, r.nk, active, connectivity);
      double[] excess = new double[cells + 1];
      for (int c = 0; c < cells; c++) {
        if (labels[0][c] > 0) {
          excess[labels[0][c]] += full[c] - t;
        }
      }
      for (int c = 0, v = 0; c < cells; c++) {
        if (r.mask[c]) {
          if (labels[0][c] > 0) {
            size[v] = labels[1][labels[0][c]];
            mass[v] = excess[labels[0][c]];
          }
          v++;
        }
      }
    }
    return new double[][] {size, mass};
  }

  @Test
  void refusesANonPositiveThreshold() {
    MaskGrid g = MaskGrid.full(1, 1, 2);
    assertThatThrownBy(() -> new ClusterExtent(g, 0, Tail.UPPER))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--cluster-threshold must be finite and > 0 (a height on the tail's side; for"
            + " --tail lower give the height of the negated map), but was: 0.0");
    assertThatThrownBy(() -> new ClusterExtent(g, Double.POSITIVE_INFINITY, Tail.TWO))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageEndingWith("but was: Infinity");
  }
}
