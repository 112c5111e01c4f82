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
