package org.nlspark.core.isc;

import org.nlspark.core.resample.SubjectDraws;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.nlspark.core.resample.Seeds;
import org.nlspark.core.resample.Surrogates;

/**
 * Brute-force ISC: every replicate materialised as an explicit list of drawn subjects and the
 * correlations of the pairs they form, with two-pass Pearson, textbook arctanh and sort-based
 * numpy median. Shares only the draw functions with the code under test.
 */
final class IscBruteForce {
  private IscBruteForce() {}

  static double pearson(double[] a, double[] b) {
    int n = a.length;
    double ma = 0;
    double mb = 0;
    for (int i = 0; i < n; i++) {
      ma += a[i] / n;
      mb += b[i] / n;
    }
    double xy = 0;
    double xx = 0;
    double yy = 0;
    for (int i = 0; i < n; i++) {
      xy += (a[i] - ma) * (b[i] - mb);
      xx += (a[i] - ma) * (a[i] - ma);
      yy += (b[i] - mb) * (b[i] - mb);
    }
    return xy / Math.sqrt(xx * yy);
  }

  static double[] series(double[] data, int s, int t, int v, int subj, int voxel) {
    double[] x = new double[t];
    for (int i = 0; i < t; i++) {
      x[i] = data[(subj * t + i) * v + voxel];
    }
    return x;
  }

  static double summarize(List<Double> rs, IscMetric metric) {
    double[] a = rs.stream().mapToDouble(Double::doubleValue).toArray();
    if (metric == IscMetric.MEDIAN) {
      Arrays.sort(a);
      int n = a.length;
      return n % 2 == 1 ? a[n / 2] : (a[n / 2 - 1] + a[n / 2]) / 2;
    }
    double z = 0;
    for (double r : a) {
      z += 0.5 * Math.log((1 + r) / (1 - r));
    }
    return Math.tanh(z / a.length);
  }

  /** ISC of explicit per-subject series x[subject][t]. */
  static double isc(double[][] x, IscSummary summary, IscMetric metric) {
    int s = x.length;
    List<Double> rs = new ArrayList<>();
    if (summary == IscSummary.PAIRWISE) {
      for (int i = 0; i < s; i++) {
        for (int j = i + 1; j < s; j++) {
          rs.add(pearson(x[i], x[j]));
        }
      }
    } else {
      for (double r : leaveOneOut(x)) {
        rs.add(r);
      }
    }
    return summarize(rs, metric);
  }

  static double[] leaveOneOut(double[][] x) {
    int s = x.length;
    int t = x[0].length;
    double[] out = new double[s];
    for (int i = 0; i < s; i++) {
      double[] mean = new double[t];
      for (int j = 0; j < s; j++) {
        if (j != i) {
          for (int k = 0; k < t; k++) {
            mean[k] += x[j][k] / (s - 1);
          }
        }
      }
      out[i] = pearson(x[i], mean);
    }
    return out;
  }

  static double[][] subjects(double[] data, int s, int t, int v, int voxel) {
    double[][] x = new double[s][];
    for (int i = 0; i < s; i++) {
      x[i] = series(data, s, t, v, i, voxel);
    }
    return x;
  }

  /** Replicate r of the subject bootstrap for one voxel, from an explicit list of drawn subjects. */
  static double bootstrap(double[] data, int s, int t, int v, int voxel, long seed, long r,
      IscSummary summary, IscMetric metric) {
    int[] counts = new int[s];
    SubjectDraws.subjectCounts(seed, r, s, counts);
    List<Integer> drawn = new ArrayList<>();
    for (int i = 0; i < s; i++) {
      for (int c = 0; c < counts[i]; c++) {
        drawn.add(i);
      }
    }
    double[][] x = subjects(data, s, t, v, voxel);
    List<Double> rs = new ArrayList<>();
    if (summary == IscSummary.PAIRWISE) {
      for (int a = 0; a < drawn.size(); a++) {
        for (int b = a + 1; b < drawn.size(); b++) {
          if (!drawn.get(a).equals(drawn.get(b))) { // a subject with its own copy: excluded
            rs.add(pearson(x[drawn.get(a)], x[drawn.get(b)]));
          }
        }
      }
    } else {
      double[] loo = leaveOneOut(x);
      for (int d : drawn) {
        rs.add(loo[d]);
      }
    }
    return summarize(rs, metric);
  }

  /** Replicate r's surrogate series of every subject at one voxel, via an explicit DFT. */
  static double[][] surrogate(double[] data, int s, int t, int v, int voxel, long seed, long r,
      IscNull method) {
    double[][] x = subjects(data, s, t, v, voxel);
    double[][] out = new double[s][];
    SplittableRandom rng = Seeds.forReplicate(seed, r);
    for (int i = 0; i < s; i++) {
      if (method == IscNull.CIRCLE_SHIFT) {
        int shift = rng.nextInt(t);
        out[i] = new double[t];
        for (int k = 0; k < t; k++) {
          out[i][(k + shift) % t] = x[i][k]; // np.roll(x, shift)
        }
      } else {
        out[i] = phaseRandomize(x[i], Surrogates.drawPhases(rng, t));
      }
    }
    return out;
  }

  /** DFT, rotate frequency k by φ_k (and T − k by −φ_k), inverse DFT, real part. */
  static double[] phaseRandomize(double[] x, double[] phases) {
    int t = x.length;
    double[] re = new double[t];
    double[] im = new double[t];
    for (int k = 0; k < t; k++) {
      for (int u = 0; u < t; u++) {
        double a = -2 * Math.PI * k * u / t;
        re[k] += x[u] * Math.cos(a);
        im[k] += x[u] * Math.sin(a);
      }
    }
    for (int k = 1; k <= phases.length; k++) {
      for (int kk : new int[] {k, t - k}) {
        double ph = kk == k ? phases[k - 1] : -phases[k - 1];
        double c = Math.cos(ph);
        double sn = Math.sin(ph);
        double nr = re[kk] * c - im[kk] * sn;
        double ni = re[kk] * sn + im[kk] * c;
        re[kk] = nr;
        im[kk] = ni;
      }
    }
    double[] y = new double[t];
    for (int u = 0; u < t; u++) {
      double sum = 0;
      for (int k = 0; k < t; k++) {
        double a = 2 * Math.PI * k * u / t;
        sum += re[k] * Math.cos(a) - im[k] * Math.sin(a);
      }
      y[u] = sum / t;
    }
    return y;
  }
}
