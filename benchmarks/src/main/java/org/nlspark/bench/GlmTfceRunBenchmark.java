package org.nlspark.bench;

import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.glm.GlmWholeMapAnalysis;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.MaskGrid;

/**
 * A whole {@code glm --tfce} run end to end (report only; nothing asserts on time): the subjects
 * and mask of {@link TfceRunBenchmark} (about 230,000 voxels on a 2 mm MNI-sized grid), a design
 * of an intercept, a group and an age covariate, two t contrasts (group, age), P row
 * permutations with Freedman–Lane, two-tailed, TFCE of every contrast's every replicate map,
 * FWER by each map's largest score. Runs GlmWholeMapAnalysis on core's LocalEngine with THREADS
 * threads (the same tiles a Spark executor runs) and prints one JSON line: wall and CPU seconds,
 * TFCE maps and ms per map (wall and thread CPU) per contrast.
 *
 * <p>{@code java -Xmx8g -cp core/target/classes:benchmarks/target/classes:$(cat
 * benchmarks/target/classpath.txt) org.nlspark.bench.GlmTfceRunBenchmark [SUBJECTS] [P]
 * [THREADS] [BUDGET_GB]}
 */
public final class GlmTfceRunBenchmark {
  private GlmTfceRunBenchmark() {}

  public static void main(String[] args) {
    int subjects = args.length > 0 ? Integer.parseInt(args[0]) : 100;
    long permutations = args.length > 1 ? Long.parseLong(args[1]) : 1000;
    int threads = args.length > 2 ? Integer.parseInt(args[2])
        : Runtime.getRuntime().availableProcessors();
    double budgetGb = args.length > 3 ? Double.parseDouble(args[3]) : 3.0;

    long t0 = System.nanoTime();
    MaskGrid grid = TfceRunBenchmark.mask();
    int voxels = grid.voxels();
    double[] y = TfceRunBenchmark.data(grid, subjects);
    SplittableRandom rng = new SplittableRandom(7);
    double[][] m = new double[subjects][];
    for (int i = 0; i < subjects; i++) {
      m[i] = new double[] {1.0, i % 2, rng.nextGaussian()};
    }
    double setupSeconds = (System.nanoTime() - t0) / 1e9;

    GlmRun.Options o = GlmRun.Options.defaults(permutations, 1).withTail(Tail.TWO);
    GlmWholeMapAnalysis analysis = GlmAnalysis.prepare(DataMatrix.of(subjects, voxels, y,
        "synthetic"), new GlmDesign(m, new String[] {"intercept", "group", "age"}, "benchmark"),
        GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, null), o, "cpu", budgetGb)
        .withWholeMaps(grid, true, null);
    long cpuBefore = TfceRunBenchmark.processCpuNanos();
    RunReport report = new LocalEngine(threads, o.grid(), null).run(analysis);
    long cpuAfter = TfceRunBenchmark.processCpuNanos();
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> facts = (Map<String, Map<String, Object>>) report.result
        .facts().get("whole_map_inference");
    StringBuilder perContrast = new StringBuilder();
    for (Map.Entry<String, Map<String, Object>> e : facts.entrySet()) {
      Map<String, Object> f = e.getValue();
      perContrast.append(perContrast.length() == 0 ? "" : ", ").append(String.format(Locale.ROOT,
          "\"%s\": {\"tfce_maps\": %s, \"tfce_seconds\": %.2f, \"tfce_ms_per_map\": %.2f,"
              + " \"tfce_cpu_ms_per_map\": %.2f, \"p_fwer_tfce_below_0_05\": %s}", e.getKey(),
          f.get("tfce_maps"), ((Number) f.get("tfce_seconds")).doubleValue(),
          ((Number) f.get("tfce_ms_per_map")).doubleValue(),
          ((Number) f.get("tfce_cpu_ms_per_map")).doubleValue(),
          f.get("p_fwer_tfce_below_0_05")));
    }
    System.out.printf(Locale.ROOT, "{\"voxels\": %d, \"subjects\": %d, \"permutations\": %d,"
            + " \"contrasts\": 2, \"threads\": %d, \"data_seconds\": %.2f, \"wall_seconds\": %.2f,"
            + " \"compute_seconds\": %.2f, \"merge_seconds\": %.3f, \"tile_seconds\": %.2f,"
            + " \"run_cpu_seconds\": %.2f, \"tiles\": %d, \"windows_per_tile\": %d,"
            + " \"contrast\": {%s}}%n",
        voxels, subjects, permutations, threads, setupSeconds, report.wallSeconds(),
        report.computeSeconds, report.mergeSeconds, report.kernelSeconds,
        (cpuAfter - cpuBefore) / 1e9, report.plan.tileCount(), report.plan.windowsPerTile(),
        perContrast);
  }
}
