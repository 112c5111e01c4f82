package org.nlspark.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.JobInputs;

/**
 * The user's side of a kernel workload ({@code bin/bench-kernels --cold}): writes the workload's
 * samples as an {@code .npy}, runs {@code bin/nlspark <command> --input x.npy} on them as a fresh
 * JVM (embedded Spark, {@code local[*]}) {@link #RUNS} times, and reads from each run:
 * <ul>
 *   <li>{@code compute_seconds}, {@code kernel_seconds}, {@code engine.spark_timings} (task
 *       seconds and task-thread CPU seconds summed over tasks, Spark overhead, tasks) from its
 *       summary.json;
 *   <li>the JIT's compilation time of the whole child JVM, C1 and C2, from its
 *       {@code -XX:+CITime} report (printed at exit);
 *   <li>the child's CPU seconds (user + system, from bash's {@code time}).
 * </ul>
 * The row also holds {@code compute_over_kernel}: the median compute_seconds over the warmed
 * kernel's median seconds of the same benchmark run, and {@code task_cpu_over_kernel_cpu}: the
 * tasks' thread CPU over the warmed kernel's process CPU, which other load disturbs less. {@code NLSPARK_BENCH_JOB_JAVA_OPTS} adds JVM
 * options to the child (e.g. a JFR recording). Reports only; nothing gates on time.
 */
final class ColdJob {
  /** Cold runs per workload; the median is reported with the range. */
  static final int RUNS = 3;

  private static final Pattern CPU = Pattern.compile("^nlspark-cpu ([0-9.]+) ([0-9.]+)$",
      Pattern.MULTILINE);
  private static final Pattern TOTAL = Pattern.compile("Total compilation time\\s*:\\s*([0-9.]+) s");
  private static final Pattern C1 = Pattern.compile("C1 Compile Time:\\s*([0-9.]+) s");
  private static final Pattern C2 = Pattern.compile("C2 Compile Time:\\s*([0-9.]+) s");

  private ColdJob() {}

  static Map<String, Object> run(String workload, List<String> cli, JobInputs inputs, long seed,
      double kernelSeconds, double kernelCpuSeconds) throws IOException, InterruptedException {
    Path dir = Files.createTempDirectory("nlspark-cold-");
    try {
      DataMatrix x = inputs.x();
      Path npy = dir.resolve("x.npy");
      NpyWriter.writeFloat64(npy, new long[] {x.rows(), x.cols()}, x.values());
      double[][] runs = new double[RUNS][];
      for (int i = 0; i < RUNS; i++) {
        runs[i] = once(cli, npy, dir.resolve("out" + i), dir.resolve("log" + i), seed);
      }
      return row(workload, cli, runs, kernelSeconds, kernelCpuSeconds);
    } finally {
      delete(dir);
    }
  }

  /** Indices of the measures {@link #once} returns. */
  private static final String[] MEASURES = {"compute_seconds", "kernel_seconds", "task_seconds",
      "task_cpu_seconds", "spark_overhead_seconds", "tasks", "jit_seconds", "jit_c1_seconds", "jit_c2_seconds",
      "process_cpu_seconds", "wall_seconds"};

  private static double[] once(List<String> cli, Path npy, Path out, Path log, long seed)
      throws IOException, InterruptedException {
    List<String> command = new ArrayList<>(List.of("bash", "-c",
        "TIMEFORMAT='nlspark-cpu %U %S'; time \"$0\" \"$@\"", Path.of("bin", "nlspark")
            .toAbsolutePath().toString()));
    command.addAll(cli);
    command.addAll(List.of("--input", npy.toString(), "--output", out.toString(), "--seed",
        Long.toString(seed)));
    ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
        .redirectOutput(log.toFile());
    String extra = System.getenv().getOrDefault("NLSPARK_BENCH_JOB_JAVA_OPTS", "");
    pb.environment().put("NLSPARK_JAVA_OPTS", ("-XX:+CITime " + extra).trim());
    long start = System.nanoTime();
    int rc = pb.start().waitFor();
    double wall = (System.nanoTime() - start) / 1e9;
    String text = Files.readString(log, StandardCharsets.UTF_8);
    if (rc != 0) {
      throw new IllegalStateException("Cannot time the cold job: bin/nlspark " + String.join(" ",
          cli) + " exited with " + rc + ":\n" + text);
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> summary = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json"), StandardCharsets.UTF_8));
    Map<?, ?> timings = (Map<?, ?>) summary.get("timings");
    Map<?, ?> spark = (Map<?, ?>) ((Map<?, ?>) summary.get("engine")).get("spark_timings");
    Matcher cpu = CPU.matcher(text);
    double processCpu = cpu.find()
        ? Double.parseDouble(cpu.group(1)) + Double.parseDouble(cpu.group(2)) : Double.NaN;
    return new double[] {num(timings.get("compute_seconds")), num(timings.get("kernel_seconds")),
        num(spark.get("task_seconds")), num(spark.get("task_cpu_seconds")),
        num(spark.get("spark_overhead_seconds")), num(spark.get("tasks")), find(TOTAL, text), find(C1, text), find(C2, text), processCpu,
        wall};
  }

  private static Map<String, Object> row(String workload, List<String> cli, double[][] runs,
      double kernelSeconds, double kernelCpuSeconds) {
    Map<String, Object> row = new LinkedHashMap<>();
    row.put("workload", workload);
    row.put("precision", "float64");
    row.put("cold_job", "bin/nlspark " + String.join(" ", cli));
    row.put("runs", runs.length);
    row.put("kernel_warm_seconds", round(kernelSeconds));
    row.put("kernel_warm_cpu_seconds", round(kernelCpuSeconds));
    double[] compute = column(runs, 0);
    for (int m = 0; m < MEASURES.length; m++) {
      row.put(MEASURES[m], round(median(column(runs, m))));
    }
    row.put("compute_seconds_min", round(Arrays.stream(compute).min().orElse(Double.NaN)));
    row.put("compute_seconds_max", round(Arrays.stream(compute).max().orElse(Double.NaN)));
    double ratio = median(compute) / kernelSeconds;
    row.put("compute_over_kernel", round(ratio));
    // Less disturbed by other load: the tasks' thread CPU against the warmed run's process CPU.
    row.put("task_cpu_over_kernel_cpu", round(median(column(runs, 3)) / kernelCpuSeconds));
    System.out.printf("%-52s cold job compute %5.2f s (%.2f-%.2f), kernel %5.2f s warmed:"
        + " %.2fx; tasks %.0f, task %.2f s (CPU %.2f s), Spark overhead %.2f s, JIT %.2f s"
        + " (C2 %.2f), process CPU %.1f s%n", workload, median(compute),
        row.get("compute_seconds_min"), row.get("compute_seconds_max"), kernelSeconds, ratio,
        median(column(runs, 5)), median(column(runs, 2)), median(column(runs, 3)),
        median(column(runs, 4)), median(column(runs, 6)), median(column(runs, 8)),
        median(column(runs, 9)));
    return row;
  }

  private static double num(Object o) {
    return o instanceof Number n ? n.doubleValue() : Double.NaN;
  }

  private static double find(Pattern p, String text) {
    Matcher m = p.matcher(text);
    return m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
  }

  private static double[] column(double[][] runs, int m) {
    double[] out = new double[runs.length];
    for (int i = 0; i < runs.length; i++) {
      out[i] = runs[i][m];
    }
    return out;
  }

  private static double median(double[] v) {
    double[] s = v.clone();
    Arrays.sort(s);
    return s[s.length / 2];
  }

  private static double round(double v) {
    return Math.round(v * 1000.0) / 1000.0;
  }

  private static void delete(Path dir) throws IOException {
    try (Stream<Path> paths = Files.walk(dir)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.delete(p);
        } catch (IOException e) {
          throw new UncheckedIOException(e);
        }
      });
    }
  }
}
