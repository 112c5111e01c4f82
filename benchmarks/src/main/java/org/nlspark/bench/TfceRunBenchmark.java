package org.nlspark.bench;

import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tile.Grid;

/**
 * A whole one-sample TFCE run end to end (report only; nothing asserts on time): SUBJECTS
 * synthetic subjects on a 2 mm MNI-sized grid (91 x 109 x 91) inside the ellipsoid mask of {@code
 * it/bench_tfce.py} (about 230,000 voxels), each smoothed noise plus a positive and a negative
 * blob; P sign flips of the t statistic, TFCE of every replicate's whole map, FWER by the maximum
 * TFCE score. Runs the TfceAnalysis on core's LocalEngine with THREADS threads (the same tiles a
 * Spark executor runs) and prints one JSON line: voxels, permutations, wall and compute seconds,
 * GEMM seconds, TFCE seconds and ms per map (summed over threads), voxels found.
 *
 * <p>{@code java -Xmx8g -cp core/target/classes:benchmarks/target/classes:$(cat
 * benchmarks/target/classpath.txt) org.nlspark.bench.TfceRunBenchmark [SUBJECTS] [P] [THREADS]
 * [BUDGET_GB]}
 */
public final class TfceRunBenchmark {
  static final int NI = 91;
  static final int NJ = 109;
  static final int NK = 91;

  public static void main(String[] args) {
    int subjects = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    long permutations = args.length > 1 ? Long.parseLong(args[1]) : 5000;
    int threads = args.length > 2 ? Integer.parseInt(args[2])
        : Runtime.getRuntime().availableProcessors();
    double budgetGb = args.length > 3 ? Double.parseDouble(args[3]) : 3.0;

    long t0 = System.nanoTime();
    MaskGrid grid = mask();
    int voxels = grid.voxels();
    double[] x = data(grid, subjects);
    double setupSeconds = (System.nanoTime() - t0) / 1e9;

    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(permutations)
        .seed(1).tail(Tail.TWO).backend("cpu").memoryBudgetGb(budgetGb).build();
    JobInputs inputs = JobInputs.of(DataMatrix.of(subjects, voxels, x, "synthetic"));
    TfceAnalysis analysis = TfceAnalysis.prepare(spec, inputs, threads, Grid.DEFAULT, grid,
        WholeMapSettings.of(true, null));
    long cpuBefore = processCpuNanos();
    RunReport report = new LocalEngine(threads, Grid.DEFAULT, null).run(analysis);
    long cpuAfter = processCpuNanos();
    @SuppressWarnings("unchecked")
    Map<String, Object> facts = (Map<String, Object>) report.result.facts()
        .get("whole_map_inference");
    System.out.printf(Locale.ROOT, "{\"voxels\": %d, \"subjects\": %d, \"permutations\": %d,"
            + " \"threads\": %d, \"data_seconds\": %.2f, \"wall_seconds\": %.2f,"
            + " \"compute_seconds\": %.2f, \"merge_seconds\": %.3f, \"tile_cpu_seconds\": %.2f,"
            + " \"tfce_seconds\": %.2f, \"tfce_maps\": %s, \"tfce_ms_per_map\": %.2f,"
            + " \"tfce_cpu_ms_per_map\": %.2f, \"run_cpu_seconds\": %.2f,"
            + " \"tiles\": %d, \"windows_per_tile\": %d, \"p_fwer_tfce_below_0_05\": %s}%n",
        voxels, subjects, permutations, threads, setupSeconds, report.wallSeconds(),
        report.computeSeconds, report.mergeSeconds, report.kernelSeconds,
        ((Number) facts.get("tfce_seconds")).doubleValue(), facts.get("tfce_maps"),
        ((Number) facts.get("tfce_ms_per_map")).doubleValue(),
        ((Number) facts.get("tfce_cpu_ms_per_map")).doubleValue(), (cpuAfter - cpuBefore) / 1e9,
        report.plan.tileCount(),
        report.plan.windowsPerTile(), facts.get("p_fwer_tfce_below_0_05"));
  }

  /** The ellipsoid mask of {@code it/bench_tfce.py} on the 2 mm MNI-sized grid. */
  static MaskGrid mask() {
    boolean[] mask = new boolean[NI * NJ * NK];
    for (int i = 0; i < NI; i++) {
      for (int j = 0; j < NJ; j++) {
        for (int k = 0; k < NK; k++) {
          double a = (i - 45.0) / 36.0;
          double b = (j - 54.0) / 45.0;
          double c = (k - 40.0) / 34.0;
          mask[(i * NJ + j) * NK + k] = a * a + b * b + c * c <= 1.0;
        }
      }
    }
    return MaskGrid.of(NI, NJ, NK, mask);
  }

  /** Subjects x mask voxels: smoothed noise plus a positive and a negative blob. */
  static double[] data(MaskGrid grid, int subjects) {
    int voxels = grid.voxels();
    double[] x = new double[subjects * voxels];
    double[] volume = new double[NI * NJ * NK];
    double[] scratch = new double[volume.length];
    for (int s = 0; s < subjects; s++) {
      SplittableRandom rng = new SplittableRandom(1000 + s);
      for (int c = 0; c < volume.length; c++) {
        volume[c] = rng.nextDouble() - 0.5;
      }
      smooth(volume, scratch);
      for (int v = 0; v < voxels; v++) {
        int c = grid.cellOf(v);
        int i = c / (NJ * NK);
        int j = (c / NK) % NJ;
        int k = c % NK;
        x[s * voxels + v] = 8 * volume[c] + 0.35 * blob(i, j, k, 30, 40, 40, 5)
            - 0.3 * blob(i, j, k, 60, 70, 35, 4);
      }
    }
    return x;
  }

  /** CPU time of this process (ns): on a shared machine, what the run itself used. */
  static long processCpuNanos() {
    java.lang.management.OperatingSystemMXBean os =
        java.lang.management.ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.OperatingSystemMXBean
        ? ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime() : 0;
  }

  private static double blob(int i, int j, int k, double a, double b, double c, double r) {
    double d = (i - a) * (i - a) + (j - b) * (j - b) + (k - c) * (k - c);
    return Math.exp(-d / (2 * r * r));
  }

  /** Two passes of a 3-wide box filter along each axis (smooth noise, clusters of a few mm). */
  private static void smooth(double[] v, double[] tmp) {
    int[] strides = {NJ * NK, NK, 1};
    int[] dims = {NI, NJ, NK};
    for (int pass = 0; pass < 2; pass++) {
      for (int axis = 0; axis < 3; axis++) {
        int stride = strides[axis];
        int n = dims[axis];
        for (int c = 0; c < v.length; c++) {
          int pos = (c / stride) % n;
          double sum = v[c];
          int count = 1;
          if (pos > 0) {
            sum += v[c - stride];
            count++;
          }
          if (pos + 1 < n) {
            sum += v[c + stride];
            count++;
          }
          tmp[c] = sum / count;
        }
        System.arraycopy(tmp, 0, v, 0, v.length);
      }
    }
  }
}
