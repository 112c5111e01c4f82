package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.nlspark.core.tfce.SmallBrain.NI;
import static org.nlspark.core.tfce.SmallBrain.NJ;
import static org.nlspark.core.tfce.SmallBrain.NK;
import static org.nlspark.core.tfce.SmallBrain.SMALL;
import static org.nlspark.core.tfce.SmallBrain.count;
import static org.nlspark.core.tfce.SmallBrain.keys;
import static org.nlspark.core.tfce.SmallBrain.mask;
import static org.nlspark.core.tfce.SmallBrain.max;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceReference;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tfce.SmallBrain;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;

/**
 * {@code glm --tfce --cluster-threshold} against a brute force on a small grid with nuisance
 * covariates: every replicate's map of every contrast is stored, enhanced by the textbook loop
 * ({@link TfceReference}: one breadth-first labelling per threshold), its clusters labelled, and
 * the p-values counted by hand. The kernel grid has 16-voxel blocks, so the effect blobs straddle
 * block boundaries.
 */
class GlmWholeMapAnalysisTest {
  static final int CONSTANT_VOXEL = 17;
  static final double THRESHOLD = 2.0;

  /**
   * Intercept, group, age, a covariate (n x 4): a group blob in one corner, a negative age blob
   * in the other, noise elsewhere, and one constant voxel (no statistic for any contrast).
   */
  static DataMatrix data(double[][] design, boolean[] mask, long seed) {
    Random rng = new Random(seed);
    int n = design.length;
    int voxels = count(mask);
    double[] y = new double[n * voxels];
    for (int s = 0; s < n; s++) {
      int v = 0;
      for (int i = 0; i < NI; i++) {
        for (int j = 0; j < NJ; j++) {
          for (int k = 0; k < NK; k++) {
            if (!mask[(i * NJ + j) * NK + k]) {
              continue;
            }
            double group = i < 3 && j < 3 ? 1.6 : 0;
            double age = i >= 4 && j >= 3 ? -0.12 : 0;
            y[s * voxels + v] = v == CONSTANT_VOXEL ? 2.0
                : 3.0 + group * design[s][1] + age * design[s][2] + rng.nextGaussian();
            v++;
          }
        }
      }
    }
    return DataMatrix.of(n, voxels, y, "y");
  }

  /** t of group, t of age, and F of both. */
  static GlmContrasts contrasts() {
    return GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[][] {{0, 1}});
  }

  static GlmWholeMapAnalysis prepare(DataMatrix y, double[][] design, GlmContrasts contrasts,
      GlmRun.Options o, MaskGrid grid, boolean tfce, Double threshold) {
    return GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design), contrasts, o, "cpu",
        1.0).withWholeMaps(grid, tfce, threshold);
  }

  /** Every replicate's map of contrast c (row r = replicate r), by the contrast's own kernel. */
  static double[][] maps(GlmModel model, GlmContrast c, GlmDraws draws, DataMatrix y, Grid grid,
      GlmRun.Options o, double[] observed) {
    return SmallBrain.maps(y.cols(), (int) draws.replicates(), grid,
        (from, to) -> new GlmContrastStatistic(model, c, draws, y.copyColumns(from, to),
            to - from, grid.window(), o.precision()), observed);
  }


  /**
   * The observed statistic as written, block by block on the grid: t or F, or with variance
   * groups v and G (whose z {@link #maps} gives, as the counts see them).
   */
  static double[] written(GlmModel model, GlmContrast c, GlmDraws draws, DataMatrix y,
      Grid grid, GlmRun.Options o) {
    double[] out = new double[y.cols()];
    for (int block = 0; block < grid.blocks(y.cols()); block++) {
      int from = grid.blockStart(block);
      int to = grid.blockEnd(block, y.cols());
      double[] part = new double[to - from];
      new GlmContrastStatistic(model, c, draws, y.copyColumns(from, to), to - from,
          grid.window(), o.precision()).observedStatistic(part);
      System.arraycopy(part, 0, out, from, part.length);
    }
    return out;
  }

  static double p(long count, long draws, boolean enumerated) {
    return enumerated ? (double) count / draws : (count + 1.0) / (draws + 1.0);
  }

  /**
   * Runs the analysis and checks every contrast's whole-map outputs against the brute force, and
   * its voxelwise outputs against {@link GlmRun#run} bit for bit. Returns the result.
   */
  static Result checkAgainstBruteForce(DataMatrix y, double[][] design, GlmContrasts contrasts,
      GlmRun.Options o, boolean[] m, int threads, Integer windowsPerTile) {
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    // Cluster mass too, at the extent's height; clusters 26-connected (the default).
    GlmWholeMapAnalysis a = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design),
        contrasts, o, "cpu", 1.0).withWholeMaps(grid,
        WholeMapSettings.of(true, THRESHOLD).withClusterMass(THRESHOLD));
    int connectivity = WholeMapSettings.DEFAULT_CLUSTER_CONNECTIVITY;
    Result result = new LocalEngine(threads, o.grid(), windowsPerTile).run(a).result;
    GlmModel model = a.model();
    GlmResult reference = GlmRun.run(model, y, a.options());

    List<String> expectedNames = new ArrayList<>();
    for (GlmContrast c : model.contrasts()) {
      String s = c.outputName();
      expectedNames.addAll(List.of(s, "p_" + s, "p_fwer_" + s, "null_max_" + s, "tfce_" + s,
          "p_tfce_" + s, "p_fwer_tfce_" + s, "null_max_tfce_" + s, "cluster_size_" + s,
          "p_fwer_cluster_" + s, "null_max_cluster_" + s, "cluster_mass_" + s,
          "p_fwer_cluster_mass_" + s, "null_max_cluster_mass_" + s));
    }
    for (String name : reference.maps().keySet()) {
      if (name.startsWith("p_cfwer_")) {
        expectedNames.add(name);
      }
    }
    assertThat(result.outputs()).extracting(Output::name).containsExactlyElementsOf(
        expectedNames);
    for (Map.Entry<String, double[]> e : reference.maps().entrySet()) {
      assertThat(result.output(e.getKey())).as("voxelwise %s as GlmRun", e.getKey())
          .isEqualTo(e.getValue());
    }

    int voxels = grid.voxels();
    for (GlmContrast c : model.contrasts()) {
      String s = c.outputName();
      Tail tail = GlmRun.tailOf(c, a.options().tTail());
      GlmDraws draws = GlmRun.drawsOf(model, c, a.options());
      boolean enumerated = draws.enumerated();
      double[] observed = new double[voxels];
      double[][] maps = maps(model, c, draws, y, o.grid(), a.options(), observed);
      assertThat(result.output(s)).as(s).isEqualTo(written(model, c, draws, y, o.grid(),
          a.options()));

      double[] refTfce = TfceReference.tfce(NI, NJ, NK, m, observed, tail, 0.5, 2, 100);
      double[] tfce = result.output("tfce_" + s);
      double scale = 0;
      for (double t : refTfce) {
        scale = Double.isNaN(t) ? scale : Math.max(scale, Math.abs(t));
      }
      assertThat(scale).as("%s has clusters", s).isGreaterThan(0);
      for (int v = 0; v < voxels; v++) {
        if (Double.isNaN(refTfce[v])) {
          assertThat(tfce[v]).as("%s voxel %d", s, v).isNaN();
        } else {
          assertThat(Math.abs(tfce[v] - refTfce[v])).as("%s voxel %d", s, v)
              .isLessThanOrEqualTo(1e-12 * scale);
        }
      }
      assertThat(tfce[CONSTANT_VOXEL]).as("no statistic, so no score").isNaN();
      assertThat(result.output("p_tfce_" + s)[CONSTANT_VOXEL]).isNaN();

      double[] obsKeys = keys(refTfce, tail);
      int[] obsSizes = TfceReference.clusterSizes(NI, NJ, NK, m, observed, tail, THRESHOLD,
          connectivity);
      double[] obsMass = TfceReference.clusterMasses(NI, NJ, NK, m, observed, tail, THRESHOLD,
          connectivity);
      double[] massMax = new double[maps.length];
      long[] counts = new long[voxels];
      double[] nullMax = new double[maps.length];
      double[] clusterMax = new double[maps.length];
      for (int r = 0; r < maps.length; r++) {
        double[] k = keys(TfceReference.tfce(NI, NJ, NK, m, maps[r], tail, 0.5, 2, 100), tail);
        for (int v = 0; v < voxels; v++) {
          counts[v] += k[v] >= obsKeys[v] ? 1 : 0;
        }
        nullMax[r] = max(k);
        int[] sizes = TfceReference.clusterSizes(NI, NJ, NK, m, maps[r], tail, THRESHOLD,
            connectivity);
        massMax[r] = Arrays.stream(TfceReference.clusterMasses(NI, NJ, NK, m, maps[r], tail,
            THRESHOLD, connectivity)).map(Math::abs).max().orElse(0);
        clusterMax[r] = Arrays.stream(sizes).max().orElse(0);
      }
      double[] gotMax = result.output("null_max_tfce_" + s);
      assertThat(gotMax).hasSize(maps.length);
      for (int r = 0; r < maps.length; r++) {
        assertThat(Math.abs(gotMax[r] - nullMax[r])).as("%s null max %d", s, r)
            .isLessThanOrEqualTo(1e-12 * Math.max(1, nullMax[r]));
      }
      assertThat(result.output("null_max_cluster_" + s)).as(s).isEqualTo(clusterMax);
      double[] pTfce = result.output("p_tfce_" + s);
      double[] pFwerTfce = result.output("p_fwer_tfce_" + s);
      double[] clusterSize = result.output("cluster_size_" + s);
      double[] pFwerCluster = result.output("p_fwer_cluster_" + s);
      for (int v = 0; v < voxels; v++) {
        if (v == CONSTANT_VOXEL) {
          continue;
        }
        long exceed = 0;
        long clusterExceed = 0;
        for (int r = 0; r < maps.length; r++) {
          exceed += nullMax[r] >= obsKeys[v] ? 1 : 0;
          clusterExceed += clusterMax[r] >= obsSizes[v] ? 1 : 0;
        }
        assertThat(pTfce[v]).as("%s p_tfce voxel %d", s, v)
            .isEqualTo(p(counts[v], maps.length, enumerated));
        assertThat(pFwerTfce[v]).as("%s p_fwer_tfce voxel %d", s, v)
            .isEqualTo(p(exceed, maps.length, enumerated));
        assertThat(clusterSize[v]).as("%s cluster_size voxel %d", s, v).isEqualTo(obsSizes[v]);
        assertThat(pFwerCluster[v]).as("%s p_fwer_cluster voxel %d", s, v)
            .isEqualTo(p(clusterExceed, maps.length, enumerated));
        double mass = result.output("cluster_mass_" + s)[v];
        assertThat(Math.abs(mass - obsMass[v])).as("%s cluster_mass voxel %d", s, v)
            .isLessThanOrEqualTo(1e-12 * Math.max(1, Math.abs(obsMass[v])));
        long massExceed = 0;
        for (int r = 0; r < maps.length; r++) {
          massExceed += massMax[r] >= Math.abs(obsMass[v]) - 1e-9 * Math.abs(obsMass[v]) ? 1 : 0;
        }
        assertThat(result.output("p_fwer_cluster_mass_" + s)[v])
            .as("%s p_fwer_cluster_mass voxel %d", s, v)
            .isEqualTo(p(massExceed, maps.length, enumerated));
      }
    }
    return result;
  }

  static int below(double[] p, double alpha) {
    int n = 0;
    for (double x : p) {
      n += x < alpha ? 1 : 0;
    }
    return n;
  }

  @Test
  void tAndFContrastsWithNuisanceEqualABruteForceOverEveryStoredMap() {
    boolean[] m = mask();
    double[][] design = GlmContrastStatisticTest.design(16, 40);
    DataMatrix y = data(design, m, 41);
    for (Tail tail : new Tail[] {Tail.UPPER, Tail.TWO}) {
      GlmRun.Options o = GlmRun.Options.defaults(150, 7).withGrid(SMALL).withTail(tail)
          .withFwerAcrossContrasts(true);
      Result result = checkAgainstBruteForce(y, design, contrasts(), o, m, 2, null);
      assertThat(below(result.output("p_fwer_tfce_tstat1"), 0.05))
          .as("%s: the group blob is found", tail).isGreaterThan(5);
      assertThat(below(result.output("p_fwer_tfce_fstat1"), 0.05))
          .as("%s: the F contrast finds it too", tail).isGreaterThan(5);
      if (tail == Tail.TWO) {
        double[] t2 = result.output("tfce_tstat2");
        int negative = 0;
        for (double t : t2) {
          negative += t < 0 ? 1 : 0;
        }
        assertThat(negative).as("the negative age blob keeps its sign").isGreaterThan(5);
      }
    }
  }

  /**
   * Variance groups (issue 45): TFCE and clusters run on the z of the v and G maps (PALM), their
   * p-values and maxima count on z, across contrasts too, the written maps are v and G, and the
   * outputs follow PALM's names (vstat1, tfce_vstat1, ..., gstat1).
   */
  @Test
  void vAndGMapsGetTfceAndClustersOnTheirZ() {
    boolean[] m = mask();
    double[][] design = GlmContrastStatisticTest.design(16, 40);
    DataMatrix y = data(design, m, 43);
    int[] groups = new int[16];
    for (int i = 0; i < 16; i++) {
      groups[i] = i % 3;
    }
    GlmRun.Options o = GlmRun.Options.defaults(60, 5).withGrid(SMALL)
        .withVarianceGroups(VarianceGroups.of(groups, "vg.csv", 16))
        .withFwerAcrossContrasts(true);
    Result result = checkAgainstBruteForce(y, design, contrasts(), o, m, 2, null);
    assertThat(result.output("tfce_vstat1")).isNotNull();
    assertThat(result.output("tfce_gstat1")).isNotNull();
    // Across contrasts every map is already z: the largest z of each draw over all contrasts.
    GlmWholeMapAnalysis a = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design),
        contrasts(), o, "cpu", 1.0).withWholeMaps(MaskGrid.of(NI, NJ, NK, m),
        WholeMapSettings.of(true, THRESHOLD));
    GlmModel model = a.model();
    int voxels = y.cols();
    double[][][] all = new double[model.contrasts().size()][][];
    double[][] observedZ = new double[all.length][voxels];
    for (int ci = 0; ci < all.length; ci++) {
      GlmContrast c = model.contrasts().get(ci);
      all[ci] = maps(model, c, GlmRun.drawsOf(model, c, a.options()), y, o.grid(), a.options(),
          observedZ[ci]);
      double[] v = result.output(c.outputName());
      for (int x = 0; x < voxels; x++) {
        assertThat(Double.isNaN(v[x]) || v[x] != observedZ[ci][x])
            .as("%s is written as v or G, not as its z, at %d", c.outputName(), x).isTrue();
      }
    }
    for (int ci = 0; ci < all.length; ci++) {
      GlmContrast c = model.contrasts().get(ci);
      Tail tail = GlmRun.tailOf(c, a.options().tTail());
      double[] p = result.output("p_cfwer_" + c.outputName());
      for (int x = 0; x < voxels; x++) {
        if (Double.isNaN(observedZ[ci][x])) {
          continue;
        }
        double key = tail.key(observedZ[ci][x]);
        long exceed = 0;
        for (int r = 0; r < 60; r++) {
          double most = Double.NEGATIVE_INFINITY;
          for (int cj = 0; cj < all.length; cj++) {
            Tail tj = GlmRun.tailOf(model.contrasts().get(cj), a.options().tTail());
            for (int xx = 0; xx < voxels; xx++) {
              double k = tj.key(all[cj][r][xx]);
              most = Double.isNaN(k) ? most : Math.max(most, k);
            }
          }
          exceed += most >= key ? 1 : 0;
        }
        assertThat(p[x]).as("p_cfwer_%s at %d", c.outputName(), x)
            .isEqualTo(p(exceed, 60, false));
      }
    }
  }

  /** Each contrast enumerates its own draws (720 and 20 here): counts and maxima per contrast. */
  @Test
  void contrastsEnumeratedWithDifferentReplicateCountsEqualTheBruteForce() {
    int n = 6;
    double[] x = {0.3, -1.2, 0.8, 2.1, -0.4, 1.5};
    double[][] design = new double[n][];
    for (int i = 0; i < n; i++) {
      design[i] = new double[] {1.0, i < 3 ? 1.0 : 0.0, x[i], 0.0};
    }
    // A fourth column of zeros is refused; drop it: intercept, group, x.
    double[][] three = new double[n][];
    for (int i = 0; i < n; i++) {
      three[i] = Arrays.copyOf(design[i], 3);
    }
    boolean[] m = mask();
    DataMatrix y = data(design, m, 42);
    GlmRun.Options o = GlmRun.Options.defaults(1000, 3).withGrid(SMALL);
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 0, 1}, {0, 1, 0}}, null);
    Result result = checkAgainstBruteForce(y, three, contrasts, o, m, 3, 4);
    assertThat(result.output("null_max_tfce_tstat1")).hasSize(720);
    assertThat(result.output("null_max_tfce_tstat2")).hasSize(20);
    assertThat(result.output("null_max_cluster_tstat2")).hasSize(20);
  }

  @Test
  void outputsAreBitIdenticalForAnyThreadsWindowsPerTileAndMergeOrder() throws Exception {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    double[][] design = GlmContrastStatisticTest.design(12, 43);
    DataMatrix y = data(design, m, 44);
    GlmRun.Options o = GlmRun.Options.defaults(200, 9).withGrid(SMALL).withTail(Tail.TWO);
    Result base = new LocalEngine(1, SMALL, null).run(prepare(y, design, contrasts(), o, grid,
        true, 1.5)).result;
    for (int threads : new int[] {2, 3}) {
      for (Integer perTile : new Integer[] {1, 2, 5}) {
        Result other = new LocalEngine(threads, SMALL, perTile).run(prepare(y, design,
            contrasts(), o, grid, true, 1.5)).result;
        assertSame(base, other, threads + " threads, " + perTile + " windows a tile");
      }
    }

    // Partials from a runner that went through Java serialization, merged in a shuffled order.
    GlmWholeMapAnalysis a = prepare(y, design, contrasts(), o, grid, true, 1.5);
    TilePlan plan = org.nlspark.core.tile.TilePlanner.plan(a, MemoryBudget.explicit(1.0), 3)
        .withWindowsPerTile(1);
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(a.runner(plan));
      out.writeObject(a.data());
    }
    TileRunner runner;
    Object shipped;
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      runner = (TileRunner) in.readObject();
      shipped = in.readObject();
    }
    List<TileSpec> tiles = new ArrayList<>(plan.tiles());
    assertThat(tiles).hasSizeGreaterThan(4);
    Collections.reverse(tiles);
    Collections.swap(tiles, 0, tiles.size() / 2);
    TileMerger merger = a.merger(plan);
    for (TileSpec t : tiles) {
      merger.add(runner.run(shipped, t, 0));
    }
    assertSame(base, merger.finish(), "shuffled merge");
  }

  static void assertSame(Result expected, Result actual, String what) {
    assertThat(actual.outputs()).extracting(Output::name).as(what)
        .containsExactlyElementsOf(expected.outputs().stream().map(Output::name).toList());
    for (Output out : expected.outputs()) {
      double[] got = actual.output(out.name());
      for (int i = 0; i < got.length; i++) {
        assertThat(Double.doubleToRawLongBits(got[i])).as("%s: %s[%d]", what, out.name(), i)
            .isEqualTo(Double.doubleToRawLongBits(out.values()[i]));
      }
    }
  }

  @Test
  void withoutFwerOnlyTheUncorrectedWholeMapOutputsAreWritten() {
    boolean[] m = mask();
    double[][] design = GlmContrastStatisticTest.design(10, 45);
    DataMatrix y = data(design, m, 46);
    GlmRun.Options fwer = GlmRun.Options.defaults(40, 2).withGrid(SMALL);
    GlmRun.Options none = new GlmRun.Options(fwer.errors(), null, "", false, 40, 2, Tail.UPPER,
        false, false, SMALL, fwer.precision());
    Result result = new LocalEngine(2, SMALL, null).run(prepare(y, design,
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null), none, MaskGrid.of(NI, NJ, NK, m),
        true, 2.0)).result;
    assertThat(result.outputs()).extracting(Output::name).containsExactly("tstat1", "p_tstat1",
        "tfce_tstat1", "p_tfce_tstat1", "cluster_size_tstat1");
  }

  @Test
  void summaryRecordsTheLayoutThePerContrastFactsAndWhatAcrossContrastsCovers() {
    boolean[] m = mask();
    double[][] design = GlmContrastStatisticTest.design(10, 47);
    GlmRun.Options o = GlmRun.Options.defaults(40, 2).withGrid(SMALL)
        .withFwerAcrossContrasts(true);
    RunReport report = new LocalEngine(1, SMALL, null).run(prepare(data(design, m, 48), design,
        contrasts(), o, MaskGrid.of(NI, NJ, NK, m), true, null));
    Map<String, Object> summary = report.summary();
    assertThat(summary).containsEntry("command", "glm");
    @SuppressWarnings("unchecked")
    Map<String, Object> plan = (Map<String, Object>) summary.get("plan");
    assertThat(plan).containsEntry("layout", "whole_maps_per_replicate_window")
        .containsEntry("tfce_device", "executor cpu");
    assertThat((String) plan.get("statistic_maps")).startsWith("glm freedman-lane kernels");
    @SuppressWarnings("unchecked")
    Map<String, Object> wholeMap = (Map<String, Object>) summary.get("whole_map");
    assertThat(wholeMap).containsEntry("tfce", true).containsEntry("connectivity", 6);
    assertThat((String) wholeMap.get("fwer_across_contrasts"))
        .startsWith("voxelwise statistics only");
    @SuppressWarnings("unchecked")
    Map<String, Object> facts = (Map<String, Object>) summary.get("result");
    @SuppressWarnings("unchecked")
    Map<String, Object> inference = (Map<String, Object>) facts.get("whole_map_inference");
    assertThat(inference).containsOnlyKeys("tstat1", "tstat2", "fstat1");
    @SuppressWarnings("unchecked")
    Map<String, Object> t1 = (Map<String, Object>) inference.get("tstat1");
    assertThat(t1).containsKey("p_fwer_tfce_below_0_05").containsKey("tfce_maps");
    assertThat(report.result.output("p_cfwer_tstat1")).isNotNull();
    assertThat(report.result.outputs()).extracting(Output::name)
        .noneMatch(n -> n.startsWith("p_cfwer_tfce") || n.contains("cfwer_cluster"));
    assertThat(report.plan.blocks()).isEqualTo(1);
  }

  @Test
  void refusals() {
    boolean[] m = mask();
    double[][] design = GlmContrastStatisticTest.design(10, 49);
    DataMatrix y = data(design, m, 50);
    GlmRun.Options o = GlmRun.Options.defaults(20, 1).withGrid(SMALL);
    GlmContrasts c = GlmContrasts.of(new double[][] {{0, 1, 0, 0}}, null);
    assertThatThrownBy(() -> prepare(y, design, c, o, null, true, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--tfce needs a mask image: it joins voxels");
    assertThatThrownBy(() -> prepare(y, design, c, o, null, false, 3.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("--cluster-threshold needs a mask image: it joins");
    assertThatThrownBy(() -> prepare(y, design, c, o, MaskGrid.full(2, 2, 2), true, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the mask has 8 voxels, but the input has " + count(m));
    assertThatThrownBy(() -> prepare(y, design, c, o, MaskGrid.of(NI, NJ, NK, m), false, 0.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--cluster-threshold must be finite and > 0");
    assertThatThrownBy(() -> GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design), c, o,
        "gpu", 1.0)).isInstanceOf(ResourceRefusedException.class);
    GlmWholeMapAnalysis a = prepare(y, design, c, o, MaskGrid.of(NI, NJ, NK, m), true, null);
    assertThatThrownBy(() -> org.nlspark.core.tile.TilePlanner.plan(a,
        MemoryBudget.explicit(1e-6), 1))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageStartingWith("Cannot plan tiles: one glm tile of " + count(m)
            + " cells x 20 replicates needs ")
        .hasMessageContaining("GB budget (set by --memory-budget-gb)");
  }
}
