package org.nlspark.bench;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import java.util.SplittableRandom;
import org.nlspark.core.io.surface.FreeSurfer;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.ZScores;
import org.nlspark.core.tfce.MeshAdjacency;
import org.nlspark.core.surface.SurfaceMesh;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.Tfce;

/**
 * The per-map cost of surface TFCE (report only; nothing asserts on time): on a mesh (a GIFTI
 * {@code .surf.gii} or a FreeSurfer surface, e.g. fsaverage5's 10,242 vertices), a smooth random
 * t map of {@code df} degrees of freedom is converted to z on the upper tail's side (PALM's TFCE
 * input; a run converts that side only) and enhanced with
 * E = 1, H = 2 and dh multiplied in, {@code repeats} times after a warm-up; beside it the
 * volumetric TFCE (E = 0.5, H = 2, 6 neighbours) of a map of about as many voxels on a cube.
 * Prints one JSON line: vertices, t_to_z_every_vertex_ms, surface_tfce_ms, voxels,
 * volume_tfce_ms (medians, one thread: one map per thread is how replicates run). A run converts
 * far fewer values (the replicate maps only near TFCE's heights, {@code tfce/ZMaps}); its own
 * time per map is {@code summary.json}'s {@code result.whole_map_inference.tfce_ms_per_map}.
 *
 * <p>Run by {@code it/bench-surface-tfce.sh}; directly: {@code java -cp ...
 * org.nlspark.bench.SurfaceTfceBenchmark MESH [DF] [REPEATS]}.
 */
public final class SurfaceTfceBenchmark {
  private static final int WARM_UP = 30;

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: SurfaceTfceBenchmark MESH [DF] [REPEATS]");
      System.exit(2);
    }
    Path meshPath = Path.of(args[0]);
    double df = args.length > 1 ? Double.parseDouble(args[1]) : 19;
    int repeats = args.length > 2 ? Integer.parseInt(args[2]) : 100;
    SurfaceMesh mesh;
    try (InputStream in = Files.newInputStream(meshPath)) {
      mesh = Gifti.isGiftiName(meshPath.toString()) ? Gifti.readMesh(in, meshPath.toString())
          : FreeSurfer.readSurface(in, meshPath.toString());
    }
    MeshAdjacency graph = MeshAdjacency.of(mesh);
    int n = graph.voxels();
    double[] t = smooth(n, graph, new SplittableRandom(7));
    double[] z = new double[n];
    double[] out = new double[n];
    Tfce surface = new Tfce(graph, 1.0, 2.0, Tfce.DEFAULT_STEPS, true);
    double[] zMs = new double[repeats];
    double[] tfceMs = new double[repeats];
    for (int i = -WARM_UP; i < repeats; i++) {
      long s = System.nanoTime();
      for (int v = 0; v < n; v++) {
        z[v] = t[v] <= 0 ? t[v] : ZScores.ofT(t[v], df); // the upper tail, as a run converts
      }
      long m = System.nanoTime();
      surface.enhance(z, 0, Tail.UPPER, out, 0);
      long e = System.nanoTime();
      if (i >= 0) {
        zMs[i] = (m - s) / 1e6;
        tfceMs[i] = (e - m) / 1e6;
      }
    }
    int side = (int) Math.round(Math.cbrt(n));
    MaskGrid grid = MaskGrid.full(side, side, side);
    double[] volumeMap = new double[grid.voxels()];
    SplittableRandom random = new SplittableRandom(8);
    for (int v = 0; v < volumeMap.length; v++) {
      volumeMap[v] = random.nextGaussian() + 1;
    }
    Tfce volume = new Tfce(grid);
    double[] volumeOut = new double[grid.voxels()];
    double[] volumeMs = new double[repeats];
    for (int i = -WARM_UP; i < repeats; i++) {
      long s = System.nanoTime();
      volume.enhance(volumeMap, 0, Tail.UPPER, volumeOut, 0);
      if (i >= 0) {
        volumeMs[i] = (System.nanoTime() - s) / 1e6;
      }
    }
    System.out.printf(Locale.ROOT, "{\"vertices\": %d, \"t_to_z_every_vertex_ms\": %.3f,"
        + " \"surface_tfce_ms\": %.3f, \"voxels\": %d, \"volume_tfce_ms\": %.3f,"
        + " \"repeats\": %d}%n", n, median(zMs), median(tfceMs), grid.voxels(),
        median(volumeMs), repeats);
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  /** Noise averaged with its neighbours three times, scaled to t-like values. */
  private static double[] smooth(int n, MeshAdjacency graph, SplittableRandom random) {
    double[] x = new double[n];
    for (int v = 0; v < n; v++) {
      x[v] = random.nextGaussian();
    }
    for (int pass = 0; pass < 3; pass++) {
      double[] y = new double[n];
      for (int v = 0; v < n; v++) {
        double s = x[v];
        int[] nb = graph.neighboursOf(v);
        for (int u : nb) {
          s += x[u];
        }
        y[v] = s / (nb.length + 1);
      }
      x = y;
    }
    for (int v = 0; v < n; v++) {
      x[v] *= 3;
    }
    return x;
  }
}
