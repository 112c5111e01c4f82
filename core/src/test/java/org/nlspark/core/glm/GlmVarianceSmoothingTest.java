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

import java.util.Random;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tfce.GaussianSmoother;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceReference;
import org.nlspark.core.tfce.VarianceSmoothing;
import org.nlspark.core.tfce.WholeMapSettings;

/**
 * {@code glm --variance-smoothing} against a brute force written here: every draw's t and
 * residual variance at every voxel by a naive per-draw Freedman–Lane OLS loop ({@link
 * OlsReference}: normal equations, no GEMM), the variance smoothed by a non-separable triple loop
 * over voxel pairs with the 3-D Gaussian weight and divided by the equally smoothed mask, the
 * pseudo-t formed, and maxima, uncorrected and FWER counts taken by hand. Anisotropic voxels
 * (3 × 2 × 4 mm) at sigma 2.5 mm make the kernel reach 4, 5 and 3 voxels: on the 6-voxel i axis
 * the 4-sigma cut removes offsets of 5.
 */
class GlmVarianceSmoothingTest {
  static final double[] VOXEL_MM = {3.0, 2.0, 4.0};
  static final double SIGMA_MM = 2.5;
  static final int CONSTANT_VOXEL = 17;
  static final double THRESHOLD = 2.0;

  /** Intercept, group, a standardised age, a covariate: well conditioned for the naive OLS. */
  static double[][] design(int n, long seed) {
    Random rng = new Random(seed);
    double[][] m = new double[n][];
    for (int i = 0; i < n; i++) {
      m[i] = new double[] {1.0, i % 2, rng.nextGaussian(), rng.nextGaussian()};
    }
    return m;
  }

  /** A group blob, a negative age blob, noise whose scale varies over the grid, a constant. */
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
            double group = i < 3 && j < 3 ? 1.4 : 0;
            double age = i >= 4 && j >= 3 ? -1.6 : 0;
            double noise = (0.5 + 0.25 * k) * rng.nextGaussian();
            y[s * voxels + v] = v == CONSTANT_VOXEL ? 2.0
                : 3.0 + group * design[s][1] + age * design[s][2] + noise;
            v++;
          }
        }
      }
    }
    return DataMatrix.of(n, voxels, y, "y");
  }

  static GlmContrasts contrasts() {
    return GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[0][]);
  }

  /** {t, σ²} maps of the observed data (row 0) and of every draw (row r + 1), by naive OLS. */
  static double[][][] naive(double[][] m, DataMatrix y, double[][] ct, GlmDraws draws) {
    int n = m.length;
    int voxels = y.cols();
    double[][] yy = new double[n][voxels];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < voxels; v++) {
        yy[i][v] = y.get(i, v);
      }
    }
    double[][] zb = OlsReference.nuisanceBasis(m, ct);
    double[][] fitted = new double[n][voxels];
    double[][] resid = new double[n][voxels];
    for (int v = 0; v < voxels; v++) {
      for (double[] q : zb) {
        double dot = 0;
        for (int i = 0; i < n; i++) {
          dot += q[i] * yy[i][v];
        }
        for (int i = 0; i < n; i++) {
          fitted[i][v] += dot * q[i];
        }
      }
      for (int i = 0; i < n; i++) {
        resid[i][v] = yy[i][v] - fitted[i][v];
      }
    }
    int p = (int) draws.replicates();
    double[][][] out = new double[2][p + 1][voxels];
    int[] perm = new int[n];
    double[] signs = new double[n];
    double[] ystar = new double[n];
    for (int r = -1; r < p; r++) {
      if (r < 0) {
        draws.identity(perm, signs);
      } else {
        draws.fill(r, perm, signs);
      }
      for (int v = 0; v < voxels; v++) {
        for (int i = 0; i < n; i++) {
          ystar[i] = signs[i] * resid[perm[i]][v] + fitted[i][v];
        }
        double[] fit = OlsReference.fit(m, ystar, ct, true);
        boolean none = v == CONSTANT_VOXEL; // no statistic: the kernel's rule, tested elsewhere
        out[0][r + 1][v] = none ? Double.NaN : fit[0];
        out[1][r + 1][v] = none ? Double.NaN : fit[1];
      }
    }
    return out;
  }

  /**
   * The 3-D Gaussian smoothing with edge correction, voxel pair by voxel pair: for every in-mask
   * voxel v, Σ_u W(u, v) σ²_u / Σ_u W(u, v) over the in-mask voxels u with a variance and
   * offsets within the cut (|d_a| ≤ ceil(4 σ_a)), W = exp(−½ Σ_a d_a² / σ_a²).
   */
  static double[] naiveSmoothed(boolean[] mask, double[] variance, double sigmaMm,
      double[] voxelMm) {
    int[][] ijk = new int[variance.length][];
    int v = 0;
    for (int i = 0; i < NI; i++) {
      for (int j = 0; j < NJ; j++) {
        for (int k = 0; k < NK; k++) {
          if (mask[(i * NJ + j) * NK + k]) {
            ijk[v++] = new int[] {i, j, k};
          }
        }
      }
    }
    double[] s = new double[3];
    int[] reach = new int[3];
    for (int a = 0; a < 3; a++) {
      s[a] = sigmaMm / voxelMm[a];
      reach[a] = (int) Math.ceil(4 * s[a]);
    }
    double[] out = new double[variance.length];
    for (v = 0; v < variance.length; v++) {
      if (Double.isNaN(variance[v])) {
        out[v] = Double.NaN;
        continue;
      }
      double num = 0;
      double den = 0;
      for (int u = 0; u < variance.length; u++) {
        if (Double.isNaN(variance[u])) {
          continue;
        }
        double q = 0;
        boolean inside = true;
        for (int a = 0; a < 3; a++) {
          int d = ijk[u][a] - ijk[v][a];
          inside &= Math.abs(d) <= reach[a];
          q += (double) d * d / (s[a] * s[a]);
        }
        if (inside) {
          double w = StrictMath.exp(-0.5 * q);
          num += w * variance[u];
          den += w;
        }
      }
      out[v] = num / den;
    }
    return out;
  }

  static double[] pseudoT(double[] t, double[] variance, double[] smoothed) {
    double[] out = new double[t.length];
    for (int v = 0; v < t.length; v++) {
      out[v] = t[v] * Math.sqrt(variance[v] / smoothed[v]);
    }
    return out;
  }

  static void assertRelative(double[] got, double[] want, double rel, String what) {
    assertThat(got).as(what).hasSize(want.length);
    for (int v = 0; v < want.length; v++) {
      if (Double.isNaN(want[v])) {
        assertThat(got[v]).as("%s [%d]", what, v).isNaN();
      } else {
        assertThat(Math.abs(got[v] - want[v])).as("%s [%d]: %s vs %s", what, v, got[v], want[v])
            .isLessThanOrEqualTo(rel * Math.abs(want[v]));
      }
    }
  }

  static double p(long count, long draws) {
    return (count + 1.0) / (draws + 1.0);
  }

  @Test
  void theSeparableSmootherEqualsTheTripleLoopWithEdgeCorrection() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    Random rng = new Random(5);
    double[] variance = new double[grid.voxels()];
    for (int v = 0; v < variance.length; v++) {
      variance[v] = v == 3 ? Double.NaN : 0.1 + rng.nextDouble();
    }
    GaussianSmoother smoother = new GaussianSmoother(grid, SIGMA_MM, VOXEL_MM);
    assertThat(smoother.radii()).containsExactly(4, 5, 3);
    double[] t = new double[variance.length];
    java.util.Arrays.fill(t, 1.0);
    t[3] = Double.NaN; // no statistic where there is no variance
    double[] got = VarianceSmoothing.of(grid, SIGMA_MM, VOXEL_MM).pseudoT(t, variance);
    double[] want = pseudoT(t, variance, naiveSmoothed(m, variance, SIGMA_MM, VOXEL_MM));
    assertRelative(got, want, 1e-13, "pseudo-t of t = 1");
    // Each normalised 1-D kernel adds to 1, so a constant map stays constant, edges included.
    double[] ones = new double[variance.length];
    java.util.Arrays.fill(ones, 1.0);
    double[] smoothedOnes = new double[ones.length];
    smoother.smooth(ones, 0, smoothedOnes, 0);
    for (double x : smoothedOnes) {
      assertThat(x).isGreaterThan(0).isLessThanOrEqualTo(1 + 1e-15);
    }
  }

  /**
   * Runs glm with variance smoothing (alone, and with TFCE and clusters) and checks the pseudo-t,
   * its uncorrected and FWER p and maxima, TFCE's FWER p and the clusters' against the brute
   * force.
   */
  @Test
  void pseudoTAndItsPValuesEqualABruteForceOverEveryStoredDraw() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    double[][] design = design(16, 40);
    DataMatrix y = data(design, m, 43);
    int voxels = grid.voxels();
    for (Tail tail : new Tail[] {Tail.UPPER, Tail.TWO}) {
      for (boolean withTfce : new boolean[] {false, true}) {
        GlmRun.Options o = GlmRun.Options.defaults(150, 7).withGrid(SMALL).withTail(tail);
        WholeMapSettings settings = withTfce ? WholeMapSettings.of(true, THRESHOLD)
            : WholeMapSettings.of(false, null);
        GlmWholeMapAnalysis a = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design),
            contrasts(), o, "cpu", 1.0).withWholeMaps(grid, settings, SIGMA_MM, VOXEL_MM);
        Result result = new LocalEngine(2, o.grid(), null).run(a).result;
        if (!withTfce) {
          assertThat(result.outputs()).extracting(Output::name).containsExactly("tstat1",
              "p_tstat1", "p_fwer_tstat1", "null_max_tstat1", "tstat2", "p_tstat2",
              "p_fwer_tstat2", "null_max_tstat2");
        }
        for (GlmContrast c : a.model().contrasts()) {
          String s = c.outputName();
          String what = s + " " + tail + (withTfce ? " with TFCE" : "");
          GlmDraws draws = GlmRun.drawsOf(a.model(), c, a.options());
          assertThat(draws.enumerated()).isFalse();
          int p = (int) draws.replicates();
          double[][][] tv = naive(design, y, c.matrix(), draws);
          double[][] pseudo = new double[p + 1][];
          for (int r = 0; r <= p; r++) {
            pseudo[r] = pseudoT(tv[0][r], tv[1][r],
                naiveSmoothed(m, tv[1][r], SIGMA_MM, VOXEL_MM));
          }
          assertRelative(result.output(s), pseudo[0], 1e-12, what + " pseudo-t");
          double[] obsKeys = keys(pseudo[0], tail);
          long[] counts = new long[voxels];
          double[] nullMax = new double[p];
          for (int r = 0; r < p; r++) {
            double[] k = keys(pseudo[r + 1], tail);
            for (int v = 0; v < voxels; v++) {
              counts[v] += k[v] >= obsKeys[v] ? 1 : 0;
            }
            nullMax[r] = max(k);
          }
          assertRelative(result.output("null_max_" + s), nullMax, 1e-12, what + " null max");
          double[] pUnc = result.output("p_" + s);
          double[] pFwer = result.output("p_fwer_" + s);
          int significant = 0;
          for (int v = 0; v < voxels; v++) {
            if (v == CONSTANT_VOXEL) {
              assertThat(pUnc[v]).isNaN();
              continue;
            }
            long exceed = 0;
            for (double mx : nullMax) {
              exceed += mx >= obsKeys[v] ? 1 : 0;
            }
            assertThat(pUnc[v]).as("%s p voxel %d", what, v).isEqualTo(p(counts[v], p));
            assertThat(pFwer[v]).as("%s p_fwer voxel %d", what, v).isEqualTo(p(exceed, p));
            significant += pFwer[v] < 0.05 ? 1 : 0;
          }
          if (c.number() == 1 || tail == Tail.TWO) { // the age blob is negative
            assertThat(significant).as("%s finds its blob", what).isGreaterThan(3);
          }
          if (withTfce) {
            checkTfceAndClusters(result, s, what, m, tail, pseudo);
          }
        }
      }
    }
  }

  private static void checkTfceAndClusters(Result result, String s, String what, boolean[] m,
      Tail tail, double[][] pseudo) {
    int p = pseudo.length - 1;
    int connectivity = WholeMapSettings.DEFAULT_CLUSTER_CONNECTIVITY;
    double[] obsTfce = TfceReference.tfce(NI, NJ, NK, m, pseudo[0], tail, 0.5, 2, 100);
    assertRelative(result.output("tfce_" + s), obsTfce, 1e-12, what + " tfce");
    double[] obsKeys = keys(obsTfce, tail);
    int[] obsSizes = TfceReference.clusterSizes(NI, NJ, NK, m, pseudo[0], tail, THRESHOLD,
        connectivity);
    double[] tfceMax = new double[p];
    double[] clusterMax = new double[p];
    for (int r = 0; r < p; r++) {
      tfceMax[r] = max(keys(TfceReference.tfce(NI, NJ, NK, m, pseudo[r + 1], tail, 0.5, 2, 100),
          tail));
      clusterMax[r] = java.util.Arrays.stream(TfceReference.clusterSizes(NI, NJ, NK, m,
          pseudo[r + 1], tail, THRESHOLD, connectivity)).max().orElse(0);
    }
    assertRelative(result.output("null_max_tfce_" + s), tfceMax, 1e-12, what + " tfce max");
    assertThat(result.output("null_max_cluster_" + s)).as(what).isEqualTo(clusterMax);
    double[] pFwerTfce = result.output("p_fwer_tfce_" + s);
    double[] pFwerCluster = result.output("p_fwer_cluster_" + s);
    for (int v = 0; v < obsKeys.length; v++) {
      if (v == CONSTANT_VOXEL) {
        continue;
      }
      long exceed = 0;
      long clusterExceed = 0;
      for (int r = 0; r < p; r++) {
        exceed += tfceMax[r] >= obsKeys[v] ? 1 : 0;
        clusterExceed += clusterMax[r] >= obsSizes[v] ? 1 : 0;
      }
      assertThat(pFwerTfce[v]).as("%s p_fwer_tfce %d", what, v).isEqualTo(p(exceed, p));
      assertThat(pFwerCluster[v]).as("%s p_fwer_cluster %d", what, v)
          .isEqualTo(p(clusterExceed, p));
    }
  }

  @Test
  void aVerySmallSigmaGivesThePlainTBitForBit() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    double[][] design = design(16, 40);
    DataMatrix y = data(design, m, 44);
    GlmRun.Options o = GlmRun.Options.defaults(100, 9).withGrid(SMALL).withTail(Tail.TWO);
    GlmAnalysis glm = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design), contrasts(),
        o, "cpu", 1.0);
    // 1e-3 mm on 2-4 mm voxels: the neighbours' weights exp(-d^2 / (2 sigma^2)) underflow to 0.
    Result smoothed = new LocalEngine(2, o.grid(), null).run(glm.withWholeMaps(grid,
        WholeMapSettings.of(true, THRESHOLD), 1e-3, VOXEL_MM)).result;
    Result plain = new LocalEngine(2, o.grid(), null).run(glm.withWholeMaps(grid,
        WholeMapSettings.of(true, THRESHOLD))).result;
    assertThat(smoothed.outputs()).extracting(Output::name)
        .containsExactlyElementsOf(plain.outputs().stream().map(Output::name).toList());
    for (Output out : plain.outputs()) {
      assertThat(smoothed.output(out.name())).as(out.name()).isEqualTo(plain.output(out.name()));
    }
    // And the voxelwise maps are those of glm without any whole-map work.
    GlmResult reference = GlmRun.run(glm.model(), y, glm.options());
    for (String name : reference.maps().keySet()) {
      assertThat(smoothed.output(name)).as(name).isEqualTo(reference.get(name));
    }
  }

  @Test
  void refusesFContrastsABadSigmaAndAMissingGrid() {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    double[][] design = design(16, 40);
    DataMatrix y = data(design, m, 45);
    GlmRun.Options o = GlmRun.Options.defaults(20, 1).withGrid(SMALL);
    GlmAnalysis withF = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design),
        GlmContrasts.of(new double[][] {{0, 1, 0, 0}, {0, 0, 1, 0}}, new int[][] {{0, 1}}), o,
        "cpu", 1.0);
    assertThatThrownBy(() -> withF.withWholeMaps(grid, WholeMapSettings.of(false, null), 3.0,
        VOXEL_MM)).isInstanceOf(InvalidInputException.class).hasMessage("Cannot smooth the"
        + " variance of F contrasts: --variance-smoothing makes pseudo-t statistics of t"
        + " contrasts only (as randomise -v), but 1 F contrast was given; drop --f-contrasts or"
        + " --variance-smoothing");
    GlmAnalysis glm = GlmAnalysis.prepare(y, GlmContrastStatisticTest.named(design), contrasts(),
        o, "cpu", 1.0);
    for (double bad : new double[] {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> glm.withWholeMaps(grid, WholeMapSettings.of(false, null), bad,
          VOXEL_MM)).isInstanceOf(InvalidInputException.class).hasMessage("--variance-smoothing"
          + " must be a finite standard deviation > 0 in mm, but was: " + bad);
    }
    assertThatThrownBy(() -> glm.withWholeMaps(null, WholeMapSettings.of(false, null), 3.0,
        VOXEL_MM)).isInstanceOf(InvalidInputException.class).hasMessage("Cannot smooth the"
        + " variance: --variance-smoothing smooths over the image grid in mm, but this input has"
        + " no grid (an .npy matrix); give NIfTI inputs (with --mask) instead");
    assertThatThrownBy(() -> glm.withWholeMaps(grid, WholeMapSettings.of(false, null), 3.0,
        new double[] {2, 0, 2})).isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot smooth the variance: the voxel size of axis 1 must be");
  }

  @Test
  void voxelSizesAreTheAffinesColumnLengths() {
    double[][] affine = {{-2, 0, 0, 90}, {0, 0, 3, -126}, {0, 2.5, 0, -72}, {0, 0, 0, 1}};
    assertThat(VarianceSmoothing.voxelSizes(affine)).containsExactly(2.0, 2.5, 3.0);
  }
}
