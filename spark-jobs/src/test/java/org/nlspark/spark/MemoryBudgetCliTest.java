package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.memory.BudgetSource;

/**
 * Every command honours {@code --memory-budget-gb} (DESIGN §3.5): the Spark engine resolves the
 * budget the command was given, plans its tiles within it (each slot's share, or fewer tiles at
 * once where one tile needs more than a share), records it in
 * summary.json, and refuses (exit 3) a budget too small for one tile, writing nothing.
 */
class MemoryBudgetCliTest {
  private static final int N = 12;
  private static final int V = 30;

  @TempDir Path dir;

  static Stream<String> commands() {
    return Stream.of("bootstrap", "one-sample", "two-sample", "correlation", "glm", "isc",
        "timeseries-correlation", "ridge-bootstrap");
  }

  /** The inputs of {@code command}, small, with few replicates. */
  private List<String> inputs(String command) throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(1, N, V, 0.5));
    List<String> a = new ArrayList<>(List.of(command));
    switch (command) {
      case "bootstrap" -> a.addAll(List.of("--input", x.toString(), "--samples", "100"));
      case "one-sample" -> a.addAll(List.of("--input", x.toString(), "--permutations", "100"));
      case "two-sample" -> a.addAll(List.of("--input", x.toString(), "--input2",
          TestData.matrix(dir, "y.npy", 9, V, TestData.gaussian(2, 9, V, 0)).toString(),
          "--permutations", "100"));
      case "correlation" -> a.addAll(List.of("--input", x.toString(), "--target",
          TestData.vector(dir, "t.npy", TestData.gaussian(3, N, 1, 0)).toString(),
          "--permutations", "100"));
      case "glm" -> {
        List<String> design = new ArrayList<>(List.of("intercept,age"));
        double[] age = TestData.gaussian(4, N, 1, 0);
        for (int i = 0; i < N; i++) {
          design.add("1," + age[i]);
        }
        Path d = Files.write(dir.resolve("design.csv"), design);
        Path c = Files.write(dir.resolve("c.csv"), List.of("intercept,age", "0,1"));
        a.addAll(List.of("--input", x.toString(), "--design", d.toString(), "--contrasts",
            c.toString(), "--permutations", "100"));
      }
      case "isc" -> {
        Path s = dir.resolve("s.npy");
        NpyWriter.writeFloat64(s, new long[] {4, 20, V}, TestData.gaussian(5, 4 * 20, V, 0));
        a.addAll(List.of("--input", s.toString(), "--null", "circle-shift",
            "--permutations", "100"));
      }
      case "timeseries-correlation" -> a.addAll(List.of("--input", TestData.matrix(dir,
          "ts.npy", 40, V, TestData.gaussian(6, 40, V, 0)).toString(), "--target",
          TestData.vector(dir, "tt.npy", TestData.gaussian(7, 40, 1, 0)).toString(),
          "--permutations", "100"));
      case "ridge-bootstrap" -> a.addAll(List.of("--input", TestData.matrix(dir, "rx.npy", N, 3,
          TestData.gaussian(8, N, 3, 0)).toString(), "--target", TestData.matrix(dir, "ry.npy",
          N, 2, TestData.gaussian(9, N, 2, 0)).toString(), "--samples", "100"));
      default -> throw new IllegalArgumentException(command);
    }
    return a;
  }

  private CliRun run(List<String> args, Path out, String budgetGb) {
    List<String> all = new ArrayList<>(args);
    all.addAll(List.of("--output", out.toString(), "--memory-budget-gb", budgetGb, "--quiet"));
    return CliRun.of(all.toArray(String[]::new));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  @SuppressWarnings("unchecked")
  void theGivenBudgetPlansTheTilesAndIsInTheSummary(String command) throws Exception {
    Path out = dir.resolve("out");
    CliRun r = run(inputs(command), out, "2");
    assertThat(r.code()).as(r.err()).isZero();
    Map<String, Object> summary =
        (Map<String, Object>) Json.parse(Files.readString(out.resolve("summary.json")));
    Map<String, Object> plan = (Map<String, Object>) summary.get("tile_plan");
    Map<String, Object> budget =
        (Map<String, Object>) ((Map<String, Object>) summary.get("engine")).get("budget");
    assertThat(budget).containsEntry("executor_budget_gb", 2.0)
        .containsEntry("budget_source", BudgetSource.EXPLICIT.describe());
    // the executor's budget, shared by the tiles that run at once in it
    assertThat(((Number) plan.get("budget_gb")).doubleValue())
        .isEqualTo(((Number) budget.get("executor_budget_gb")).doubleValue());
    assertThat(((Number) plan.get("concurrent_tiles")).intValue()).isBetween(1,
        ((Number) budget.get("slots_per_executor")).intValue());
    assertThat(plan).containsEntry("budget_source", BudgetSource.EXPLICIT.describe());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("commands")
  void aBudgetTooSmallForOneTileExitsThreeAndWritesNothing(String command) throws Exception {
    Path out = dir.resolve("small");
    CliRun r = run(inputs(command), out, "1e-7");
    assertThat(r.code()).as(r.err()).isEqualTo(3);
    assertThat(r.err()).startsWith("nlspark " + command + ": Cannot ")
        .contains("GB budget (set by --memory-budget-gb)");
    assertThat(out).doesNotExist();
  }

  /**
   * A billion permutations: the driver's null distributions (48 bytes per replicate each) are
   * refused before any work, with the heap they need, instead of dying part-way (DESIGN §3.5).
   */
  @ParameterizedTest(name = "{0}")
  @MethodSource("permutationCommands")
  void aBillionPermutationsAreRefusedBeforeAnyWork(String command) throws Exception {
    List<String> args = new ArrayList<>(inputs(command));
    args.set(args.indexOf("--permutations") + 1, "1000000000");
    if (command.equals("one-sample")) { // 2^12 sign flips would all be enumerated: 40 samples
      args.set(args.indexOf("--input") + 1, TestData.matrix(dir, "x40.npy", 40, V,
          TestData.gaussian(10, 40, V, 0.5)).toString());
    }
    Path out = dir.resolve("billion");
    args.addAll(List.of("--output", out.toString(), "--quiet"));
    CliRun r = CliRun.of(args.toArray(String[]::new));
    assertThat(r.code()).as(r.err()).isEqualTo(3);
    assertThat(r.err()).startsWith("nlspark " + command + ": Cannot start " + command
        + ": the driver would hold ").contains("replicates, more than 60% of its")
        .contains("give the driver a heap of at least");
    assertThat(out).doesNotExist();
  }

  static Stream<String> permutationCommands() {
    return Stream.of("one-sample", "two-sample", "correlation", "glm", "isc",
        "timeseries-correlation");
  }
}
