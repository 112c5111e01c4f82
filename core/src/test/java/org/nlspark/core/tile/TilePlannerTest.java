package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BudgetExceededException;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/** The budget decides tiles per window group and tiles at once, never the grid. */
class TilePlannerTest {
  private static JobInputs inputs(int n, int v) {
    double[] x = new double[n * v];
    Random rng = new Random(1);
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian();
    }
    return JobInputs.of(DataMatrix.of(n, v, x, "x"));
  }

  @Test
  void aimsForFourTilesPerSlotAndCoversEveryWindowOnce() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(5000).build();
    JobInputs in = inputs(30, 3000);
    TilePlan plan = TilePlanner.plan(spec, in, ResamplingPlan.forJob(spec, in), Grid.DEFAULT,
        MemoryBudget.explicit(4.0), 4);
    assertThat(plan.blocks()).isEqualTo(3);
    assertThat(plan.windows()).isEqualTo(40);
    assertThat(plan.tileCount()).isGreaterThanOrEqualTo(16);
    boolean[][] covered = new boolean[plan.blocks()][plan.windows()];
    for (TileSpec t : plan.tiles()) {
      for (int w = t.firstWindow(); w < t.firstWindow() + t.windowCount(); w++) {
        assertThat(covered[t.block()][w]).isFalse();
        covered[t.block()][w] = true;
      }
    }
    for (boolean[] row : covered) {
      for (boolean c : row) {
        assertThat(c).isTrue();
      }
    }
    assertThat(plan.windowRows(39)).isEqualTo(5000 - 39 * 128);
  }

  @Test
  void smallBudgetShrinksTilesButKeepsTheGrid() {
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).replicates(5000).saveSamples(true).build();
    JobInputs in = inputs(30, 3000);
    ResamplingPlan rp = ResamplingPlan.forJob(spec, in);
    TilePlan big = TilePlanner.plan(spec, in, rp, Grid.DEFAULT, MemoryBudget.explicit(8.0), 1);
    TilePlan small = TilePlanner.plan(spec, in, rp, Grid.DEFAULT, MemoryBudget.explicit(0.01), 1);
    assertThat(small.grid()).isEqualTo(big.grid());
    assertThat(small.windowsPerTile()).isLessThan(big.windowsPerTile());
    assertThat(small.bytesPerTile()).isLessThanOrEqualTo(10_000_000L);
  }

  @Test
  void aTileThatCannotFitIsRefusedWithTheBudget() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(100).build();
    JobInputs in = inputs(30, 3000);
    assertThatThrownBy(() -> TilePlanner.plan(spec, in, ResamplingPlan.forJob(spec, in),
        Grid.DEFAULT, MemoryBudget.explicit(0.0001), 1))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("Cannot plan tiles")
        .hasMessageContaining("--memory-budget-gb");
  }

  /**
   * A tile that fits the process' budget but not one slot's share runs with fewer tiles at once,
   * not refused (DESIGN §3.5); windows are halved against the share first. Refused only when one
   * tile alone exceeds the budget, with the budget that would do.
   */
  @Test
  void aTileLargerThanAShareRunsFewerAtOnceAndOnlyATileLargerThanTheBudgetIsRefused() {
    TileShape shape = TileShape.fixed(new Grid(4, 8), 16, 64, 0, 2); // one window count only
    MemoryBudget budget = MemoryBudget.explicit(1e-6); // 1000 bytes
    TilePlan two = TilePlanner.plan(shape, w -> 400, "x", budget, 4, 8);
    assertThat(two.concurrentTiles()).isEqualTo(2); // a share is 250 bytes; two fit the 1000
    TilePlan all = TilePlanner.plan(shape, w -> 250, "x", budget, 4, 8);
    assertThat(all.concurrentTiles()).isEqualTo(4);
    TilePlan one = TilePlanner.plan(shape, w -> 1000, "x", budget, 4, 8);
    assertThat(one.concurrentTiles()).isEqualTo(1);
    assertThatThrownBy(() -> TilePlanner.plan(shape, w -> 1001, "x", budget, 4, 8))
        .isInstanceOf(BudgetExceededException.class)
        .hasMessage("Cannot plan tiles: one x tile of 4 cells x 16 replicates needs 1.00e-06 GB,"
            + " more than the whole 1.00e-06 GB budget (set by --memory-budget-gb), even run one"
            + " at a time. Raise --memory-budget-gb to at least 1.01e-06.")
        .extracting(e -> ((BudgetExceededException) e).bytesNeeded()).isEqualTo(1001L);
    // windows halve against the share before tiles at once are lowered
    TileShape free = TileShape.windows(new Grid(4, 8), 16, 64, 0);
    TilePlan halved = TilePlanner.plan(free, w -> 100L * w, "x", budget, 4, 4);
    assertThat(halved.windowsPerTile()).isEqualTo(2);
    assertThat(halved.concurrentTiles()).isEqualTo(4);
  }

  /** A short run's tile is described by the replicates it holds, not the grid's window. */
  @Test
  void aShortRunIsRefusedNamingTheReplicatesItHolds() {
    TileShape shape = TileShape.windows(new Grid(4, 128), 16, 21, 0);
    assertThatThrownBy(() -> TilePlanner.plan(shape, w -> 2_000_000_000L, "glm",
        MemoryBudget.explicit(1.0), 1)).hasMessageStartingWith(
            "Cannot plan tiles: one glm tile of 4 cells x 21 replicates needs 2.00 GB");
  }

  @Test
  void mergingATileTwiceIsABug() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(50).build();
    JobInputs in = inputs(10, 20);
    ResamplingPlan rp = ResamplingPlan.forJob(spec, in);
    TilePlan plan = TilePlanner.plan(spec, in, rp, new Grid(8, 16), MemoryBudget.explicit(1.0), 1);
    ResultMerger merger = new ResultMerger(spec, rp, plan);
    PartialResult p = TileExecutor.execute(spec, in, rp, plan, plan.tiles().get(0));
    merger.add(p);
    assertThatThrownBy(() -> merger.add(p)).hasMessageContaining("[BUG] tile 0 was merged twice");
    assertThatThrownBy(merger::finish).hasMessageContaining("[BUG] merged 1 of");
  }

  @Test
  void aShortRunOfSmallPartialsRunsOneTaskPerSlot() {
    long limit = TilePlanner.ONE_TASK_WORK_PER_SLOT;
    assertThat(TilePlanner.tasks(49, 2, 30L * 50_000 * 5_000)).isEqualTo(2);
    assertThat(TilePlanner.tasks(49, 2, 2 * limit)).isEqualTo(2); // exactly the limit per slot
    assertThat(TilePlanner.tasks(49, 2, 2 * limit + 2)).isEqualTo(8);
    assertThat(TilePlanner.tasks(49, 2, 0)).isEqualTo(8); // large or unknown partials
    assertThat(TilePlanner.tasks(5, 2, 0)).isEqualTo(5); // never more tasks than tiles
    assertThat(TilePlanner.tasks(1, 2, 1)).isEqualTo(1);
    assertThat(TilePlanner.tasks(49, 0, 1)).isEqualTo(1); // no slot known: one
    assertThat(TilePlanner.tasks(49, 0, 0)).isEqualTo(TilePlanner.TILES_PER_SLOT);
  }

  @Test
  void onlyPermutationRunsWithoutRetainedTailsDeclareSmallPartials() {
    JobInputs in = inputs(30, 3000);
    JobSpec oneSample = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(5000)
        .build();
    assertThat(VoxelwiseAnalysis.prepare(oneSample, in, 2).smallPartialWork())
        .isEqualTo(30L * 3000 * 5000);
    JobSpec tails = oneSample.toBuilder().tailApproximation(true).build();
    assertThat(VoxelwiseAnalysis.prepare(tails, in, 2).smallPartialWork()).isZero();
    JobSpec boot = JobSpec.builder(Analysis.BOOTSTRAP).replicates(5000).build();
    assertThat(VoxelwiseAnalysis.prepare(boot, in, 2).smallPartialWork()).isZero();
  }
}
