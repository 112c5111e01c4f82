package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.simd.Simd;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;

/**
 * The SIMD epilogue of one-sample t + max-T against the scalar one, bit for bit, on data built to
 * break a kernel that is only "close": integer-valued voxels (ties everywhere, also at the
 * observed value), +-c voxels (a flip with equal signs has zero variance up to rounding: t =
 * +-Infinity), constant voxels (undefined t), large offsets, one-ulp outliers, 0/1 and single
 * nonzero voxels; widths that are and are not multiples of the vector length; float64 and
 * float32; sampled and enumerated (every flip, so replicate 0 is the observed data) sign flips.
 * The end-to-end results of both paths are compared in {@link SimdFallbackTest}, and the
 * brute-force tests (StatisticsAgainstNaiveTest, ExactTiesTest, ...) run on the SIMD path.
 */
class SimdEpilogueTest {
  private static final int WINDOW = 128;

  @Test
  void theTestsRunTheVectorPath() {
    assertThat(Simd.enabled()).as(Simd.describe()).isTrue();
  }

  @Test
  void signFlipFoldIsBitIdenticalOnBothPaths() {
    int checked = 0;
    for (Precision precision : Precision.values()) {
      for (int n : new int[] {4, 9, 12, 30, 67}) {
        for (int b : new int[] {1, 7, 8, 9, 37, 64, 301}) {
          for (int variant = 0; variant < 3; variant++) {
            checked += compare(precision, n, b, variant);
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(100_000);
  }

  /**
   * The two row folds on thresholds drawn to hit every branch: values one ulp either side of
   * |g_obs|, near bands up to 1e-3 wide, observed keys nudged so that values just below |g_obs|
   * still reach them (the band rule), n sum(x^2) below g^2 (key +Infinity) and +Infinity
   * (undefined voxel), zeros, ties of |g| between rows.
   */
  @Test
  void rowFoldsAgreeOnThresholdsAtEveryEdge() {
    SplittableRandom rng = new SplittableRandom(99);
    int bandCounts = 0;
    for (int trial = 0; trial < 400; trial++) {
      int b = 1 + rng.nextInt(90);
      int rows = 1 + rng.nextInt(12);
      double[] g = new double[rows * b];
      float[] gf = new float[rows * b];
      for (int i = 0; i < g.length; i++) {
        double value = rng.nextInt(4) == 0 ? rng.nextInt(-3, 4) : rng.nextGaussian() * 5;
        gf[i] = (float) value;
        g[i] = trial % 2 == 0 ? value : gf[i];
      }
      double[] c = new double[b];
      double[] thr = new double[b];
      double[] obs = new double[b];
      double[] mid = new double[b];
      double[] half = new double[b];
      for (int v = 0; v < b; v++) {
        double gObs = Math.abs(g[rng.nextInt(rows) * b + v]);
        switch (rng.nextInt(4)) {
          case 0: gObs = Math.nextUp(gObs); break;
          case 1: gObs = Math.nextDown(gObs) < 0 ? gObs : Math.nextDown(gObs); break;
          default: break;
        }
        int cKind = rng.nextInt(10);
        c[v] = cKind == 0 ? Double.POSITIVE_INFINITY
            : cKind == 1 ? gObs * gObs * 0.5 // below g^2: key +Infinity
            : cKind == 2 ? gObs * gObs // zero denominator at the observed value
            : (gObs * gObs + 1) * (1 + rng.nextDouble() * 30);
        double key = gObs * gObs / Math.max(c[v] - gObs * gObs, 0.0);
        thr[v] = c[v] == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY
            : rng.nextBoolean() ? key : key * (1 - rng.nextDouble() * 1e-4);
        obs[v] = c[v] == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY : gObs;
        double band = rng.nextBoolean() ? 1e-7 : rng.nextDouble() * 1e-3;
        double low = gObs * (1 - band);
        mid[v] = c[v] == Double.POSITIVE_INFINITY ? Double.POSITIVE_INFINITY : (gObs + low) / 2;
        half[v] = c[v] == Double.POSITIVE_INFINITY ? 0.0 : (gObs - low) / 2;
      }
      int[] countsS = new int[b];
      int[] countsNoBand = new int[b];
      double[] countsV = new double[b];
      double[] countsVf = new double[b];
      int[] countsSf = new int[b];
      for (int r = 0; r < rows; r++) {
        double ms = SignFlipStatistic.foldRowT(g, r * b, b, c, thr, obs, mid, half, countsS);
        double mv = VectorSignFlipFold.foldRow(g, r * b, b, c, thr, obs, mid, half, countsV);
        assertThat(Double.doubleToRawLongBits(mv)).as("trial %d row %d", trial, r)
            .isEqualTo(Double.doubleToRawLongBits(ms));
        double msf = SignFlipStatistic.foldRowT(gf, r * b, b, c, thr, obs, mid, half, countsSf);
        double mvf = VectorSignFlipFold.foldRow(gf, r * b, b, c, thr, obs, mid, half, countsVf);
        assertThat(Double.doubleToRawLongBits(mvf)).as("float trial %d row %d", trial, r)
            .isEqualTo(Double.doubleToRawLongBits(msf));
        double[] zeroHalf = new double[b];
        SignFlipStatistic.foldRowT(g, r * b, b, c, thr, obs, mid, zeroHalf, countsNoBand);
      }
      for (int v = 0; v < b; v++) {
        assertThat((int) countsV[v]).as("trial %d voxel %d", trial, v).isEqualTo(countsS[v]);
        assertThat((int) countsVf[v]).as("float trial %d voxel %d", trial, v)
            .isEqualTo(countsSf[v]);
        bandCounts += countsS[v] - countsNoBand[v];
      }
    }
    assertThat(bandCounts).as("values counted by the near-band rule").isGreaterThan(20);
  }

  /** Folds every window of both kernels and compares counts and row maxima; returns values seen. */
  private static int compare(Precision precision, int n, int b, int variant) {
    double[] x = adversarial(n, b, 17L * n + b, variant);
    boolean enumerated = n <= 9;
    long replicates = enumerated ? 1L << n : 700;
    long seed = 1234 + variant;
    SignFlipStatistic vector = new SignFlipStatistic(precision, x, n, b, WINDOW, true, enumerated,
        seed);
    SignFlipStatistic scalar = new SignFlipStatistic(precision, x, n, b, WINDOW, true, enumerated,
        seed);
    vector.simd = true;
    scalar.simd = false;
    double[] obsV = new double[b];
    double[] obsS = new double[b];
    vector.observed(obsV);
    scalar.observed(obsS);
    assertThat(bits(obsV)).isEqualTo(bits(obsS));
    int seen = 0;
    for (long first = 0; first < replicates; first += WINDOW) {
      int rows = (int) Math.min(WINDOW, replicates - first);
      int[] countsV = new int[b];
      int[] countsS = new int[b];
      double[] maxV = new double[WINDOW];
      double[] maxS = new double[WINDOW];
      assertThat(vector.foldWindow(first, rows, Tail.TWO, countsV, maxV)).isTrue();
      assertThat(scalar.foldWindow(first, rows, Tail.TWO, countsS, maxS)).isTrue();
      String where = precision + " n=" + n + " b=" + b + " variant=" + variant + " first="
          + first;
      assertThat(countsV).as(where).isEqualTo(countsS);
      assertThat(bits(maxV)).as(where).isEqualTo(bits(maxS));
      seen += rows * b;
    }
    return seen;
  }

  /**
   * The fused two-sample fold (Welch t and mean difference) against the scalar epilogue followed
   * by the generic permutation fold, every tail, both precisions, on adversarial groups: counts
   * and row maxima bit for bit, also for voxels constant within both groups (undefined Welch t).
   */
  @Test
  void twoSampleFoldIsBitIdenticalToTheScalarEpilogueAndFold() {
    int checked = 0;
    for (Precision precision : Precision.values()) {
      for (boolean welch : new boolean[] {true, false}) {
        for (int[] sizes : new int[][] {{2, 2}, {5, 9}, {15, 15}, {31, 4}}) {
          for (int b : new int[] {1, 7, 8, 9, 64, 301}) {
            for (Tail tail : Tail.values()) {
              checked += compareTwoSample(precision, welch, sizes[0], sizes[1], b, tail);
            }
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(100_000);
  }

  /**
   * Row maxima where the largest key is zero with both signs in one lane (-0.0 first, +0.0 a
   * vector later, and the reverse) and every other key negative: Math.max gives +0.0, and so
   * must the lanes. Mean difference, upper tail: s1 = -0.0 with total 0 gives -0.0 - +0.0.
   */
  @Test
  void twoSampleRowMaximaTellSignedZerosApart() {
    for (boolean plusFirst : new boolean[] {false, true}) {
      int lanes = VectorSignFlipFold.lanes();
      int b = 4 * lanes + 3;
      double[] s1 = new double[b];
      java.util.Arrays.fill(s1, -1.0);
      s1[0] = plusFirst ? 0.0 : -0.0;
      s1[lanes] = plusFirst ? -0.0 : 0.0;
      double[] thr = new double[b];
      java.util.Arrays.fill(thr, Double.POSITIVE_INFINITY);
      double m = VectorTwoSampleFold.foldRow(s1, null, 0, b, new double[b], new double[b], 5, 7,
          Tail.UPPER, thr, new boolean[b], new double[b]);
      assertThat(Double.doubleToRawLongBits(m)).as("plusFirst=%s", plusFirst)
          .isEqualTo(Double.doubleToRawLongBits(0.0));
    }
  }

  private static int compareTwoSample(Precision precision, boolean welch, int n1, int n2, int b,
      Tail tail) {
    int variant = (n1 + b) % 3;
    double[] x = adversarial(n1, b, 31L * n1 + b, variant);
    double[] y = adversarial(n2, b, 37L * n2 + b, (variant + 1) % 3);
    long seed = 77 + n1 + b;
    TwoSampleStatistic vector = TwoSampleStatistic.create(precision, x, n1, y, n2, b, WINDOW,
        welch, seed);
    TwoSampleStatistic scalar = TwoSampleStatistic.create(precision, x, n1, y, n2, b, WINDOW,
        welch, seed);
    vector.simd = true;
    scalar.simd = false;
    return compareFolds(vector, scalar, b, tail, precision + (welch ? " welch" : " mean-diff")
        + " n=" + n1 + "+" + n2 + " b=" + b + " " + tail);
  }

  /**
   * The fused correlation fold (Pearson and Spearman, whose target ranks tie) against the scalar
   * epilogue and the generic fold, as for two-sample.
   */
  @Test
  void correlationFoldIsBitIdenticalToTheScalarEpilogueAndFold() {
    int checked = 0;
    for (Precision precision : Precision.values()) {
      for (boolean spearman : new boolean[] {false, true}) {
        for (int n : new int[] {3, 9, 30}) {
          for (int b : new int[] {1, 7, 8, 9, 64, 301}) {
            for (Tail tail : Tail.values()) {
              double[] x = adversarial(n, b, 41L * n + b, (n + b) % 3);
              double[] target = new double[n];
              SplittableRandom rng = new SplittableRandom(n + b);
              for (int i = 0; i < n; i++) {
                target[i] = rng.nextInt(-2, 3); // integer-valued: ties in the ranks
              }
              target[0] = 5; // never constant
              CorrelationStatistic vector = CorrelationStatistic.create(precision, x, n, b,
                  WINDOW, target, spearman, 9 + n);
              CorrelationStatistic scalar = CorrelationStatistic.create(precision, x, n, b,
                  WINDOW, target, spearman, 9 + n);
              vector.simd = true;
              scalar.simd = false;
              checked += compareFolds(vector, scalar, b, tail, precision
                  + (spearman ? " spearman" : " pearson") + " n=" + n + " b=" + b + " " + tail);
            }
          }
        }
      }
    }
    assertThat(checked).isGreaterThan(50_000);
  }

  /** Fused fold of {@code vector} vs {@code scalar}'s compute and the generic fold's rules. */
  private static int compareFolds(BlockStatistic vector, BlockStatistic scalar, int b, Tail tail,
      String what) {
    double[] obsV = new double[b];
    double[] obsS = new double[b];
    vector.observed(obsV);
    scalar.observed(obsS);
    assertThat(bits(obsV)).isEqualTo(bits(obsS));
    double[] thr = new double[b];
    for (int v = 0; v < b; v++) {
      thr[v] = tail.threshold(obsS[v]);
    }
    long replicates = 300;
    double[] buf = new double[WINDOW * b];
    int seen = 0;
    for (long first = 0; first < replicates; first += WINDOW) {
      int rows = (int) Math.min(WINDOW, replicates - first);
      int[] countsV = new int[b];
      int[] countsS = new int[b];
      double[] maxV = new double[WINDOW];
      double[] maxS = new double[WINDOW];
      assertThat(vector.foldWindow(first, rows, tail, countsV, maxV)).isTrue();
      assertThat(scalar.foldWindow(first, rows, tail, countsS, maxS)).isFalse();
      scalar.compute(first, rows, buf);
      for (int r = 0; r < rows; r++) { // the generic fold's rules (tile.PermutationFold)
        double m = Double.NEGATIVE_INFINITY;
        for (int v = 0; v < b; v++) {
          double k = tail.key(buf[r * b + v]);
          k = k == k ? k : Double.NEGATIVE_INFINITY;
          countsS[v] += k >= thr[v] ? 1 : 0;
          m = Math.max(m, k);
        }
        maxS[r] = m;
      }
      String where = what + " first=" + first;
      assertThat(countsV).as(where).isEqualTo(countsS);
      assertThat(bits(maxV)).as(where).isEqualTo(bits(maxS));
      seen += rows * b;
    }
    return seen;
  }

  /** An n x b row-major block; column v is of kind (v + variant) % 9. */
  static double[] adversarial(int n, int b, long seed, int variant) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] plusMinus = {0.1, 0.3, 1.0 / 3.0, 7.0, 1e-3, 3.0};
    double[] constant = {0.0, 2.5, -1e6, 0.1};
    double[] x = new double[n * b];
    for (int v = 0; v < b; v++) {
      int kind = (v + variant) % 9;
      double c = plusMinus[(v / 9) % plusMinus.length];
      double k = constant[(v / 9) % constant.length];
      int odd = rng.nextInt(n);
      for (int i = 0; i < n; i++) {
        double value;
        switch (kind) {
          case 0: value = rng.nextGaussian(); break;
          case 1: value = rng.nextInt(-3, 4); break;
          case 2: value = rng.nextBoolean() ? c : -c; break;
          case 3: value = k; break;
          case 4: value = 1e6 + rng.nextGaussian(); break;
          case 5: value = 1e6 + rng.nextInt(0, 5); break;
          case 6: value = i == odd ? Math.nextUp(0.1) : 0.1; break;
          case 7: value = rng.nextInt(0, 2); break;
          default: value = i == odd ? 1.0 : 0.0; break;
        }
        x[i * b + v] = value;
      }
    }
    return x;
  }

  static long[] bits(double[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Double.doubleToRawLongBits(v[i]);
    }
    return out;
  }
}
