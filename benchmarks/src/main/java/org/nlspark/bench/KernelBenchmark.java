package org.nlspark.bench;

import dev.ludovic.netlib.blas.BLAS;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.lang.management.ThreadMXBean;
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
 * per core run concurrently — the way tiles run. {@code cpu_ratio} divides by CPU time instead
 * of wall time on both sides (process CPU for the workload, one thread's CPU for a square GEMM),
 * which other load on a shared machine disturbs much less. Each workload runs twice untimed (JIT warm-up),
 * then {@link #RUNS} times; the median is reported with the range. Run:
 * {@code bin/bench-kernels [--quick] [--only abcde] [--cold]}.
 *
 * <p>{@code --cold} then runs the same float64 workloads a and b as a user does, in the same run:
 * it writes the workload's samples as an {@code .npy} and runs {@code bin/nlspark one-sample} (or
 * {@code bootstrap}) on them {@link ColdJob#RUNS} times, each a fresh JVM on embedded Spark
 * ({@code local[*]}), and prints the job's compute seconds next to the warmed kernel's (see
 * {@link ColdJob}).
 */
public final class KernelBenchmark {
  private static final int SQUARE = 1536;

  /** Timed runs per workload after warm-up; the median is reported. */
  private static final int RUNS = 5;

  public static void main(String[] args) throws Exception {
    boolean quick = List.of(args).contains("--quick");
    boolean cold = List.of(args).contains("--cold");
    String only = "abde";
    for (int i = 0; i < args.length - 1; i++) {
      if (args[i].equals("--only")) {
        only = args[i + 1];
      }
    }
    int cores = Runtime.getRuntime().availableProcessors();
    System.out.println("BLAS: " + Blas.describe() + "; cores: " + cores + "; epilogues: "
        + simd());
    double peak64 = peak(Precision.FLOAT64, cores);
    double peak32 = peak(Precision.FLOAT32, cores);
    System.out.printf("peak DGEMM %.1f GFLOP/s, SGEMM %.1f GFLOP/s%n", peak64, peak32);
    cpuPeak64 = cpuPeak(Precision.FLOAT64);
    cpuPeak32 = cpuPeak(Precision.FLOAT32);
    System.out.printf("per CPU-second: DGEMM %.1f GFLOP, SGEMM %.1f GFLOP (one thread)%n",
        cpuPeak64, cpuPeak32);

    int scale = quick ? 10 : 1;
    int runs = quick ? 3 : RUNS;
    List<Workload> workloads = new ArrayList<>();
    for (Precision p : Precision.values()) {
      if (only.contains("a")) workloads.add(new Workload(
          "a: one-sample t, max-T FWER, n=30 V=50000 P=5000", p, oneSample(30, 50_000 / scale,
          5_000, p), 2.0 * 30 * (50_000 / scale) * 5_000,
          List.of("one-sample", "--stat", "t", "--permutations", "5000")));
      if (only.contains("b")) workloads.add(new Workload(
          "b: bootstrap mean, percentile CI, n=50 V=20000 B=5000", p, bootstrap(50,
          20_000 / scale, 5_000, p), 2.0 * 50 * (20_000 / scale) * 5_000,
          List.of("bootstrap", "--stat", "mean", "--samples", "5000", "--ci", "percentile")));
      if (only.contains("c")) workloads.add(new Workload(
          "c: one-sample t, max-T FWER, n=30 V=50000 P=20000", p, oneSample(30, 50_000 / scale,
          20_000, p), 2.0 * 30 * (50_000 / scale) * 20_000, null));
      // Two GEMMs per cell (sums and sums of squares) over n1 + n2 rows: 2 * 2 * n * V * P.
      if (only.contains("d")) workloads.add(new Workload(
          "d: two-sample welch-t, n=15+15 V=50000 P=5000", p, twoSample(15, 15, 50_000 / scale,
          5_000, p), 2.0 * 2 * 30 * (50_000 / scale) * 5_000, null));
      if (only.contains("e")) workloads.add(new Workload(
          "e: correlation pearson, n=30 V=50000 P=5000", p, correlation(30, 50_000 / scale,
          5_000, p), 2.0 * 30 * (50_000 / scale) * 5_000, null));
    }
    // Warm-up (not reported): every workload twice, so the JIT has compiled the kernels (and
    // left its deoptimisations behind) before anything is timed.
    for (int rep = 0; rep < 2; rep++) {
      for (Workload w : workloads) {
        runOnce(w, cores);
      }
    }
    System.out.println("-- timed: median of " + runs + " runs --");
    List<Map<String, Object>> rows = new ArrayList<>();
    for (Workload w : workloads) {
      rows.add(time(w, p(w) == Precision.FLOAT64 ? peak64 : peak32, cores, runs));
    }
    if (cold) {
      System.out.println("-- cold jobs: bin/nlspark, a fresh JVM per run, median of "
          + ColdJob.RUNS + " --");
      List<Map<String, Object>> coldRows = new ArrayList<>();
      for (int i = 0; i < workloads.size(); i++) {
        Workload w = workloads.get(i);
        if (w.cli != null && w.precision == Precision.FLOAT64) {
          coldRows.add(ColdJob.run(w.name, w.cli, w.job.inputs, w.job.spec.seed(),
              ((Number) rows.get(i).get("seconds")).doubleValue(),
              ((Number) rows.get(i).get("cpu_seconds")).doubleValue()));
        }
      }
      rows.addAll(coldRows);
    }
    System.out.println();
    for (Map<String, Object> row : rows) {
      System.out.println(Json.write(row).replaceAll("\\s*\\n\\s*", " "));
    }
  }

  /** GEMM GFLOP per CPU-second of one thread: the ratios that other load on the machine
   *  disturbs least (CPU time, not wall time, on both sides). */
  private static double cpuPeak64;
  private static double cpuPeak32;

  private static double cpuPeak(Precision p) {
    Blas.setThreads(1);
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double best = 0;
    for (int rep = 0; rep < 3; rep++) {
      long start = threads.getCurrentThreadCpuTime();
      double flops = gemmFlops(p, SQUARE, 2);
      best = Math.max(best, flops / ((threads.getCurrentThreadCpuTime() - start) / 1e9) / 1e9);
    }
    return best;
  }

  private static double gemmFlops(Precision p, int n, int reps) {
    BLAS blas = Blas.get();
    if (p == Precision.FLOAT64) {
      double[] a = new double[n * n];
      java.util.Arrays.fill(a, 0.5);
      double[] c = new double[n * n];
      for (int r = 0; r < reps; r++) {
        blas.dgemm("N", "N", n, n, n, 1.0, a, n, a, n, 0.0, c, n);
      }
    } else {
      float[] a = new float[n * n];
      java.util.Arrays.fill(a, 0.5f);
      float[] c = new float[n * n];
      for (int r = 0; r < reps; r++) {
        blas.sgemm("N", "N", n, n, n, 1.0f, a, n, a, n, 0.0f, c, n);
      }
    }
    return 2.0 * n * n * n * reps;
  }

  private static double processCpuSeconds() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory
        .getOperatingSystemMXBean()).getProcessCpuTime() / 1e9;
  }

  private static Precision p(Workload w) {
    return w.precision;
  }

  /** The SIMD state of the kernels, when the core on the class path reports it. */
  private static String simd() {
    try {
      return (String) Class.forName("org.nlspark.core.simd.Simd").getMethod("describe")
          .invoke(null);
    } catch (ReflectiveOperationException e) {
      return "scalar (no SIMD epilogues in this build)";
    }
  }

  /** @param cli the same workload as {@code bin/nlspark} arguments (without input, output,
   *  seed), or null where {@code --cold} does not run it */
  private record Workload(String name, Precision precision, Job job, double flops,
      List<String> cli) {}

  private record Job(JobSpec spec, JobInputs inputs) {}

  private static Job oneSample(int n, int v, int perms, Precision p) {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(perms).seed(1)
        .precision(p).fwer(true).build();
    return new Job(spec, JobInputs.of(data(n, v, 1)));
  }

  private static Job bootstrap(int n, int v, int samples, Precision p) {
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(samples)
        .seed(1).precision(p).build();
    return new Job(spec, JobInputs.of(data(n, v, 2)));
  }

  private static Job twoSample(int n1, int n2, int v, int perms, Precision p) {
    JobSpec spec = JobSpec.builder(Analysis.TWO_SAMPLE).statistic("welch-t").replicates(perms)
        .seed(1).precision(p).fwer(true).build();
    return new Job(spec, JobInputs.twoGroups(data(n1, v, 3), data(n2, v, 4)));
  }

  private static Job correlation(int n, int v, int perms, Precision p) {
    JobSpec spec = JobSpec.builder(Analysis.CORRELATION).statistic("pearson").replicates(perms)
        .seed(1).precision(p).fwer(true).build();
    Random rng = new Random(5);
    double[] target = new double[n];
    for (int i = 0; i < n; i++) {
      target[i] = rng.nextGaussian();
    }
    return new Job(spec, JobInputs.withTarget(data(n, v, 5), target));
  }

  private static RunReport runOnce(Workload w, int cores) {
    return new LocalEngine(cores, Grid.DEFAULT, null).run(w.job.spec, w.job.inputs);
  }

  private static Map<String, Object> time(Workload w, double peak, int cores, int runs) {
    double[] seconds = new double[runs];
    double[] cpuSeconds = new double[runs];
    double peakHeapMb = 0;
    double kernelSeconds = 0;
    long baseline = 0;
    for (int i = 0; i < runs; i++) {
      System.gc();
      resetPeaks();
      baseline = heapUsed();
      double cpu0 = processCpuSeconds();
      RunReport report = runOnce(w, cores);
      cpuSeconds[i] = processCpuSeconds() - cpu0;
      seconds[i] = report.wallSeconds();
      peakHeapMb = Math.max(peakHeapMb, peakHeap() / 1e6);
      kernelSeconds += report.kernelSeconds / runs;
    }
    double[] sorted = seconds.clone();
    java.util.Arrays.sort(sorted);
    double median = sorted[runs / 2];
    double gflops = w.flops / median / 1e9;
    double[] cpuSorted = cpuSeconds.clone();
    java.util.Arrays.sort(cpuSorted);
    double cpuMedian = cpuSorted[runs / 2];
    double cpuRatio = w.flops / cpuMedian / 1e9
        / (w.precision == Precision.FLOAT64 ? cpuPeak64 : cpuPeak32);
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("workload", w.name);
    row.put("precision", w.precision.label());
    row.put("seconds", round(median));
    row.put("seconds_min", round(sorted[0]));
    row.put("seconds_max", round(sorted[runs - 1]));
    row.put("gflops", round(gflops));
    row.put("peak_gflops", round(peak));
    row.put("ratio", round(gflops / peak));
    row.put("cpu_seconds", round(cpuMedian));
    row.put("cpu_ratio", round(cpuRatio));
    row.put("peak_heap_mb", round(peakHeapMb));
    row.put("heap_before_mb", round(baseline / 1e6));
    row.put("kernel_cpu_seconds", round(kernelSeconds));
    System.out.printf(
        "%-52s %-7s %6.2f s (%.2f-%.2f) %6.1f GFLOP/s ratio %.2f cpu-ratio %.2f heap %.0f MB%n",
        w.name, w.precision.label(), median, sorted[0], sorted[runs - 1], gflops, gflops / peak,
        cpuRatio, peakHeapMb);
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
