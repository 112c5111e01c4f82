package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Output;
import org.nlspark.core.tile.Grid;

/**
 * The tile pipeline's GLM equals the single-thread reference {@link GlmRun} bit for bit, whatever
 * the threads and windows per tile (GlmRun itself is checked against OLS refits by hand in
 * {@link GlmRunTest}).
 */
class GlmAnalysisTest {
  private static void assertSameAsReference(DataMatrix y, GlmDesign design,
      GlmContrasts contrasts, GlmRun.Options o) {
    GlmAnalysis first = GlmAnalysis.prepare(y, design, contrasts, o, "cpu", 1.0);
    GlmResult reference = GlmRun.run(first.model(), y, first.options());
    for (int threads : new int[] {1, 3}) {
      for (Integer perTile : new Integer[] {null, 1, 2, 5}) {
        GlmAnalysis a = GlmAnalysis.prepare(y, design, contrasts, o, "cpu", 1.0);
        RunReport report = new LocalEngine(threads, o.grid(), perTile).run(a);
        List<Output> outputs = report.result.outputs();
        assertThat(outputs).extracting(Output::name)
            .containsExactlyElementsOf(reference.maps().keySet());
        for (Output out : outputs) {
          double[] expected = reference.get(out.name());
          assertThat(out.values()).as("%s, %d threads, %s windows per tile", out.name(), threads,
              perTile).hasSize(expected.length);
          for (int i = 0; i < expected.length; i++) {
            assertThat(Double.doubleToRawLongBits(out.values()[i])).as("%s[%d]", out.name(), i)
                .isEqualTo(Double.doubleToRawLongBits(expected[i]));
          }
        }
        assertThat(report.result.facts()).containsEntry("undefined_voxels", 0);
        assertThat(report.flops).isPositive();
      }
    }
  }

  @Test
  void randomDrawsEqualTheReferenceBitForBit() {
    int n = 14;
    int v = 11;
    double[][] m = GlmContrastStatisticTest.design(n, 90);
    double[][] y = GlmContrastStatisticTest.data(m, v, 91);
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, -1, 0}},
        new int[][] {{0, 1}});
    for (Tail tail : new Tail[] {Tail.UPPER, Tail.TWO}) {
      GlmRun.Options o = GlmRun.Options.defaults(150, 5).withGrid(new Grid(4, 16))
          .withTail(tail).withErrors(GlmDraws.Errors.BOTH).withFwerAcrossContrasts(true);
      assertSameAsReference(DataMatrix.of(n, v, GlmContrastStatisticTest.rowMajor(y), "y"),
          GlmContrastStatisticTest.named(m), contrasts, o);
    }
  }

  /** Each contrast enumerates its own number of distinct draws: 720 and 20 of P = 1000. */
  @Test
  void contrastsEnumeratedWithDifferentReplicateCounts() {
    int n = 6;
    double[] x = {0.3, -1.2, 0.8, 2.1, -0.4, 1.5};
    double[][] m = new double[n][];
    for (int i = 0; i < n; i++) {
      m[i] = new double[] {1.0, x[i], i < 3 ? 1.0 : 0.0};
    }
    double[][] y = GlmContrastStatisticTest.data(GlmContrastStatisticTest.design(n, 92), 5, 93);
    DataMatrix data = DataMatrix.of(n, 5, GlmContrastStatisticTest.rowMajor(y), "y");
    GlmRun.Options o = GlmRun.Options.defaults(1000, 3).withGrid(new Grid(2, 64));
    GlmAnalysis a = GlmAnalysis.prepare(data, GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, null), o, "auto", 1.0);
    assertThat(a.replicates()).isEqualTo(720);
    RunReport report = new LocalEngine(2, o.grid(), 3).run(a);
    assertThat(report.result.output("null_max_tstat1")).hasSize(720);
    assertThat(report.result.output("null_max_tstat2")).hasSize(20);
    @SuppressWarnings("unchecked")
    Map<String, Object> resampling = (Map<String, Object>) report.summary().get("resampling");
    assertThat(resampling).containsEntry("exact_enumeration", true);
    assertSameAsReference(data, GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0}, {0, 0, 1}}, null), o);
  }

  @Test
  void withinBlockDrawsEqualTheReference() {
    int n = 16;
    int v = 9;
    double[][] m = GlmContrastStatisticTest.design(n, 94);
    double[][] y = GlmContrastStatisticTest.data(m, v, 95);
    int[] blocks = new int[n];
    for (int i = 0; i < n; i++) {
      blocks[i] = i / 4; // the group (i % 2) varies within every block, so permutations move it
    }
    GlmRun.Options o = GlmRun.Options.defaults(200, 8).withGrid(new Grid(3, 32))
        .withBlocks(blocks, "blocks.csv", false);
    assertSameAsReference(DataMatrix.of(n, v, GlmContrastStatisticTest.rowMajor(y), "y"),
        GlmContrastStatisticTest.named(m), GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null),
        o.withFwerAcrossContrasts(false));
  }

  @Test
  void summaryNamesTheModelAndFindingsPerContrast() {
    int n = 12;
    double[][] m = GlmContrastStatisticTest.design(n, 96);
    double[][] y = GlmContrastStatisticTest.data(m, 7, 97);
    GlmRun.Options o = GlmRun.Options.defaults(100, 1).withGrid(new Grid(4, 16));
    GlmAnalysis a = GlmAnalysis.prepare(DataMatrix.of(n, 7,
        GlmContrastStatisticTest.rowMajor(y), "y"), GlmContrastStatisticTest.named(m),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, null), o, null, 1.0);
    Map<String, Object> summary = new LocalEngine(1, o.grid(), null).run(a).summary();
    assertThat(summary).containsEntry("command", "glm");
    @SuppressWarnings("unchecked")
    Map<String, Object> params = (Map<String, Object>) summary.get("parameters");
    assertThat(params).containsEntry("method", "freedman-lane")
        .containsEntry("errors", "exchangeable").containsEntry("tail", "upper");
    @SuppressWarnings("unchecked")
    Map<String, Object> findings = (Map<String, Object>) summary.get("findings");
    assertThat(findings).containsEntry("statistic", "tstat1").containsKey("p_below_0_05")
        .containsKey("p_fwer_below_0_05").containsKey("contrasts");
    @SuppressWarnings("unchecked")
    Map<String, Object> per = (Map<String, Object>) findings.get("contrasts");
    assertThat(per).containsOnlyKeys("tstat1", "tstat2");
  }

  /** Partials merged in reverse and shuffled order, from a runner that went through Java
   * serialization (as to a Spark executor), give the reference bits. */
  @Test
  void partialsMergeInAnyOrderFromASerializedRunner() throws Exception {
    int n = 12;
    int v = 9;
    double[][] m = GlmContrastStatisticTest.design(n, 99);
    double[][] y = GlmContrastStatisticTest.data(m, v, 100);
    DataMatrix data = DataMatrix.of(n, v, GlmContrastStatisticTest.rowMajor(y), "y");
    GlmRun.Options o = GlmRun.Options.defaults(300, 4).withGrid(new Grid(4, 32))
        .withFwerAcrossContrasts(true);
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 1}},
        new int[][] {{0, 1}});
    GlmAnalysis a = GlmAnalysis.prepare(data, GlmContrastStatisticTest.named(m), contrasts, o,
        "cpu", 1.0);
    GlmResult reference = GlmRun.run(a.model(), data, a.options());
    org.nlspark.core.tile.TilePlan plan = org.nlspark.core.tile.TilePlanner.plan(a,
        org.nlspark.core.memory.MemoryBudget.explicit(1.0), 3).withWindowsPerTile(2);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(a.runner(plan));
      out.writeObject(a.data());
    }
    org.nlspark.core.tile.TileRunner runner;
    Object shipped;
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      runner = (org.nlspark.core.tile.TileRunner) in.readObject();
      shipped = in.readObject();
    }
    List<org.nlspark.core.tile.TileSpec> tiles = new java.util.ArrayList<>(plan.tiles());
    assertThat(tiles.size()).isGreaterThan(4);
    java.util.Collections.reverse(tiles);
    java.util.Collections.swap(tiles, 0, tiles.size() / 2);
    org.nlspark.core.tile.TileMerger merger = a.merger(plan);
    for (org.nlspark.core.tile.TileSpec t : tiles) {
      merger.add(runner.run(shipped, t, 0));
    }
    org.nlspark.core.result.Result result = merger.finish();
    for (String name : reference.maps().keySet()) {
      assertThat(result.output(name)).as(name).isEqualTo(reference.get(name));
    }
  }

  @Test
  void refusesBadDataAndAGpuBeforeAnyWork() {
    double[][] m = GlmContrastStatisticTest.design(5, 98);
    GlmContrasts c = GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null);
    GlmRun.Options o = GlmRun.Options.defaults(10, 1);
    assertThatThrownBy(() -> GlmAnalysis.prepare(DataMatrix.of(1, 2, new double[2], "y"),
        GlmContrastStatisticTest.named(new double[][] {{1, 2, 3, 4}}), c, o, "cpu", 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run glm: --input must have at least 2 samples, but has 1");
    assertThatThrownBy(() -> GlmAnalysis.prepare(DataMatrix.of(5, 2, new double[10], "y"),
        GlmContrastStatisticTest.named(m), c, o, "gpu", 1.0))
        .isInstanceOf(ResourceRefusedException.class).hasMessageContaining("--backend cpu");
  }
}
