package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.stats.ParetoTail;
import org.nlspark.core.stats.UncorrectedTailApproximationTest;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;

/**
 * {@code --tail-approximation} on glm's uncorrected {@code p_tstat{c}} and {@code p_fstat{f}}:
 * every draw's statistic of every voxel stored here (the contrast kernels over the run's blocks),
 * each voxel's whole null through the naive palm_pareto of the stats tests, p per voxel compared;
 * the strong effect's p below 1/(P + 1); tiles merged in any order to the same bytes.
 */
class GlmTailApproximationTest {
  static final int N = 24;
  static final int V = 36;
  static final int P = 300;
  static final Grid GRID = new Grid(8, 64);

  static GlmDesign design() {
    double[][] m = new double[N][];
    Random rng = new Random(2);
    for (int i = 0; i < N; i++) {
      m[i] = new double[] {1.0, i % 2, rng.nextGaussian()};
    }
    return new GlmDesign(m, new String[] {"intercept", "group", "age"}, "design.csv");
  }

  static DataMatrix data(GlmDesign d) {
    Random rng = new Random(3);
    double[] y = new double[N * V];
    for (int i = 0; i < N; i++) {
      for (int v = 0; v < V; v++) {
        y[i * V + v] = rng.nextGaussian() + 0.3 * d.values()[i][2];
      }
      y[i * V] += 2.5 * (i % 2); // a strong group effect
      y[i * V + 5] += 0.9 * (i % 2);
    }
    return DataMatrix.of(N, V, y, "y");
  }

  static GlmContrasts contrasts() {
    return GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, new int[][] {{0, 1}});
  }

  static GlmAnalysis analysis(boolean approx) {
    GlmDesign d = design();
    GlmRun.Options o = GlmRun.Options.defaults(P, 7).withGrid(GRID).withTail(Tail.TWO);
    return GlmAnalysis.prepare(data(d), d, contrasts(), o, "cpu", 1.0)
        .withTailApproximation(approx);
  }

  /** Every draw's key of every voxel for contrast c, [voxel][draw]. */
  static double[][] storedNulls(GlmAnalysis a, int c) {
    GlmContrast contrast = a.model().contrasts().get(c);
    GlmDraws d = a.draws().get(c);
    Tail tail = GlmRun.tailOf(contrast, a.options().tTail());
    DataMatrix y = data(design());
    long replicates = d.replicates();
    double[][] nulls = new double[V][(int) replicates];
    for (int block = 0; block < GRID.blocks(V); block++) {
      int from = GRID.blockStart(block);
      int b = GRID.blockEnd(block, V) - from;
      GlmContrastStatistic k = new GlmContrastStatistic(a.model(), contrast, d,
          y.copyColumns(from, from + b), b, GRID.window(), a.options().precision());
      double[] buf = new double[GRID.window() * b];
      for (long w = 0; w < replicates; w += GRID.window()) {
        int rows = (int) Math.min(GRID.window(), replicates - w);
        k.compute(w, rows, buf);
        for (int r = 0; r < rows; r++) {
          for (int e = 0; e < b; e++) {
            nulls[from + e][(int) w + r] = tail.key(buf[r * b + e]);
          }
        }
      }
    }
    return nulls;
  }

  @Test
  @SuppressWarnings("unchecked")
  void eachContrastsUncorrectedPIsTheFitOfEachVoxelsOwnNull() {
    GlmAnalysis a = analysis(true);
    RunReport approx = new LocalEngine(3, GRID, 2).run(a);
    RunReport plain = new LocalEngine(3, GRID, 2).run(analysis(false));
    assertThat(approx.plan.tileCount()).isGreaterThan(4);
    Map<String, Object> fits = (Map<String, Object>) approx.result.facts()
        .get("tail_approximation");
    int total = 0;
    List<String> refined = new ArrayList<>();
    for (int c = 0; c < a.model().contrasts().size(); c++) {
      GlmContrast contrast = a.model().contrasts().get(c);
      String name = contrast.outputName();
      refined.add("p_" + name);
      Tail tail = GlmRun.tailOf(contrast, a.options().tTail());
      int replaced = UncorrectedTailApproximationTest.checkAgainstBruteForce(
          approx.result.output("p_" + name), plain.result.output("p_" + name),
          plain.result.output(name), storedNulls(a, c), tail, "glm " + name);
      Map<String, Object> f = (Map<String, Object>) fits.get("p_" + name);
      assertThat(f).as(name).containsEntry("voxels_fitted", replaced)
          .containsEntry("retained_per_voxel", ParetoTail.retainedTailSize(P));
      total += replaced;
    }
    assertThat(refined).contains("p_tstat1", "p_tstat2", "p_fstat1");
    assertThat(total).isPositive();
    assertThat(plain.result.output("p_tstat1")[0]).isEqualTo(1.0 / (P + 1));
    assertThat(approx.result.output("p_tstat1")[0]).as("the strong voxel")
        .isLessThan(1.0 / (P + 1));
    assertThat(approx.result.output("p_fstat1")[0]).isLessThan(1.0 / (P + 1));
    for (Output o : plain.result.outputs()) {
      if (!refined.contains(o.name())) {
        assertThat(approx.result.output(o.name())).as(o.name()).isEqualTo(o.values());
      }
    }
    assertThat(plain.result.facts()).doesNotContainKey("tail_approximation");
    assertThat(plain.summary().toString()).doesNotContain("tail_approximation");
    assertThat(((Map<String, Object>) approx.summary().get("parameters")))
        .containsEntry("tail_approximation", true);
  }

  @Test
  void partialsMergeInAnyOrderToTheSameBytes() {
    GlmAnalysis a = analysis(true);
    TilePlan plan = TilePlanner.plan(a, MemoryBudget.explicit(1.0), 3).withWindowsPerTile(1);
    TileRunner runner = a.runner(plan);
    List<byte[]> parts = new ArrayList<>();
    for (TileSpec t : plan.tiles()) {
      byte[] once = runner.run(a.data(), t, 0);
      GlmAnalysis.Partial p = GlmAnalysis.fromBytes(once);
      GlmAnalysis.Partial again = GlmAnalysis.fromBytes(runner.run(a.data(), t, 0));
      for (int c = 0; c < p.contrasts().size(); c++) {
        assertThat(p.contrasts().get(c).nullTails()).isNotNull();
        assertThat(again.contrasts().get(c).nullTails().toBytes()).as("retried tile")
            .isEqualTo(p.contrasts().get(c).nullTails().toBytes());
      }
      parts.add(once);
    }
    Result reference = null;
    Random rng = new Random(5);
    for (int order = 0; order < 5; order++) {
      List<byte[]> shuffled = new ArrayList<>(parts);
      Collections.shuffle(shuffled, rng);
      TileMerger merger = a.merger(plan);
      for (byte[] b : shuffled) {
        merger.add(b);
      }
      Result r = merger.finish();
      if (reference == null) {
        reference = r;
        continue;
      }
      for (Output o : reference.outputs()) {
        assertThat(r.output(o.name())).as("order %d %s", order, o.name())
            .isEqualTo(o.values());
      }
      assertThat(r.facts()).isEqualTo(reference.facts());
    }
  }
}
