package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.job.Tail;
import org.nlspark.core.surface.Icosphere;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * {@link ZMaps#convert} (exact z only where the outcome could depend on it) gives TFCE scores,
 * cluster extents and masses bit for bit equal to those of {@link ZMaps#convertAll} (every value
 * converted), on smooth and null-like maps, t and r, every tail, small and large df, with NaN
 * vertices and ties at the maximum.
 */
class ZMapsTest {
  @Test
  void skippingConversionsChangesNoScoreNorCluster() {
    SurfaceMesh mesh = Icosphere.of(3, 50);
    MeshAdjacency graph = MeshAdjacency.of(mesh);
    int n = graph.voxels();
    SplittableRandom random = new SplittableRandom(46);
    int compared = 0;
    for (double df : new double[] {3, 11, 19, 200}) {
      for (boolean ofR : new boolean[] {false, true}) {
        for (Tail tail : Tail.values()) {
          Tfce tfce = new Tfce(graph, 1.0, 2.0, Tfce.DEFAULT_STEPS, true);
          double[] heights = {2.3, 3.1};
          ZMaps fast = new ZMaps(df, ofR, tail, tfce, heights);
          ZMaps plain = new ZMaps(df, ofR, tail, null, heights);
          for (int trial = 0; trial < 6; trial++) {
            double[] map = map(graph, random, trial, ofR);
            double[] a = map.clone();
            double[] b = map.clone();
            fast.convert(a, 0, n);
            plain.convertAll(b, 0, n);
            double[] ta = tfce.enhance(a, tail);
            double[] tb = tfce.enhance(b, tail);
            for (int v = 0; v < n; v++) {
              assertThat(Double.doubleToRawLongBits(ta[v]))
                  .as("df %s r %s %s trial %d vertex %d", df, ofR, tail, trial, v)
                  .isEqualTo(Double.doubleToRawLongBits(tb[v]));
            }
            for (double t : heights) {
              ClusterExtent clusters = new ClusterExtent(graph, t, tail);
              assertThat(clusters.extents(a)).containsExactly(clusters.extents(b));
              assertThat(clusters.masses(a)).containsExactly(clusters.masses(b));
            }
            compared++;
          }
          assertThat(fast.plainMaps).as("df %s r %s %s: maps converted value by value", df, ofR,
              tail).isZero();
        }
      }
    }
    assertThat(compared).isEqualTo(4 * 2 * 3 * 6);
  }

  /** Smooth fields with an effect, null-like noise, NaN vertices, a tie at the maximum. */
  private static double[] map(MeshAdjacency graph, SplittableRandom random, int trial,
      boolean ofR) {
    int n = graph.voxels();
    double[] x = Icosphere.smooth(graph, random, trial % 3);
    double scale = trial < 3 ? 2.5 : 4;
    for (int v = 0; v < n; v++) {
      x[v] = ofR ? Math.tanh(0.5 * x[v] * scale / 2) : x[v] * scale;
    }
    if (trial == 4) {
      x[7] = Double.NaN;
      x[100] = Double.NaN;
    }
    if (trial == 5) {
      int top = 0;
      for (int v = 1; v < n; v++) {
        top = Math.abs(x[v]) > Math.abs(x[top]) ? v : top;
      }
      x[(top + 1) % n] = x[top]; // a tie at the maximum
    }
    return x;
  }
}
