package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.result.Output;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.conf.SparkLine;

/** Every command through the CLI, against core's LocalEngine (bit for bit) and brute force. */
class CliEndToEndTest {
  // 2,500 voxels = 3 voxel blocks of the default grid; 300 replicates = 3 windows.
  static final int N = 12;
  static final int V = 2500;

  @TempDir Path dir;

  private Path x() {
    return TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(1, N, V, 0.8));
  }

  private static DataMatrix read(Path p) {
    var a = NpyReader.read(p, 2);
    return DataMatrix.of(a.dim(0), a.dim(1), a.data(), p.toString());
  }

  /** Every output file equals the LocalEngine run of the same spec, byte for byte. */
  private static void assertSameAsLocal(Path out, JobSpec spec, JobInputs inputs) {
    RunReport local = new LocalEngine(2, Grid.DEFAULT, null).run(spec, inputs);
    for (Output o : local.result.outputs()) {
      ByteArrayOutputStream expected = new ByteArrayOutputStream();
      NpyWriter.writeFloat64(expected, o.shape(), o.values());
      assertThat(TestData.bytes(out.resolve(o.name() + ".npy")))
          .as(o.name()).isEqualTo(expected.toByteArray());
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> summary(Path out) throws Exception {
    return (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json"), StandardCharsets.UTF_8));
  }

  @Test
  void bootstrapMatchesLocalEngineAndWritesSummary() throws Exception {
    Path x = x();
    Path out = dir.resolve("boot");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--output", out.toString(),
        "--samples", "300", "--seed", "5", "--save-samples", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.err()).isEmpty();
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).replicates(300).seed(5)
        .saveSamples(true).build();
    assertSameAsLocal(out, spec, JobInputs.of(read(x)));
    try (var files = Files.list(out)) {
      assertThat(files.map(p -> p.getFileName().toString()).sorted()).containsExactly(
          "ci_lower.npy", "ci_upper.npy", "mean.npy", "observed.npy", "p.npy", "report.html",
          "samples.npy", "std.npy", "summary.json", "z.npy");
    }
    Map<String, Object> s = summary(out);
    assertThat(s.get("command")).isEqualTo("bootstrap");
    assertThat(s).containsKeys("parameters", "seed", "backend", "blas", "precision", "tile_plan",
        "timings", "versions", "engine");
    Map<String, Object> engine = (Map<String, Object>) s.get("engine");
    assertThat(engine.get("name")).isEqualTo("spark");
    assertThat(engine.get("master")).isEqualTo("local[2,4]");
    // The Spark this line's tests run on (3.5 or 4.x), and the artifact built for it.
    assertThat(engine.get("spark_version")).isEqualTo(SparkLine.runtimeSparkVersion());
    assertThat(engine.get("artifact")).isEqualTo(SparkLine.built().artifact);
    // a bootstrap (retained tails): TILES_PER_SLOT per slot (local[2,4]: 2), at most tiles
    assertThat(((Number) engine.get("partitions")).intValue())
        .isEqualTo(Math.min(8, ((Number) ((Map<String, Object>) s.get("tile_plan"))
            .get("tile_count")).intValue()));
    assertThat((Map<String, Object>) engine.get("spark_timings"))
        .containsKeys("task_seconds", "task_cpu_seconds", "spark_overhead_seconds");
    Map<String, Object> timings = (Map<String, Object>) s.get("timings");
    double parts = 0;
    for (String part : new String[] {"setup_seconds", "compute_seconds", "merge_seconds",
        "write_seconds"}) {
      parts += ((Number) timings.get(part)).doubleValue();
    }
    assertThat(((Number) timings.get("wall_seconds")).doubleValue()).isCloseTo(parts,
        org.assertj.core.data.Offset.offset(1e-9));
    assertThat(((Map<String, Object>) s.get("tile_plan")).get("voxel_block")).isEqualTo(1024L);
  }

  @Test
  void bootstrapMeanAgreesWithBruteForce() {
    int n = 7;
    int v = 5;
    int b = 101;
    double[] values = TestData.gaussian(3, n, v, 0.5);
    Path x = TestData.matrix(dir, "small.npy", n, v, values);
    Path out = dir.resolve("small-boot");
    CliRun r = CliRun.of("bootstrap", "--input", x.toString(), "--output", out.toString(),
        "--samples", Integer.toString(b), "--seed", "11", "--confidence", "0.9", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    double[] mean = NpyReader.read(out.resolve("mean.npy"), 1).data();
    double[] lower = NpyReader.read(out.resolve("ci_lower.npy"), 1).data();
    double[] upper = NpyReader.read(out.resolve("ci_upper.npy"), 1).data();
    int[] counts = new int[n];
    for (int col = 0; col < v; col++) {
      double[] reps = new double[b];
      for (int rep = 0; rep < b; rep++) {
        Draws.bootstrapCounts(11, rep, n, counts);
        double sum = 0;
        for (int i = 0; i < n; i++) {
          sum += counts[i] * values[i * v + col];
        }
        reps[rep] = sum / n;
      }
      double m = Arrays.stream(reps).sum() / b;
      Arrays.sort(reps);
      assertThat(mean[col]).isCloseTo(m, within(1e-12));
      assertThat(lower[col]).isCloseTo(NumpyPercentile.ofSorted(reps, 5.0), within(1e-12));
      assertThat(upper[col]).isCloseTo(NumpyPercentile.ofSorted(reps, 95.0), within(1e-12));
    }
  }

  @Test
  void oneSampleMeanAgreesWithBruteForceAndLocalEngine() {
    int n = 9;
    int v = 6;
    int p = 150;
    double[] values = TestData.gaussian(4, n, v, 1.0);
    Path x = TestData.matrix(dir, "small.npy", n, v, values);
    Path out = dir.resolve("small-one");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--stat", "mean", "--permutations", Integer.toString(p), "--seed", "3", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    double[] observed = NpyReader.read(out.resolve("observed.npy"), 1).data();
    double[] pv = NpyReader.read(out.resolve("p.npy"), 1).data();
    double[] signs = new double[n];
    for (int col = 0; col < v; col++) {
      double obs = 0;
      for (int i = 0; i < n; i++) {
        obs += values[i * v + col];
      }
      obs /= n;
      long atLeast = 0;
      long clearlyAbove = 0;
      for (int rep = 0; rep < p; rep++) {
        Draws.signFlips(3, rep, n, signs, 0);
        double s = 0;
        for (int i = 0; i < n; i++) {
          s += signs[i] * values[i * v + col];
        }
        s /= n;
        atLeast += Math.abs(s) >= Math.abs(obs) - 1e-12 ? 1 : 0;
        clearlyAbove += Math.abs(s) >= Math.abs(obs) + 1e-12 ? 1 : 0;
      }
      assertThat(observed[col]).isCloseTo(obs, within(1e-12));
      // Ties within rounding may go either way; the p-value must lie in that bracket.
      assertThat(pv[col]).isBetween((clearlyAbove + 1.0) / (p + 1), (atLeast + 1.0) / (p + 1));
    }
    assertSameAsLocal(out, JobSpec.builder(Analysis.ONE_SAMPLE).statistic("mean")
        .replicates(p).seed(3).build(), JobInputs.of(read(x)));
  }

  @Test
  void oneSampleTMatchesLocalEngine() throws Exception {
    Path x = x();
    Path out = dir.resolve("one");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--stat", "t", "--permutations", "300", "--seed", "9", "--tail", "upper");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(r.out()).contains("one-sample", "2500 voxels", "300 replicates");
    assertSameAsLocal(out, JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(300)
        .seed(9).tail(org.nlspark.core.job.Tail.UPPER).build(), JobInputs.of(read(x)));
    assertThat(out.resolve("p_fwer.npy")).exists();
    assertThat(NpyReader.read(out.resolve("null_max.npy"), 1).shape()).containsExactly(300L);
    // a short run of counts and maxima: one task per slot (local[2,4]: 2) for its 9 tiles
    Map<String, Object> s = summary(out);
    assertThat(((Number) ((Map<String, Object>) s.get("tile_plan")).get("tile_count")).intValue())
        .isGreaterThan(2);
    Map<String, Object> engine = (Map<String, Object>) s.get("engine");
    assertThat(((Number) engine.get("partitions")).intValue()).isEqualTo(2);
    assertThat(((Number) ((Map<String, Object>) engine.get("spark_timings")).get("tasks"))
        .intValue()).isEqualTo(2);
  }

  @Test
  void twoSampleMatchesLocalEngineWithoutFwer() {
    Path x = x();
    Path y = TestData.matrix(dir, "y.npy", 8, V, TestData.gaussian(2, 8, V, 0));
    Path out = dir.resolve("two");
    CliRun r = CliRun.of("two-sample", "--input", x.toString(), "--input2", y.toString(),
        "--output", out.toString(), "--permutations", "200", "--no-fwer", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    assertSameAsLocal(out, JobSpec.builder(Analysis.TWO_SAMPLE).replicates(200).fwer(false)
        .build(), JobInputs.twoGroups(read(x), read(y)));
    assertThat(out.resolve("p_fwer.npy")).doesNotExist();
  }

  @Test
  void correlationMatchesLocalEngine() {
    Path x = x();
    double[] target = Arrays.copyOf(TestData.gaussian(8, N, 1, 0), N);
    Path t = TestData.vector(dir, "target.npy", target);
    Path out = dir.resolve("corr");
    CliRun r = CliRun.of("correlation", "--input", x.toString(), "--target", t.toString(),
        "--output", out.toString(), "--method", "spearman", "--permutations", "200",
        "--seed", "2", "--partitions", "4", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    assertSameAsLocal(out, JobSpec.builder(Analysis.CORRELATION).statistic("spearman")
        .replicates(200).seed(2).build(), JobInputs.withTarget(read(x), target));
  }

  @Test
  void zeroVarianceVoxelsAreReportedNotFatal() throws Exception {
    double[] values = TestData.gaussian(5, N, 10, 0);
    for (int i = 0; i < N; i++) {
      values[i * 10 + 3] = 2.5;
    }
    Path x = TestData.matrix(dir, "flat.npy", N, 10, values);
    Path out = dir.resolve("flat");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "50", "--quiet");
    assertThat(r.code()).as(r.err()).isZero();
    assertThat(TestData.outputValues(out.resolve("observed.npy"))[3]).isNaN();
    @SuppressWarnings("unchecked")
    Map<String, Object> result = (Map<String, Object>) summary(out).get("result");
    assertThat(((Number) result.get("undefined_voxels")).intValue()).isEqualTo(1);
  }

  @Test
  void helpAndEnv() {
    CliRun tool = CliRun.of("--help");
    assertThat(tool.code()).isZero();
    assertThat(tool.out()).contains("bootstrap", "one-sample", "two-sample", "correlation", "env",
        "demo");
    for (String c : List.of("bootstrap", "one-sample", "two-sample", "correlation", "env",
        "demo")) {
      CliRun h = CliRun.of(c, "--help");
      assertThat(h.code()).as(c).isZero();
      assertThat(h.out()).as(c).startsWith("Usage: nlspark " + c);
    }
    CliRun none = CliRun.of();
    assertThat(none.code()).isEqualTo(2);
    assertThat(none.err()).contains("a command is required");
    CliRun env = CliRun.of("env", "--json");
    assertThat(env.code()).as(env.err()).isZero();
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) Json.parse(env.out());
    assertThat(m).containsKeys("gpu_available", "backend", "blas");
    CliRun text = CliRun.of("env");
    assertThat(text.out()).contains("blas");
  }
}
