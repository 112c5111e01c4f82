package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyDtype;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscResult;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.timeseries.SurrogateMethod;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;

/** isc, timeseries-correlation and ridge-bootstrap through the CLI: files equal the core API's. */
class CoreCommandsCliTest {
  @TempDir Path dir;

  private Path npy(String name, long[] shape, double[] values) {
    Path p = dir.resolve(name);
    NpyWriter.writeFloat64(p, shape, values);
    return p;
  }

  private static double[] gaussian(long seed, int n) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] a = new double[n];
    for (int i = 0; i < n; i++) {
      a[i] = rng.nextGaussian();
    }
    return a;
  }

  private static void assertFilesEqual(Path out, Result expected) throws Exception {
    for (Output o : expected.outputs()) {
      ByteArrayOutputStream b = new ByteArrayOutputStream();
      NpyWriter.writeFloat64(b, o.shape(), o.values());
      assertThat(Files.readAllBytes(out.resolve(o.name() + ".npy"))).as(o.name())
          .isEqualTo(b.toByteArray());
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> summary(Path out) throws Exception {
    return (Map<String, Object>) Json.parse(Files.readString(out.resolve("summary.json")));
  }

  @Test
  @SuppressWarnings("unchecked")
  void iscWritesTheCoreResultAndASummary() throws Exception {
    double[] d = gaussian(1, 4 * 20 * 30);
    Path in = npy("d.npy", new long[] {4, 20, 30}, d);
    Path out = dir.resolve("isc");
    CliRun run = CliRun.of("isc", "--input", in.toString(), "--output", out.toString(),
        "--null", "circle-shift", "--permutations", "40", "--metric", "mean", "--seed", "3",
        "--quiet");
    assertThat(run.err()).isEmpty();
    assertThat(run.code()).isZero();
    IscResult expected = Isc.run(d, 4, 20, 30, new Isc.Options(IscSummary.PAIRWISE,
        IscMetric.MEAN, IscNull.CIRCLE_SHIFT, 40, 0.95, Tail.TWO, true, 3L, false, Grid.DEFAULT));
    assertFilesEqual(out, expected);
    Map<String, Object> s = summary(out);
    assertThat(s.get("command")).isEqualTo("isc");
    assertThat((Map<String, Object>) s.get("input")).containsEntry("subjects", 4L)
        .containsEntry("timepoints", 20L).containsEntry("voxels", 30L);
    assertThat((Map<String, Object>) s.get("tile_plan")).containsEntry("voxel_blocks", 1L);
    assertThat((List<Object>) s.get("files")).containsExactly("isc.npy", "p.npy",
        "ci_lower.npy", "ci_upper.npy", "p_fwer.npy", "null_max.npy", "summary.json");
  }

  @Test
  @SuppressWarnings("unchecked")
  void iscWritesTheSameBitsForAnyPartitioning() throws Exception {
    // 2,100 voxels = 3 blocks of the default grid
    double[] d = gaussian(9, 3 * 8 * 2100);
    Path in = npy("d3.npy", new long[] {3, 8, 2100}, d);
    Path threads = dir.resolve("threads");
    Path tasks = dir.resolve("tasks");
    for (Path out : new Path[] {threads, tasks}) {
      String[] common = {"isc", "--input", in.toString(), "--output", out.toString(), "--null",
          "phase-randomize", "--permutations", "20", "--metric", "median", "--quiet"};
      String[] argv = out == tasks
          ? java.util.stream.Stream.concat(java.util.Arrays.stream(common),
              java.util.stream.Stream.of("--partitions", "2")).toArray(String[]::new)
          : common;
      CliRun run = CliRun.of(argv);
      assertThat(run.err()).isEmpty();
      assertThat(run.code()).isZero();
    }
    for (String f : new String[] {"isc", "p", "ci_lower", "ci_upper", "p_fwer", "null_max"}) {
      assertThat(Files.readAllBytes(tasks.resolve(f + ".npy"))).as(f)
          .isEqualTo(Files.readAllBytes(threads.resolve(f + ".npy")));
    }
    assertThat((Map<String, Object>) summary(tasks).get("engine")).containsEntry("name", "spark")
        .containsEntry("partitions", 2L);
  }

  @Test
  void timeseriesCorrelationWritesTheCoreResult() throws Exception {
    double[] x = gaussian(2, 24 * 10);
    double[] y = gaussian(3, 24);
    Path out = dir.resolve("ts");
    CliRun run = CliRun.of("timeseries-correlation", "--input",
        npy("x.npy", new long[] {24, 10}, x).toString(), "--target",
        npy("y.npy", new long[] {24}, y).toString(), "--output", out.toString(), "--null",
        "phase-randomize", "--permutations", "30", "--quiet");
    assertThat(run.err()).isEmpty();
    assertThat(run.code()).isZero();
    assertFilesEqual(out, TimeSeriesCorrelation.run(x, 24, 10, y,
        new TimeSeriesCorrelation.Options(SurrogateMethod.PHASE_RANDOMIZE, 30, Tail.TWO, true, 0L,
            Grid.DEFAULT)));
  }

  @Test
  void ridgeBootstrapWritesTheCoreResult() throws Exception {
    double[] x = gaussian(4, 15 * 3);
    double[] y = gaussian(5, 15 * 2);
    Path out = dir.resolve("ridge");
    CliRun run = CliRun.of("ridge-bootstrap", "--input",
        npy("x.npy", new long[] {15, 3}, x).toString(), "--target",
        npy("y.npy", new long[] {15, 2}, y).toString(), "--output", out.toString(), "--alpha",
        "0.5", "--samples", "50", "--memory-budget-gb", "1", "--quiet");
    assertThat(run.err()).isEmpty();
    assertThat(run.code()).isZero();
    assertFilesEqual(out, RidgeBootstrap.run(new NpyArray(NpyDtype.FLOAT64, new long[] {15, 3}, x),
        new NpyArray(NpyDtype.FLOAT64, new long[] {15, 2}, y), null,
        new RidgeBootstrap.Options(0.5, 50, 0.95, 0L, false, 1.0)));
  }

  @Test
  void badInputExitsTwoAndGpuRequestExitsThreeWithoutWritingOutput() {
    Path in = npy("flat.npy", new long[] {12, 5}, gaussian(6, 60));
    Path out = dir.resolve("bad");
    CliRun rank = CliRun.of("isc", "--input", in.toString(), "--output", out.toString());
    assertThat(rank.code()).isEqualTo(2);
    assertThat(rank.err()).startsWith("nlspark isc: ").contains("3");
    CliRun alpha = CliRun.of("ridge-bootstrap", "--input", in.toString(), "--target",
        in.toString(), "--output", out.toString(), "--alpha", "0");
    assertThat(alpha.code()).isEqualTo(2);
    assertThat(alpha.err()).isEqualTo(
        "nlspark ridge-bootstrap: --alpha must be a finite number > 0, but was: 0.0\n");
    CliRun gpu = CliRun.of("timeseries-correlation", "--input", in.toString(), "--target",
        in.toString(), "--output", out.toString(), "--backend", "gpu");
    assertThat(gpu.code()).isEqualTo(3);
    assertThat(gpu.err()).contains("--backend cpu or auto");
    CliRun mixed = CliRun.of("isc", "--input", in.toString(), "--output", out.toString(),
        "--samples", "10", "--null", "phase-randomize");
    assertThat(mixed.code()).isEqualTo(2);
    assertThat(mixed.err()).isEqualTo("nlspark isc: Cannot run isc: --samples does not apply to"
        + " --null phase-randomize; use --permutations\n");
    assertThat(Files.exists(out)).isFalse();
  }
}
