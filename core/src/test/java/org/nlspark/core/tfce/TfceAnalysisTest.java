package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.nlspark.core.tfce.SmallBrain.NI;
import static org.nlspark.core.tfce.SmallBrain.NJ;
import static org.nlspark.core.tfce.SmallBrain.NK;
import static org.nlspark.core.tfce.SmallBrain.SMALL;
import static org.nlspark.core.tfce.SmallBrain.mask;
import static org.nlspark.core.tfce.SmallBrain.keys;
import static org.nlspark.core.tfce.SmallBrain.max;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.tile.Grid;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The distributed TFCE and cluster inference against a brute force on a small grid: every
 * replicate's statistic map is stored, enhanced by the textbook loop ({@link TfceReference}:
 * one breadth-first labelling per threshold) and counted by hand. The kernel grid has 16-voxel
 * blocks, so the effect blobs straddle block boundaries.
 */
class TfceAnalysisTest {
  /** Noise plus a positive blob in one corner and a negative one in the other. */
  static DataMatrix data(int n, boolean[] mask, long seed, int constantVoxel) {
    return SmallBrain.data(n, mask, seed, 1.0, constantVoxel);
  }

  static JobSpec spec(Tail tail, long permutations) {
    return JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(permutations)
        .seed(11).tail(tail).backend("cpu").build();
  }

  static Result run(JobSpec spec, JobInputs inputs, MaskGrid grid, Grid kernelGrid, int threads,
      Integer windowsPerTile, Double threshold) {
    TfceAnalysis analysis = TfceAnalysis.prepare(spec, inputs, threads, kernelGrid, grid,
        WholeMapSettings.of(true, threshold));
    return new LocalEngine(threads, kernelGrid, windowsPerTile).run(analysis).result;
  }

  /** Every replicate's map (row r = replicate r), computed by the job's own kernels. */
  static double[][] maps(JobSpec spec, JobInputs inputs, Grid kernelGrid, double[] observed) {
    VoxelwiseAnalysis job = VoxelwiseAnalysis.prepare(spec, inputs, 1, kernelGrid);
    return SmallBrain.maps(inputs.voxels(), (int) job.replicates(), kernelGrid,
        (from, to) -> Kernels.create(job.spec, inputs, job.resampling, from, to,
            kernelGrid.window()), observed);
  }

  @ParameterizedTest
  @EnumSource(Tail.class)
  void tfceAndClusterPValuesEqualABruteForceOverEveryStoredMap(Tail tail) {
    bruteForce(tail, 10, 150);
  }

  @Test
  void exactEnumerationCountsEveryDrawIdentityIncluded() {
    // 2^6 = 64 sign flips <= 100 asked: all 64 drawn, p = count / 64
    Result result = bruteForce(Tail.TWO, 6, 100);
    assertThat(result.facts().get("exact_enumeration")).isEqualTo(true);
    assertThat(result.output("null_max_tfce")).hasSize(64);
  }

  /** TFCE at E = 1, H = 1.5 with 18 neighbours, and FSL's 2-D preset (E = 1, H = 2, 26). */
  @ParameterizedTest
  @EnumSource(Tail.class)
  void tfceAtOtherParametersEqualsTheBruteForce(Tail tail) {
    WholeMapSettings other = WholeMapSettings.of(true, 2.0).withTfce(1.0, 1.5, 18);
    Result r = bruteForce(tail, 10, 150, other);
    assertThat(r.facts().toString()).isNotEmpty();
    WholeMapSettings twoD = WholeMapSettings.of(true, 2.0).withTfce2d();
    assertThat(twoD.tfceE()).isEqualTo(1.0);
    assertThat(twoD.tfceH()).isEqualTo(2.0);
    assertThat(twoD.tfceConnectivity()).isEqualTo(26);
    bruteForce(tail, 10, 150, twoD);
  }

  @Test
  void badTfceParametersAreRefused() {
    assertThatThrownBy(() -> WholeMapSettings.of(true, null).withTfce(0.0, null, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--tfce-e must be in (0, 10], but was: 0.0 (the TFCE extent exponent E;"
            + " beyond 10 the scores can overflow to infinity)");
    assertThatThrownBy(() -> WholeMapSettings.of(true, null).withTfce(null, Double.NaN, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--tfce-h must be in (0, 10], but was: NaN (the TFCE height exponent H;"
            + " beyond 10 the scores can overflow to infinity)");
    assertThatThrownBy(() -> WholeMapSettings.of(true, null).withTfce(null, null, 8))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--tfce-connectivity must be 6 (faces), 18 (faces and edges) or 26 (faces,"
            + " edges and corners), but was: 8");
  }

  private Result bruteForce(Tail tail, int subjects, long permutations) {
    return bruteForce(tail, subjects, permutations, WholeMapSettings.of(true, 2.0));
  }

  /** Cluster mass (randomise -C) at 26, 18 and 6 neighbours, beside extent and TFCE. */
  @ParameterizedTest
  @EnumSource(Tail.class)
  void clusterMassEqualsTheBruteForceAtEveryConnectivity(Tail tail) {
    for (int c : new int[] {26, 18, 6}) {
      Result r = bruteForce(tail, 10, 150, WholeMapSettings.of(true, 2.0).withClusterMass(1.8)
          .withClusterConnectivity(c));
      assertThat(r.output("cluster_mass")).isNotNull();
      double[] mass = r.output("cluster_mass");
      double[] stat = r.output("observed");
      for (int v = 0; v < mass.length; v++) {
        if (mass[v] != 0) {
          assertThat(Math.signum(mass[v])).as("the sign of the cluster's statistic")
              .isEqualTo(Math.signum(stat[v]));
        }
      }
    }
  }

  private Result bruteForce(Tail tail, int subjects, long permutations,
      WholeMapSettings settings) {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = JobInputs.of(data(subjects, m, 5, 17));
    double threshold = settings.clusterThreshold();
    double e = settings.tfceE();
    double h = settings.tfceH();
    int connectivity = settings.tfceConnectivity();
    JobSpec spec = spec(tail, permutations);
    Result result = new LocalEngine(2, SMALL, null).run(TfceAnalysis.prepare(spec, inputs, 2,
        SMALL, grid, settings)).result;

    int voxels = grid.voxels();
    double[] observed = new double[voxels];
    double[][] maps = maps(spec, inputs, SMALL, observed);
    double[] refTfce = TfceReference.tfce(NI, NJ, NK, m, observed, tail, e, h, 100,
        connectivity);
    double[] tfce = result.output("tfce");
    double scale = 0;
    for (double s : refTfce) {
      scale = Double.isNaN(s) ? scale : Math.max(scale, Math.abs(s));
    }
    assertThat(scale).isGreaterThan(0);
    for (int v = 0; v < voxels; v++) {
      if (Double.isNaN(refTfce[v])) {
        assertThat(tfce[v]).as("voxel %d", v).isNaN();
      } else {
        assertThat(Math.abs(tfce[v] - refTfce[v])).as("voxel %d", v)
            .isLessThanOrEqualTo(1e-12 * scale);
      }
    }
    assertThat(tfce[17]).as("the constant voxel has no t, so no score").isNaN();
    assertThat(result.output("p_tfce")[17]).isNaN();
    assertThat(result.output("observed")).isEqualTo(observed);

    // Brute force: textbook TFCE and cluster sizes of every stored map, counted by hand.
    double[] obsKeys = keys(refTfce, tail);
    int clusterConnectivity = settings.clusterConnectivity();
    int[] obsSizes = TfceReference.clusterSizes(NI, NJ, NK, m, observed, tail, threshold,
        clusterConnectivity);
    Double massThreshold = settings.clusterMass();
    double[] obsMass = massThreshold == null ? null : TfceReference.clusterMasses(NI, NJ, NK, m,
        observed, tail, massThreshold, clusterConnectivity);
    double[] massMax = new double[maps.length];
    long[] counts = new long[voxels];
    double[] nullMax = new double[maps.length];
    double[] clusterMax = new double[maps.length];
    for (int r = 0; r < maps.length; r++) {
      double[] k = keys(TfceReference.tfce(NI, NJ, NK, m, maps[r], tail, e, h, 100,
          connectivity), tail);
      for (int v = 0; v < voxels; v++) {
        counts[v] += k[v] >= obsKeys[v] ? 1 : 0;
      }
      nullMax[r] = max(k);
      int[] sizes = TfceReference.clusterSizes(NI, NJ, NK, m, maps[r], tail, threshold,
          clusterConnectivity);
      if (massThreshold != null) {
        double[] masses = TfceReference.clusterMasses(NI, NJ, NK, m, maps[r], tail,
            massThreshold, clusterConnectivity);
        massMax[r] = Arrays.stream(masses).map(Math::abs).max().orElse(0);
      }
      clusterMax[r] = Arrays.stream(sizes).max().orElse(0);
    }
    double[] pTfce = result.output("p_tfce");
    double[] pFwerTfce = result.output("p_fwer_tfce");
    double[] pFwerCluster = result.output("p_fwer_cluster");
    double[] clusterSize = result.output("cluster_size");
    assertThat(result.output("null_max_tfce")).hasSize(maps.length);
    boolean enumerated = maps.length < permutations;
    double draws = maps.length;
    for (int r = 0; r < maps.length; r++) {
      assertThat(Math.abs(result.output("null_max_tfce")[r] - nullMax[r]))
          .isLessThanOrEqualTo(1e-12 * Math.max(1, nullMax[r]));
    }
    assertThat(result.output("null_max_cluster")).isEqualTo(clusterMax);
    if (massThreshold != null) {
      double[] nullMass = result.output("null_max_cluster_mass");
      for (int r = 0; r < maps.length; r++) {
        assertThat(Math.abs(nullMass[r] - massMax[r])).as("null_max_cluster_mass %d", r)
            .isLessThanOrEqualTo(1e-12 * Math.max(1, massMax[r]));
      }
    }
    int significant = 0;
    for (int v = 0; v < voxels; v++) {
      if (v == 17) {
        continue;
      }
      long exceed = 0;
      long clusterExceed = 0;
      for (int r = 0; r < maps.length; r++) {
        exceed += nullMax[r] >= obsKeys[v] ? 1 : 0;
        clusterExceed += clusterMax[r] >= obsSizes[v] ? 1 : 0;
      }
      assertThat(pTfce[v]).as("p_tfce voxel %d", v).isEqualTo(enumerated
          ? counts[v] / draws : (counts[v] + 1.0) / (draws + 1.0));
      assertThat(pFwerTfce[v]).as("p_fwer_tfce voxel %d", v).isEqualTo(enumerated
          ? exceed / draws : (exceed + 1.0) / (draws + 1.0));
      assertThat(clusterSize[v]).as("cluster_size voxel %d", v).isEqualTo(obsSizes[v]);
      assertThat(pFwerCluster[v]).as("p_fwer_cluster voxel %d", v).isEqualTo(enumerated
          ? clusterExceed / draws : (clusterExceed + 1.0) / (draws + 1.0));
      if (massThreshold != null) {
        double mass = result.output("cluster_mass")[v];
        assertThat(Math.abs(mass - obsMass[v])).as("cluster_mass voxel %d", v)
            .isLessThanOrEqualTo(1e-12 * Math.max(1, Math.abs(obsMass[v])));
        long massExceed = 0;
        for (int r = 0; r < maps.length; r++) {
          // the brute force sums in another order: compare with a tolerance, away from ties
          massExceed += massMax[r] >= Math.abs(obsMass[v]) - 1e-9 * Math.abs(obsMass[v]) ? 1 : 0;
        }
        assertThat(result.output("p_fwer_cluster_mass")[v]).as("p_fwer_cluster_mass voxel %d",
            v).isEqualTo(enumerated ? massExceed / draws : (massExceed + 1.0) / (draws + 1.0));
      }
      significant += pFwerTfce[v] < 0.05 ? 1 : 0;
    }
    if (!enumerated) { // 64 draws, half of them mirror images: too few to find the blobs
      assertThat(significant).as("the blobs are found").isGreaterThan(5);
    }
    return result;
  }

  @Test
  void twoTailedScoresKeepTheSignOfTheStatistic() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    Result result = run(spec(Tail.TWO, 60), JobInputs.of(data(10, m, 6, -1)), grid, SMALL, 1,
        null, null);
    double[] stat = result.output("observed");
    double[] tfce = result.output("tfce");
    int positive = 0;
    int negative = 0;
    for (int v = 0; v < stat.length; v++) {
      if (tfce[v] != 0) {
        assertThat(Math.signum(tfce[v])).as("voxel %d", v).isEqualTo(Math.signum(stat[v]));
        positive += tfce[v] > 0 ? 1 : 0;
        negative += tfce[v] < 0 ? 1 : 0;
      }
    }
    assertThat(positive).isGreaterThan(5);
    assertThat(negative).isGreaterThan(5);
    assertThat(result.output("cluster_size")).as("no --cluster-threshold").isNull();
  }

  @Test
  void outputsAreBitIdenticalForAnyThreadsAndWindowsPerTile() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = JobInputs.of(data(12, m, 7, 3));
    JobSpec spec = spec(Tail.TWO, 200);
    Result base = run(spec, inputs, grid, SMALL, 1, null, 1.5);
    for (Integer perTile : new Integer[] {1, 2, 7}) {
      Result other = run(spec, inputs, grid, SMALL, 3, perTile, 1.5);
      assertThat(names(other)).isEqualTo(names(base));
      for (Output o : base.outputs()) {
        assertThat(other.output(o.name())).as(o.name() + " with " + perTile + " windows a tile")
            .isEqualTo(o.values());
      }
    }
  }

  @Test
  void theVoxelwiseOutputsAreThoseOfThePlainPermutationTest() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = JobInputs.of(data(11, m, 8, -1));
    for (Tail tail : Tail.values()) {
      JobSpec spec = spec(tail, 100);
      Result whole = run(spec, inputs, grid, SMALL, 2, null, null);
      Result plain = new LocalEngine(2, SMALL, null).run(spec, inputs).result;
      for (String name : new String[] {"observed", "p", "p_fwer", "null_max"}) {
        assertThat(whole.output(name)).as(tail + " " + name).isEqualTo(plain.output(name));
      }
    }
  }

  @Test
  void clustersDoNotDependOnTheVoxelBlocks() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = JobInputs.of(data(10, m, 9, -1));
    JobSpec spec = spec(Tail.UPPER, 64);
    Result small = run(spec, inputs, grid, SMALL, 2, null, 2.0);
    Result one = run(spec, inputs, grid, new Grid(1024, 32), 2, null, 2.0);
    double[] a = small.output("tfce");
    double[] b = one.output("tfce");
    for (int v = 0; v < a.length; v++) {
      assertThat(a[v]).as("voxel %d", v).isCloseTo(b[v],
          org.assertj.core.data.Offset.offset(1e-9 * (1 + Math.abs(b[v]))));
    }
    assertThat(small.output("cluster_size")).isEqualTo(one.output("cluster_size"));
  }

  @Test
  void refusals() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = JobInputs.of(data(8, m, 1, -1));
    assertThatThrownBy(() -> TfceAnalysis.prepare(spec(Tail.TWO, 10), inputs, 1, SMALL, null,
        WholeMapSettings.of(true, null))).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs a mask image");
    assertThatThrownBy(() -> TfceAnalysis.prepare(spec(Tail.TWO, 10), inputs, 1, SMALL,
        MaskGrid.full(2, 2, 2), WholeMapSettings.of(true, null)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the mask has 8 voxels, but the input has " + grid.voxels());
    assertThatThrownBy(() -> TfceAnalysis.prepare(spec(Tail.TWO, 10), inputs, 1, SMALL, grid,
        WholeMapSettings.of(false, -1.0))).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--cluster-threshold must be finite and > 0")
        .hasMessageEndingWith("but was: -1.0");
    JobSpec gpu = spec(Tail.TWO, 10).toBuilder().backend("gpu").build();
    // A GPU request runs the maps on the GPU kernels (TfceGpuMapsTest); without one it is exit 3.
    assertThatThrownBy(() -> TfceAnalysis.prepare(gpu, inputs, 1, SMALL, grid,
        WholeMapSettings.of(true, null),
        () -> org.nlspark.core.backend.GpuStatus.unavailable("no CUDA driver")))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("Cannot run on a GPU: GPU requested explicitly")
        .hasMessageContaining("no CUDA driver");
    TfceAnalysis analysis = TfceAnalysis.prepare(spec(Tail.TWO, 10), inputs, 1, SMALL, grid,
        WholeMapSettings.of(true, null));
    assertThatThrownBy(() -> org.nlspark.core.tile.TilePlanner.plan(analysis,
        MemoryBudget.explicit(1e-6), 1))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageStartingWith("Cannot plan tiles: one " + analysis.command() + " tile of "
            + analysis.mask().voxels() + " cells x 10 replicates needs ")
        .hasMessageContaining("GB budget (set by --memory-budget-gb)");
  }

  @Test
  void summaryRecordsTheLayoutAndWhereTfceRan() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    TfceAnalysis analysis = TfceAnalysis.prepare(spec(Tail.TWO, 40),
        JobInputs.of(data(8, m, 2, -1)), 1, SMALL, grid, WholeMapSettings.of(true, null));
    RunReport report = new LocalEngine(1, SMALL, null).run(analysis);
    java.util.Map<String, Object> summary = report.summary();
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> plan = (java.util.Map<String, Object>) summary.get("plan");
    assertThat(plan.get("layout")).isEqualTo("whole_maps_per_replicate_window");
    assertThat(plan.get("tfce_device")).isEqualTo("executor cpu");
    assertThat((String) plan.get("reason")).contains("1 tile at once within the");
    assertThat(report.plan.blocks()).isEqualTo(1);
  }

  @Test
  void aMaskGridSurvivesSerialization() throws Exception {
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, mask());
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
      out.writeObject(grid);
    }
    MaskGrid back;
    try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
        new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
      back = (MaskGrid) in.readObject();
    }
    assertThat(back.voxels()).isEqualTo(grid.voxels());
    assertThat(back.cells()).isEqualTo(grid.cells());
    for (int v = 0; v < grid.voxels(); v++) {
      assertThat(back.neighboursOf(v)).isEqualTo(grid.neighboursOf(v));
    }
  }

  @Test
  void anImageMaskBecomesAGridInTheSameVoxelOrder() {
    boolean[] cOrder = mask();
    boolean[] fileOrder = new boolean[cOrder.length];
    for (int i = 0; i < NI; i++) {
      for (int j = 0; j < NJ; j++) {
        for (int k = 0; k < NK; k++) {
          fileOrder[i + NI * (j + NJ * k)] = cOrder[(i * NJ + j) * NK + k];
        }
      }
    }
    org.nlspark.core.io.nifti.NiftiHeader header = org.nlspark.core.io.nifti.NiftiHeader.builder()
        .datatype(org.nlspark.core.io.nifti.NiftiDatatype.UINT8).shape(NI, NJ, NK).build();
    org.nlspark.core.io.nifti.NiftiMask image =
        org.nlspark.core.io.nifti.NiftiMask.fromSelection(header, fileOrder, "mask");
    MaskGrid grid = MaskGrid.of(image);
    assertThat(grid.cells()).isEqualTo(cOrder);
    assertThat(grid.voxels()).isEqualTo(image.count());
    for (int v = 0; v < grid.voxels(); v++) {
      int[] ijk = image.ijk(v);
      assertThat(grid.cellOf(v)).isEqualTo((ijk[0] * NJ + ijk[1]) * NK + ijk[2]);
    }
  }

  private static List<String> names(Result r) {
    List<String> names = new ArrayList<>();
    for (Output o : r.outputs()) {
      names.add(o.name());
    }
    return names;
  }
}
