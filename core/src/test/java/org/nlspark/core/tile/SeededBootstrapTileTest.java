package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;

/**
 * A bootstrap tile whose tails start at the kernel's bounds (TileExecutor's seeding) against the
 * same tile unseeded: the same partial bytes for every tile, with voxels far from normal (one
 * outlier among zeros, two-valued, constant) among Gaussian ones, so that some seeded voxels come
 * out short and are recomputed, and for mean, sum and std (which has no bounds).
 */
class SeededBootstrapTileTest {

  @Test
  void seededTilesGiveTheUnseededBytes() {
    long recomputed = 0;
    for (String statistic : new String[] {"mean", "sum", "std"}) {
      for (double confidence : new double[] {0.9, 0.95}) {
        recomputed += compare(statistic, confidence, 2_000, 1);
      }
    }
    // windows split over tiles: each tile seeds for its own rows
    recomputed += compare("mean", 0.95, 3_000, 2);
    assertThat(recomputed).as("voxels recomputed after a short seeded tail").isPositive();
  }

  /** Returns the voxels recomputed by the seeded run. */
  private static long compare(String statistic, double confidence, long replicates, int slots) {
    int n = 40;
    int v = 300;
    JobInputs in = inputs(n, v);
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic(statistic)
        .replicates(replicates).seed(5).confidence(confidence).ci(CiMethod.PERCENTILE).build();
    ResamplingPlan rp = ResamplingPlan.forJob(spec, in);
    TilePlan plan = TilePlanner.plan(spec, in, rp, new Grid(128, 64),
        MemoryBudget.explicit(4.0), slots);
    assertThat(plan.tailSize()).isPositive();
    if (slots > 1) {
      assertThat(plan.tiles()).as("tiles of part of the windows")
          .anyMatch(t -> t.windowCount() < plan.windows() && t.windowCount() * 64L >= 8L * plan.tailSize());
    }
    long before = TileExecutor.RECOMPUTED_VOXELS.get();
    boolean saved = TileExecutor.seededTails;
    try {
      for (TileSpec tile : plan.tiles()) {
        TileExecutor.seededTails = false;
        byte[] unseeded = results(TileExecutor.execute(spec, in, rp, plan, tile));
        TileExecutor.seededTails = true;
        byte[] seeded = results(TileExecutor.execute(spec, in, rp, plan, tile));
        assertThat(seeded).as("%s c=%s B=%d tile %s", statistic, confidence, replicates, tile)
            .isEqualTo(unseeded);
      }
    } finally {
      TileExecutor.seededTails = saved;
    }
    return TileExecutor.RECOMPUTED_VOXELS.get() - before;
  }

  /** The partial without its kernel time and flops (a recomputed voxel costs more work). */
  private static byte[] results(PartialResult p) {
    return new PartialResult(p.tile, p.observed, p.counts, p.nullMax, p.tails, p.samples,
        p.windowMoments, 0, 0, p.undefinedVoxels).toBytes();
  }

  private static JobInputs inputs(int n, int v) {
    SplittableRandom rng = new SplittableRandom(9);
    double[] x = new double[n * v];
    for (int c = 0; c < v; c++) {
      for (int i = 0; i < n; i++) {
        double value;
        switch (c % 5) {
          case 0: value = i == 3 ? 1e6 : 0.0; break;         // one outlier among zeros
          case 1: value = i % 2 == 0 ? -1.0 : 2.0; break;     // two values
          case 2: value = 7.25; break;                        // constant: not seeded
          default: value = rng.nextGaussian() * (1 + c % 3);
        }
        x[i * v + c] = value;
      }
    }
    return JobInputs.of(DataMatrix.of(n, v, x, "x"));
  }
}
