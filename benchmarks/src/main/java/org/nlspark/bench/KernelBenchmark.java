package org.nlspark.bench;

import dev.ludovic.netlib.blas.BLAS;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.tile.Grid;

/**
 * Kernel benchmark (report only; nothing asserts on time). In one run it measures this machine's
 * DGEMM and SGEMM rate with the same BLAS the kernels use, then times the workloads of the core
 * issue and prints one JSON object per workload, last:
 * {@code workload, precision, seconds, gflops, peak_gflops, ratio, peak_heap_mb}.
 *
 * <p>Work is counted as GEMM flops, 2 * n * V * R (R = permutations or bootstrap samples); the
 * peak is the best of (a) one multi-threaded square GEMM and (b) one single-threaded square GEMM
 * per core run concurrently — the way tiles run. Run: {@code bin/bench-kernels [--quick]}.
 */
public final class KernelBenchmark {
  private static final int SQUARE = 1536;

  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    String only = "abc";
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals("--only")) {
        only = args[i + 1];
      }
    }
    int cores = Runtime.getRuntime().availableProcessors();
    System.out.println("BLAS: " + Blas.describe() + "; cores: " + cores);
    double peak64 = peak(Precision.FLOAT64, cores);
    double peak32 = peak(Precision.FLOAT32, cores);
    System.out.printf("peak DGEMM %.1f GFLOP/s, SGEMM %.1f GFLOP/s%n", peak64, peak32);

    int scale = quick ? 10 : 1;
    // Warm-up (not reported): lets the JIT compile the kernels before anything is timed.
    for (Precision p : Precision.values()) {
      oneSample("warm-up", 30, 20_000, 2_000, p, 1, cores);
      bootstrap("warm-up", 50, 5_000, 2_000, p, 1, cores);
    }
    System.out.println("-- timed --");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Precision p : Precision.values()) {
      double peak = p == Precision.FLOAT64 ? peak64 : peak32;
      if (only.contains("a")) rows.add(oneSample("a: one-sample t, max-T FWER, n=30 V=50000 P=5000", 30, 50_000 / scale,
          5_000, p, peak, cores));
      if (only.contains("b")) rows.add(bootstrap("b: bootstrap mean, percentile CI, n=50 V=20000 B=5000", 50,
          20_000 / scale, 5_000, p, peak, cores));
      if (only.contains("c")) rows.add(oneSample("c: one-sample t, max-T FWER, n=30 V=50000 P=20000", 30, 50_000 / scale,
          20_000, p, peak, cores));
    }
    System.out.println();
    for (Map<String, Object> row : rows) {
      System.out.println(Json.write(row).replaceAll("\\s*\\n\\s*", " "));
    }
  }

  private static Map<String, Object> oneSample(String name, int n, int v, int perms, Precision p,
      double peak, int cores) {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(perms).seed(1)
        .precision(p).fwer(true).build();
    JobInputs in = JobInputs.of(data(n, v, 1));
    return time(name, spec, in, 2.0 * n * v * perms, peak, cores);
  }

  private static Map<String, Object> bootstrap(String name, int n, int v, int samples,
      Precision p, double peak, int cores) {
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(samples)
        .seed(1).precision(p).build();
    JobInputs in = JobInputs.of(data(n, v, 2));
    return time(name, spec, in, 2.0 * n * v * samples, peak, cores);
  }

  private static Map<String, Object> time(String name, JobSpec spec, JobInputs in, double flops,
      double peak, int cores) {
    LocalEngine engine = new LocalEngine(cores, Grid.DEFAULT, null);
    System.gc();
    resetPeaks();
    long baseline = heapUsed();
    RunReport report = engine.run(spec, in);
    double seconds = report.wallSeconds();
    double peakHeapMb = (peakHeap() - 0) / 1e6;
    double gflops = flops / seconds / 1e9;
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("workload", name);
    row.put("precision", spec.precision().label());
    row.put("seconds", round(seconds));
    row.put("gflops", round(gflops));
    row.put("peak_gflops", round(peak));
    row.put("ratio", round(gflops / peak));
    row.put("peak_heap_mb", round(peakHeapMb));
    row.put("heap_before_mb", round(baseline / 1e6));
    row.put("kernel_cpu_seconds", round(report.kernelSeconds));
    System.out.printf("%-55s %-8s %7.2f s %7.1f GFLOP/s ratio %.2f heap %.0f MB%n", name,
        spec.precision().label(), seconds, gflops, gflops / peak, peakHeapMb);
    return row;
  }

  /** GFLOP/s of square GEMMs: max(multi-threaded, one single-threaded GEMM per core at once). */
  static double peak(Precision p, int cores) throws InterruptedException {
    int n = SQUARE;
    Blas.setThreads(cores);
    double multi = 0;
    for (int rep = 0; rep < 3; rep++) {
      multi = Math.max(multi, gemmRate(p, n, 1));
    }
    Blas.setThreads(1);
    double[] rates = new double[cores];
    List<Thread> threads = new ArrayList<>();
    for (int t = 0; t < cores; t++) {
      final int idx = t;
      Thread th = new Thread(() -> {
        double best = 0;
        for (int rep = 0; rep < 3; rep++) {
          best = Math.max(best, gemmRate(p, n, 1));
        }
        rates[idx] = best;
      });
      threads.add(th);
      th.start();
    }
    double concurrent = 0;
    for (int t = 0; t < cores; t++) {
      threads.get(t).join();
      concurrent += rates[t];
    }
    return Math.max(multi, concurrent);
  }

  private static double gemmRate(Precision p, int n, int reps) {
    BLAS blas = Blas.get();
    Random rng = new Random(7);
    long start;
    double seconds;
    if (p == Precision.FLOAT64) {
      double[] a = new double[n * n];
      double[] b = new double[n * n];
      double[] c = new double[n * n];
      for (int i = 0; i < a.length; i++) {
        a[i] = rng.nextDouble();
        b[i] = rng.nextDouble();
      }
      blas.dgemm("N", "N", n, n, n, 1.0, a, n, b, n, 0.0, c, n);
      start = System.nanoTime();
      for (int r = 0; r < reps; r++) {
        blas.dgemm("N", "N", n, n, n, 1.0, a, n, b, n, 0.0, c, n);
      }
    } else {
      float[] a = new float[n * n];
      float[] b = new float[n * n];
      float[] c = new float[n * n];
      for (int i = 0; i < a.length; i++) {
        a[i] = rng.nextFloat();
        b[i] = rng.nextFloat();
      }
      blas.sgemm("N", "N", n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
      start = System.nanoTime();
      for (int r = 0; r < reps; r++) {
        blas.sgemm("N", "N", n, n, n, 1.0f, a, n, b, n, 0.0f, c, n);
      }
    }
    seconds = (System.nanoTime() - start) / 1e9;
    return 2.0 * n * n * n * reps / seconds / 1e9;
  }

  private static DataMatrix data(int n, int v, long seed) {
    Random rng = new Random(seed);
    double[] x = new double[n * v];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() + 0.1;
    }
    return DataMatrix.of(n, v, x, "benchmark");
  }

  private static void resetPeaks() {
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        pool.resetPeakUsage();
      }
    }
  }

  private static long peakHeap() {
    long sum = 0;
    for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  private static long heapUsed() {
    return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }
}
