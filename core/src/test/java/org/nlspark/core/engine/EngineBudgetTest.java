package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.OptionalLong;
import java.util.Random;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscAnalysis;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BudgetSource;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.ridge.RidgeAnalysis;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.timeseries.SurrogateMethod;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/**
 * The engine owns the budget (DESIGN §3.5): every analysis is run within the budget it was
 * given, checks its tiles against it through the one planner, and records it in summary.json.
 */
class EngineBudgetTest {
  private static final long GB = 1_000_000_000L;

  private static double[] gaussian(int length, long seed) {
    Random rng = new Random(seed);
    double[] x = new double[length];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian();
    }
    return x;
  }

  /** Each command's analysis, prepared with an explicit budget of {@code gb}. */
  static Stream<Arguments> analyses() {
    Function<Double, TileAnalysis> oneSample = gb -> VoxelwiseAnalysis.prepare(
        JobSpec.builder(Analysis.ONE_SAMPLE).replicates(200).memoryBudgetGb(gb).build(),
        JobInputs.of(DataMatrix.of(12, 40, gaussian(12 * 40, 1), "x")), 1);
    Function<Double, TileAnalysis> bootstrap = gb -> VoxelwiseAnalysis.prepare(
        JobSpec.builder(Analysis.BOOTSTRAP).replicates(200).memoryBudgetGb(gb).build(),
        JobInputs.of(DataMatrix.of(12, 40, gaussian(12 * 40, 2), "x")), 1);
    Function<Double, TileAnalysis> isc = gb -> IscAnalysis.prepare(gaussian(4 * 30 * 20, 3), 4,
        30, 20, Isc.Options.defaults(IscNull.CIRCLE_SHIFT, 100, 7), gb);
    Function<Double, TileAnalysis> timeSeries = gb -> TimeSeriesCorrelation.prepare(
        gaussian(40 * 25, 4), 40, 25, gaussian(40, 5),
        TimeSeriesCorrelation.Options.defaults(SurrogateMethod.CIRCLE_SHIFT, 100, 7))
        .withRequestedBudgetGb(gb);
    Function<Double, TileAnalysis> ridge = gb -> RidgeBootstrap.prepare(new RidgeAnalysis.Data(
        gaussian(20 * 3, 6), 20, 3, gaussian(20 * 2, 7), 2, null, 0),
        new RidgeBootstrap.Options(0.5, 100, 0.9, 3L, false, gb));
    return Stream.of(Arguments.of("one-sample", oneSample), Arguments.of("bootstrap", bootstrap),
        Arguments.of("isc", isc), Arguments.of("timeseries-correlation", timeSeries),
        Arguments.of("ridge-bootstrap", ridge));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("analyses")
  void aGivenBudgetIsWhatTheTilesArePlannedForAndWhatSummaryJsonSays(String command,
      Function<Double, TileAnalysis> prepare) {
    RunReport report = new LocalEngine(2, Grid.DEFAULT, null).run(prepare.apply(1.5));
    @SuppressWarnings("unchecked")
    Map<String, Object> plan = (Map<String, Object>) report.summary().get("tile_plan");
    assertThat(report.summary()).containsEntry("command", command);
    assertThat(plan).containsEntry("budget_gb", 1.5)
        .containsEntry("budget_source", BudgetSource.EXPLICIT.describe());
    assertThat((long) plan.get("bytes_per_tile")).isPositive().isLessThanOrEqualTo(1_500_000_000L);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("analyses")
  void aBudgetTooSmallForOneTileIsRefusedBeforeAnyTileRuns(String command,
      Function<Double, TileAnalysis> prepare) {
    TileAnalysis analysis = prepare.apply(1e-7);
    assertThatThrownBy(() -> new LocalEngine(2, Grid.DEFAULT, null).run(analysis))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageStartingWith("Cannot ")
        .hasMessageContaining("GB budget (set by --memory-budget-gb)")
        .hasMessageContaining("--memory-budget-gb");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("analyses")
  void aBadBudgetIsRefusedWhenTheAnalysisIsPrepared(String command,
      Function<Double, TileAnalysis> prepare) {
    assertThatThrownBy(() -> prepare.apply(-1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--memory-budget-gb must be a finite number of GB > 0, but was: -1.0");
  }

  @Test
  void withoutABudgetTheEngineMeasuresItsOwnProcess() {
    MemoryProbe probe = new MemoryProbe() {
      @Override
      public OptionalLong availableSystemBytes() {
        return OptionalLong.of(3 * GB);
      }

      @Override
      public long heapHeadroomBytes() {
        return 100 * GB;
      }

      @Override
      public OptionalLong freeDeviceBytes() {
        return OptionalLong.empty();
      }
    };
    TileAnalysis analysis = TimeSeriesCorrelation.prepare(gaussian(40 * 25, 4), 40, 25,
        gaussian(40, 5), TimeSeriesCorrelation.Options.defaults(SurrogateMethod.CIRCLE_SHIFT, 50,
            7));
    RunReport report = new LocalEngine(1, Grid.DEFAULT, null).withMemoryProbe(probe)
        .run(analysis);
    @SuppressWarnings("unchecked")
    Map<String, Object> plan = (Map<String, Object>) report.summary().get("tile_plan");
    assertThat(plan).containsEntry("budget_gb", 1.5)
        .containsEntry("budget_source", BudgetSource.MEASURED_SYSTEM.describe());
    assertThat(LocalEngine.budget(null, BackendKind.CPU, probe))
        .isEqualTo(new MemoryBudget(1.5, BudgetSource.MEASURED_SYSTEM, false));
  }

  @Test
  void anExplicitBudgetWinsOverTheExecutorsWhichWinsOverTheMeasurement() {
    MemoryProbe unused = new MemoryProbe() {
      @Override
      public OptionalLong availableSystemBytes() {
        throw new AssertionError("measured although the executor's memory was known");
      }

      @Override
      public long heapHeadroomBytes() {
        throw new AssertionError("measured although the executor's memory was known");
      }

      @Override
      public OptionalLong freeDeviceBytes() {
        throw new AssertionError("measured although the executor's memory was known");
      }
    };
    assertThat(MemoryBudget.resolve(2.0, OptionalLong.of(9 * GB), BackendKind.CPU, unused, true))
        .isEqualTo(new MemoryBudget(2.0, BudgetSource.EXPLICIT, false));
    assertThat(MemoryBudget.resolve(null, OptionalLong.of(9 * GB), BackendKind.GPU, unused,
        false)).isEqualTo(new MemoryBudget(9.0, BudgetSource.SPARK_EXECUTOR, false));
    assertThat(MemoryBudget.resolve(null, OptionalLong.of(9 * GB), BackendKind.CPU, unused,
        true)).isEqualTo(new MemoryBudget(MemoryBudget.BATCH_WORKING_SET_CEILING_GB,
            BudgetSource.SPARK_EXECUTOR, true));
    assertThat(new MemoryBudget(9.0, BudgetSource.SPARK_EXECUTOR, false).sharedBy(4))
        .isEqualTo(new MemoryBudget(2.25, BudgetSource.SPARK_EXECUTOR, false));
  }
}
