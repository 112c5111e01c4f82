package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/**
 * {@code --tail-approximation} on the uncorrected p of the max-T commands, against a brute force:
 * every replicate's statistic of every voxel is stored here (the kernels over the run's voxel
 * blocks and windows), each voxel's whole null goes through {@link ParetoTailTest#bruteFit} (the
 * naive palm_pareto), and p per voxel must be that fit's (N_tail/P)·S(key − u) where the
 * permutation p is below 0.1 and a fit passes with the key above u, else the permutation p bit
 * for bit. Also: a strong effect gets p below 1/(P + 1); the partials merge in any order to the
 * same bytes; the retained size is the one the search needs.
 */
public class UncorrectedTailApproximationTest {
  static final int N = 20;
  static final int V = 40;
  static final int P = 400;
  static final Grid GRID = new Grid(16, 64);

  static double[] gaussian(long seed, int rows, int cols) {
    Random rng = new Random(seed);
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian();
    }
    return x;
  }

  static JobInputs inputs(Analysis analysis) {
    double[] x = gaussian(31, N, V);
    for (int i = 0; i < N; i++) {
      x[i * V] += 3.0; // beyond every null value
      x[i * V + 1] += 0.8;
      x[i * V + 17] += 0.6;
    }
    DataMatrix xm = DataMatrix.of(N, V, x, "x");
    switch (analysis) {
      case TWO_SAMPLE:
        return JobInputs.twoGroups(xm, DataMatrix.of(N, V, gaussian(32, N, V), "y"));
      case CORRELATION: {
        double[] target = gaussian(33, N, 1);
        double[] z = gaussian(34, N, V);
        for (int i = 0; i < N; i++) {
          z[i * V + 2] = target[i] + 0.3 * z[i * V + 2]; // voxel 2 strongly correlated
        }
        return JobInputs.withTarget(DataMatrix.of(N, V, z, "x"), target);
      }
      default:
        return JobInputs.of(xm);
    }
  }

  static JobSpec spec(Analysis a, String statistic, Tail tail, boolean approx) {
    return JobSpec.builder(a).statistic(statistic).replicates(P).seed(5).tail(tail)
        .tailApproximation(approx).build();
  }

  /** Every replicate's key of every voxel, [voxel][replicate], as the tiles compute them. */
  static double[][] storedNulls(JobSpec spec, JobInputs inputs) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    long replicates = resampling.replicates();
    double[][] nulls = new double[V][(int) replicates];
    for (int block = 0; block < GRID.blocks(V); block++) {
      int from = GRID.blockStart(block);
      int to = GRID.blockEnd(block, V);
      int b = to - from;
      BlockStatistic kernel = Kernels.create(spec, inputs, resampling, from, to, GRID.window());
      double[] buf = new double[GRID.window() * b];
      for (long first = 0; first < replicates; first += GRID.window()) {
        int rows = (int) Math.min(GRID.window(), replicates - first);
        kernel.compute(first, rows, buf);
        for (int r = 0; r < rows; r++) {
          for (int e = 0; e < b; e++) {
            nulls[from + e][(int) first + r] = spec.tail().key(buf[r * b + e]);
          }
        }
      }
    }
    return nulls;
  }

  /**
   * The brute-force check of one uncorrected p map; returns how many voxels the fit replaced.
   */
  public static int checkAgainstBruteForce(double[] p, double[] perm, double[] stat, double[][] nulls,
      Tail tail, String what) {
    int replaced = 0;
    for (int v = 0; v < p.length; v++) {
      double key = tail.key(stat[v]);
      double[] fit = perm[v] < ParetoTail.P_THRESHOLD ? ParetoTailTest.bruteFit(nulls[v]) : null;
      if (fit == null || !(key > fit[0])) {
        assertThat(p[v]).as("%s[%d] keeps its permutation p", what, v).isEqualTo(perm[v]);
        continue;
      }
      double want = fit[4] / nulls[v].length
          * ParetoTailTest.survival(key - fit[0], fit[1], fit[2]);
      assertThat(p[v]).as("%s[%d] is the fit of its own null", what, v)
          .isCloseTo(want, within(1e-10 * Math.max(want, 1e-300)));
      replaced++;
    }
    return replaced;
  }

  static RunReport run(JobSpec spec, JobInputs inputs, int threads) {
    return new LocalEngine(threads, GRID, 2).run(spec, inputs);
  }

  @SuppressWarnings("unchecked")
  static void checkCommand(Analysis a, String statistic, Tail tail, int strong) {
    JobInputs in = inputs(a);
    RunReport approx = run(spec(a, statistic, tail, true), in, 3);
    RunReport plain = run(spec(a, statistic, tail, false), in, 3);
    assertThat(approx.plan.tileCount()).isGreaterThan(4);
    double[][] nulls = storedNulls(spec(a, statistic, tail, false), in);
    double[] p = approx.result.output("p");
    double[] perm = plain.result.output("p");
    String what = a + " " + statistic + " " + tail;
    int replaced = checkAgainstBruteForce(p, perm, plain.result.output("observed"), nulls,
        tail, what);
    assertThat(replaced).as("%s: voxels fitted", what).isPositive();
    assertThat(perm[strong]).isEqualTo(1.0 / (P + 1));
    assertThat(p[strong]).as("%s: the strong voxel", what).isLessThan(1.0 / (P + 1));
    // every other map unchanged (the FWER maps are refined later, from null_max, by the API)
    for (Output o : plain.result.outputs()) {
      if (!o.name().equals("p")) {
        assertThat(approx.result.output(o.name())).as(o.name()).isEqualTo(o.values());
      }
    }
    Map<String, Object> fits = (Map<String, Object>) approx.result.facts()
        .get("tail_approximation");
    Map<String, Object> f = (Map<String, Object>) fits.get("p");
    int below = 0;
    for (double v : perm) {
      below += v < 0.1 ? 1 : 0;
    }
    assertThat(f).containsEntry("voxels_fitted", replaced)
        .containsEntry("voxels_below_0.1", below)
        .containsEntry("voxels_fell_back", below - replaced)
        .containsEntry("retained_per_voxel", ParetoTail.retainedTailSize(P));
    assertThat(plain.result.facts()).doesNotContainKey("tail_approximation");
    assertThat(approx.plan.tailSize()).isEqualTo(ParetoTail.retainedTailSize(P));
    assertThat(plain.plan.tailSize()).isZero();
    // another thread count and tiles of other sizes: the same bits
    RunReport other = new LocalEngine(1, GRID, 1).run(spec(a, statistic, tail, true), in);
    assertSame(approx.result, other.result, what + " other tiling");
  }

  static void assertSame(Result a, Result b, String what) {
    assertThat(b.outputs()).hasSameSizeAs(a.outputs());
    for (Output o : a.outputs()) {
      assertThat(b.output(o.name())).as(what + " " + o.name()).isEqualTo(o.values());
    }
    assertThat(b.facts()).as(what).isEqualTo(a.facts());
  }

  @Test
  void oneSampleUncorrectedPIsTheFitOfEachVoxelsOwnNull() {
    checkCommand(Analysis.ONE_SAMPLE, "t", Tail.UPPER, 0);
    checkCommand(Analysis.ONE_SAMPLE, "t", Tail.TWO, 0);
    checkCommand(Analysis.ONE_SAMPLE, "mean", Tail.TWO, 0);
  }

  @Test
  void twoSampleAndCorrelationUncorrectedPAreFittedToo() {
    checkCommand(Analysis.TWO_SAMPLE, "welch-t", Tail.UPPER, 0);
    checkCommand(Analysis.CORRELATION, "pearson", Tail.TWO, 2);
  }

  @Test
  void partialsMergeInAnyOrderToTheSameBytes() {
    JobInputs in = inputs(Analysis.ONE_SAMPLE);
    VoxelwiseAnalysis job = VoxelwiseAnalysis.prepare(spec(Analysis.ONE_SAMPLE, "t", Tail.TWO, true), in, 3,
        GRID);
    TilePlan plan = TilePlanner.plan(job, MemoryBudget.explicit(1.0), 3).withWindowsPerTile(2);
    TileRunner runner = job.runner(plan);
    List<byte[]> parts = new ArrayList<>();
    for (TileSpec t : plan.tiles()) {
      byte[] first = runner.run(job.data(), t, 0);
      PartialResult once = PartialResult.fromBytes(first);
      PartialResult again = PartialResult.fromBytes(runner.run(job.data(), t, 0));
      assertThat(once.tails).as("the tile's null tails").isNotNull();
      assertThat(again.tails.toBytes()).as("a retried tile's tails")
          .isEqualTo(once.tails.toBytes());
      assertThat(again.counts.toBytes()).isEqualTo(once.counts.toBytes());
      parts.add(first);
    }
    assertThat(parts).hasSizeGreaterThan(8);
    Result reference = null;
    List<byte[]> blockBytes = new ArrayList<>();
    Random rng = new Random(3);
    for (int order = 0; order < 6; order++) {
      List<byte[]> shuffled = new ArrayList<>(parts);
      if (order == 1) {
        Collections.reverse(shuffled);
      } else if (order > 1) {
        Collections.shuffle(shuffled, rng);
      }
      TileMerger merger = job.merger(plan);
      for (byte[] b : shuffled) {
        merger.add(b);
      }
      Result r = merger.finish();
      // the merged null tails of every block, as bytes
      for (int block = 0; block < plan.blocks(); block++) {
        org.nlspark.core.accumulate.TailAccumulator merged =
            org.nlspark.core.accumulate.TailAccumulator.upperOnly(
                GRID.blockEnd(block, V) - GRID.blockStart(block), plan.tailSize());
        for (byte[] bytes : shuffled) {
          PartialResult part = PartialResult.fromBytes(bytes);
          if (part.tile.block() == block) {
            merged.merge(part.tails);
          }
        }
        byte[] mergedBytes = merged.toBytes();
        if (order == 0) {
          blockBytes.add(mergedBytes);
        } else {
          assertThat(mergedBytes).as("block %d, order %d", block, order)
              .isEqualTo(blockBytes.get(block));
        }
      }
      if (reference == null) {
        reference = r;
      } else {
        assertSame(reference, r, "merge order " + order);
      }
    }
  }

  @Test
  void theRetainedTailIsWhatTheSearchReadsOfTheWholeNull() {
    Random rng = new Random(4);
    for (int n : new int[] {2, 3, 7, 50, 99, 100, 101, 400, 999, 1000, 1001, 5000}) {
      int k = ParetoTail.retainedTailSize(n);
      assertThat(k).isBetween(1, n);
      // the first tail start's first value is the (k-1)-th from the top, so the value before it
      // is the smallest retained
      int first = -1;
      for (int i = 0; i < n && first < 0; i++) {
        first = (double) (i + 1) / n >= 0.751 ? i : -1;
      }
      assertThat(k).as("n=%d", n).isEqualTo(Math.min(n, n - first + 1));
      double[] nulls = new double[n];
      for (int i = 0; i < n; i++) {
        nulls[i] = rng.nextGaussian();
      }
      double[] sorted = nulls.clone();
      java.util.Arrays.sort(sorted);
      ParetoTail.Fit whole = ParetoTail.fit(nulls);
      ParetoTail.Fit top = ParetoTail.fitUpperTail(
          java.util.Arrays.copyOfRange(sorted, n - k, n), n);
      assertThat(top).as("n=%d", n).isEqualTo(whole);
    }
    assertThatThrownBy(() -> ParetoTail.retainedTailSize(0))
        .hasMessageContaining("must have >= 1 value");
  }

  @Test
  void tailsTheBudgetCannotHoldAreRefusedWithTheSizes() {
    TilePlan plan = new TilePlan(Grid.DEFAULT, 200_000, 5000, 1, 1, 1, 1251, 2.0, "explicit");
    assertThatThrownBy(() -> org.nlspark.core.tile.VoxelNullTails.allocate(plan, 1251))
        .isInstanceOf(org.nlspark.core.ResourceRefusedException.class)
        .hasMessage("Cannot keep the null tails of --tail-approximation: 200000 voxels x 1251"
            + " retained null values need 4.00 GB on the driver, more than the 2.00 GB budget;"
            + " lower --permutations, mask fewer voxels, raise --memory-budget-gb or drop"
            + " --tail-approximation");
    // a tile's cost counts the tails: 2·k keys per voxel of its block
    JobInputs in = inputs(Analysis.ONE_SAMPLE);
    JobSpec with = spec(Analysis.ONE_SAMPLE, "t", Tail.TWO, true);
    long tail = TilePlanner.tailSize(with, P);
    assertThat(TilePlanner.bytesPerTile(with, in, GRID, 1, (int) tail)
        - TilePlanner.bytesPerTile(spec(Analysis.ONE_SAMPLE, "t", Tail.TWO, false), in, GRID, 1,
            0)).isEqualTo(16L * tail * GRID.voxelBlock());
  }

  @Test
  void theGpuBackendIsRefusedWithAPointer() {
    JobSpec s = spec(Analysis.ONE_SAMPLE, "t", Tail.TWO, true).toBuilder().backend("gpu")
        .build();
    org.nlspark.core.backend.GpuProbe gpu = org.nlspark.core.backend.FakeGpus.usable();
    assertThatThrownBy(() -> VoxelwiseAnalysis.prepare(s, inputs(Analysis.ONE_SAMPLE), 1, GRID, gpu))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run --tail-approximation on the GPU backend: the per-voxel null"
            + " tails of the uncorrected p are kept by the CPU tiles only; use --backend cpu");
  }
}
