package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.job.Tail;

class TfceNullFolderTest {

  @Test
  void foldsMaximaAndExceedancesAsABruteForceDoes() {
    for (long seed = 0; seed < 60; seed++) {
      RandomMaps r = new RandomMaps(seed);
      int n = r.grid.voxels();
      int rows = 5;
      for (Tail tail : Tail.values()) {
        double[] observedStat = r.map();
        // Counts compare scores of the fast TFCE (tested against the definition elsewhere), so
        // that ties between maps are ties on both sides; maxima compare with the definition.
        Tfce tfce = new Tfce(r.grid);
        double[] observed = tfce.enhance(observedStat, tail);
        double[] maps = new double[rows * n];
        double[] expectedMax = new double[rows];
        long[] expectedCounts = new long[n];
        for (int row = 0; row < rows; row++) {
          double[] x = r.map();
          System.arraycopy(x, 0, maps, row * n, n);
          double[] t = TfceReference.tfce(r.ni, r.nj, r.nk, r.mask, x, tail, 0.5, 2, 100);
          double[] fast = new Tfce(r.grid).enhance(x, tail);
          double m = Double.NEGATIVE_INFINITY;
          for (int v = 0; v < n; v++) {
            double key = tail.key(t[v]);
            if (key > m) {
              m = key;
            }
            if (tail.key(fast[v]) >= tail.key(observed[v])) {
              expectedCounts[v]++;
            }
          }
          expectedMax[row] = m;
        }
        TfceNullFolder folder = new TfceNullFolder(tfce, tail, tfce.enhance(observedStat, tail));
        NullMaxAccumulator nullMax = new NullMaxAccumulator(100, rows);
        ExceedanceCounter exceedance = new ExceedanceCounter(n);
        folder.fold(maps, 0, 2, 100, nullMax, exceedance);
        folder.fold(maps, 2 * n, rows - 2, 102, nullMax, exceedance);
        assertThat(exceedance.n()).isEqualTo(rows);
        double[] maxima = nullMax.maxima();
        for (int row = 0; row < rows; row++) {
          if (expectedMax[row] == Double.NEGATIVE_INFINITY || expectedMax[row] == 0) {
            assertThat(maxima[row]).isEqualTo(expectedMax[row]);
          } else {
            assertThat(Math.abs(maxima[row] - expectedMax[row]))
                .isLessThanOrEqualTo(1e-12 * expectedMax[row]);
          }
        }
        long[] counts = exceedance.counts();
        for (int v = 0; v < n; v++) {
          assertThat(counts[v]).as("seed %d %s voxel %d", seed, tail, v)
              .isEqualTo(expectedCounts[v]);
        }
      }
    }
  }

  @Test
  void theObservedMapCountsAsAtLeastAsExtremeAsItself() {
    RandomMaps r = new RandomMaps(5);
    Tfce tfce = new Tfce(r.grid);
    double[] x = r.map();
    double[] observed = tfce.enhance(x, Tail.LOWER);
    TfceNullFolder folder = new TfceNullFolder(tfce, Tail.LOWER, observed);
    ExceedanceCounter exceedance = new ExceedanceCounter(x.length);
    folder.fold(x, 0, 1, 0, new NullMaxAccumulator(0, 1), exceedance);
    long[] counts = exceedance.counts();
    for (int v = 0; v < x.length; v++) {
      assertThat(counts[v]).isEqualTo(Double.isNaN(observed[v]) ? 0 : 1);
    }
    assertThat(TfceNullFolder.keys(new double[] {-3, 2, Double.NaN}, Tail.LOWER))
        .containsExactly(3, -2, Double.NaN);
  }

  @Test
  void refusesAnObservedMapOfAnotherLength() {
    Tfce tfce = new Tfce(MaskGrid.full(2, 2, 2));
    assertThatThrownBy(() -> new TfceNullFolder(tfce, Tail.TWO, new double[7]))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot fold TFCE replicates: the observed TFCE map has 7 values, but the"
            + " mask has 8 voxels");
  }
}
