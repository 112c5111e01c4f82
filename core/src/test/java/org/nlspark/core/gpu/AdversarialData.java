package org.nlspark.core.gpu;

import java.util.SplittableRandom;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;

/**
 * Inputs on which a GPU kernel that is only "close" to the CPU kernel gives different answers,
 * shared by the host-build parity suite and the device check. Column v is of kind v % KINDS:
 * Gaussian; small integers (ties everywhere, also at the observed value); +-c for several c (a
 * sign flip with all signs equal has zero variance up to rounding: t = +-Infinity); constant;
 * offset by 1e6 (Gaussian and integer); constant but for one value one ulp away; 0/1; a single
 * nonzero. For two samples the second group mixes the same kinds, so some columns are constant in
 * both groups (Welch t undefined) and some in one only. Every value is finite: the CPU path refuses
 * NaN and Infinity in the data (they reach the kernels only as statistics, which the accumulator
 * checks cover).
 */
final class AdversarialData {
  static final int KINDS = 9;
  private static final double[] PLUS_MINUS = {0.1, 0.3, 1.0 / 3.0, 7.0, 1e-3, 3.0};
  private static final double[] CONSTANT = {0.0, 2.5, -1e6, 0.1};

  private AdversarialData() {}

  /** An n x voxels matrix of the kinds above (variant shifts which kind each column gets). */
  static double[] matrix(int n, int voxels, long seed, int variant) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] x = new double[n * voxels];
    for (int v = 0; v < voxels; v++) {
      int kind = (v + variant) % KINDS;
      double c = PLUS_MINUS[(v / KINDS) % PLUS_MINUS.length];
      double k = CONSTANT[(v / KINDS) % CONSTANT.length];
      int odd = rng.nextInt(n);
      for (int i = 0; i < n; i++) {
        double value;
        switch (kind) {
          case 0:
            value = rng.nextGaussian();
            break;
          case 1:
            value = rng.nextInt(-3, 4);
            break;
          case 2:
            value = rng.nextBoolean() ? c : -c;
            break;
          case 3:
            value = k;
            break;
          case 4:
            value = 1e6 + rng.nextGaussian();
            break;
          case 5:
            value = 1e6 + rng.nextInt(0, 5);
            break;
          case 6:
            value = i == odd ? Math.nextUp(0.1) : 0.1;
            break;
          case 7:
            value = rng.nextInt(0, 2);
            break;
          default:
            value = i == odd ? 1.0 : 0.0;
            break;
        }
        x[i * voxels + v] = value;
      }
    }
    return x;
  }

  /** Inputs of the analysis: n subjects (n per group for two samples) x voxels. */
  static JobInputs inputs(Analysis analysis, int n, int voxels, long seed, int variant) {
    DataMatrix x = DataMatrix.of(n, voxels, matrix(n, voxels, seed, variant), "--input");
    switch (analysis) {
      case TWO_SAMPLE: {
        int n2 = Math.max(2, n - 1);
        // Same kinds per column as x except every third column, so constant-in-both, constant
        // in one group and mixed kinds all occur.
        double[] y = matrix(n2, voxels, seed + 1, variant);
        double[] other = matrix(n2, voxels, seed + 2, variant + 4);
        for (int i = 0; i < n2; i++) {
          for (int v = 2; v < voxels; v += 3) {
            y[i * voxels + v] = other[i * voxels + v];
          }
        }
        return JobInputs.twoGroups(x, DataMatrix.of(n2, voxels, y, "--input2"));
      }
      case CORRELATION: {
        SplittableRandom rng = new SplittableRandom(seed + 3);
        double[] target = new double[n];
        for (int i = 0; i < n; i++) {
          // variant 0: a target with rank ties; otherwise continuous
          target[i] = variant % 2 == 0 ? rng.nextInt(0, 4) : rng.nextGaussian();
        }
        return JobInputs.withTarget(x, target);
      }
      default:
        return JobInputs.of(x);
    }
  }

  /** The kinds whose values are integers (small, 1e6-offset, 0/1, single nonzero, constant 0). */
  private static final int[] INTEGER_KINDS = {1, 5, 7, 8, 3};

  /**
   * Integer-valued inputs: every GEMM product of the statistics that multiply raw, shifted or
   * ranked data by integer draws is then exact in any summation order, so cuBLAS must give the
   * CPU's bits.
   */
  static JobInputs integerInputs(Analysis analysis, int n, int voxels, long seed) {
    double[] x = integerMatrix(n, voxels, seed);
    DataMatrix xm = DataMatrix.of(n, voxels, x, "--input");
    switch (analysis) {
      case TWO_SAMPLE:
        return JobInputs.twoGroups(xm,
            DataMatrix.of(n - 1, voxels, integerMatrix(n - 1, voxels, seed + 1), "--input2"));
      case CORRELATION: {
        SplittableRandom rng = new SplittableRandom(seed + 3);
        double[] target = new double[n];
        for (int i = 0; i < n; i++) {
          target[i] = rng.nextInt(0, 4);
        }
        return JobInputs.withTarget(xm, target);
      }
      default:
        return JobInputs.of(xm);
    }
  }

  private static double[] integerMatrix(int n, int voxels, long seed) {
    double[] all = matrix(n, voxels * KINDS, seed, 0);
    double[] x = new double[n * voxels];
    for (int v = 0; v < voxels; v++) {
      int kind = INTEGER_KINDS[v % INTEGER_KINDS.length];
      int src = kind + KINDS * v; // a column of that kind, different for every v
      for (int i = 0; i < n; i++) {
        x[i * voxels + v] = kind == 3 ? (v % 2 == 0 ? 0.0 : -1e6) : all[i * voxels * KINDS + src];
      }
    }
    return x;
  }
}
