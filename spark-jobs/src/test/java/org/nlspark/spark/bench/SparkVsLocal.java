package org.nlspark.spark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.SplittableRandom;
import java.util.stream.Stream;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.Main;

/**
 * Spark overhead check: {@code one-sample --stat t} with n = 30, V = 50,000, P = 5,000 through the
 * CLI on {@code local[2]} versus core's LocalEngine with 2 threads on the same data (goal: Spark
 * under 3x). Prints times; asserts nothing (DESIGN §7: shared machines are noisy, compare the
 * ratio within one run). Run:
 * {@code NLSPARK_MAIN=org.nlspark.spark.bench.SparkVsLocal bin/nlspark [n V P]}.
 */
public final class SparkVsLocal {
  private SparkVsLocal() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 30;
    int v = args.length > 1 ? Integer.parseInt(args[1]) : 50_000;
    long p = args.length > 2 ? Long.parseLong(args[2]) : 5_000;
    Path dir = Files.createTempDirectory("nlspark-bench");
    try {
      SplittableRandom r = new SplittableRandom(42);
      double[] x = new double[n * v];
      for (int i = 0; i < x.length; i++) {
        x[i] = r.nextGaussian() + ((i % v) % 100 == 0 ? 0.8 : 0);
      }
      Path input = dir.resolve("x.npy");
      NpyWriter.writeFloat64(input, new long[] {n, v}, x);
      JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(p).seed(1)
          .build();
      JobInputs inputs = JobInputs.of(DataMatrix.of(n, v, x, "x"));
      LocalEngine local = new LocalEngine(2, Grid.DEFAULT, null);
      local.run(spec, inputs); // warm-up (JIT, BLAS load)
      long t0 = System.nanoTime();
      RunReport localReport = local.run(spec, inputs);
      double localSeconds = (System.nanoTime() - t0) / 1e9;

      String[] cli = {"one-sample", "--input", input.toString(), "--stat", "t", "--permutations",
          Long.toString(p), "--seed", "1", "--master", "local[2]", "--quiet", "--overwrite",
          "--output", dir.resolve("out").toString()};
      long t1 = System.nanoTime();
      int cold = Main.run(cli);
      double coldSeconds = (System.nanoTime() - t1) / 1e9;

      SparkSession spark = SparkSession.builder().master("local[2]").appName("bench")
          .config("spark.ui.enabled", "false").config("spark.driver.host", "127.0.0.1")
          .getOrCreate();
      Main.run(cli); // warm-up on a live session
      long t2 = System.nanoTime();
      int warm = Main.run(cli);
      double warmSeconds = (System.nanoTime() - t2) / 1e9;
      spark.stop();

      System.out.printf("one-sample --stat t, n=%d V=%d P=%d%n", n, v, p);
      System.out.printf("LocalEngine, 2 threads (warm)          %8.2f s  kernel %.2f s (CPU)"
          + "  %.2f GFLOP/s%n", localSeconds, localReport.kernelSeconds, localReport.gflops());
      System.out.printf("CLI on local[2], incl. Spark startup    %8.2f s  (exit %d)  ratio %.2f%n",
          coldSeconds, cold, coldSeconds / localSeconds);
      System.out.printf("CLI on a live local[2] session          %8.2f s  (exit %d)  ratio %.2f%n",
          warmSeconds, warm, warmSeconds / localSeconds);
    } finally {
      try (Stream<Path> s = Files.walk(dir)) {
        s.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
      }
    }
  }
}
