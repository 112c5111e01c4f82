package org.nlspark.core.engine;

import java.util.Arrays;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.stats.Ranks;

/**
 * Brute force on small data: materialise every replicate's resampled data, compute each statistic
 * with plain loops (no GEMM, no streaming), store all replicates, then count and take percentiles
 * by sorting — the way a numpy user would check a result by hand.
 */
final class NaiveReference {
  private NaiveReference() {}

  /** All replicate statistics, [replicate][voxel]. Row "observed" is returned separately. */
  static double[][] replicates(JobSpec spec, JobInputs in) {
    ResamplingPlan plan = ResamplingPlan.forJob(spec, in);
    int reps = (int) plan.replicates();
    int v = in.voxels();
    double[][] out = new double[reps][v];
    for (int r = 0; r < reps; r++) {
      for (int j = 0; j < v; j++) {
        out[r][j] = statistic(spec, in, plan, r, j);
      }
    }
    return out;
  }

  static double[] observed(JobSpec spec, JobInputs in) {
    double[] out = new double[in.voxels()];
    for (int j = 0; j < out.length; j++) {
      out[j] = statistic(spec, in, null, -1, j);
    }
    return out;
  }

  /** Statistic of replicate r (r = -1: the observed data) at voxel j. */
  static double statistic(JobSpec spec, JobInputs in, ResamplingPlan plan, long r, int j) {
    DataMatrix x = in.x();
    int n = x.rows();
    double[] col = column(x, j);
    switch (spec.analysis()) {
      case BOOTSTRAP: {
        int[] counts = new int[n];
        Draws.bootstrapCounts(spec.seed(), r, n, counts);
        double[] res = new double[n];
        int k = 0;
        for (int i = 0; i < n; i++) {
          for (int c = 0; c < counts[i]; c++) {
            res[k++] = col[i];
          }
        }
        return bootstrapStat(spec.statistic(), res);
      }
      case ONE_SAMPLE: {
        double[] s = new double[n];
        if (r < 0) {
          Arrays.fill(s, 1.0);
        } else if (plan.enumerated()) {
          Draws.enumeratedSignFlips(r, n, s, 0);
        } else {
          Draws.signFlips(spec.seed(), r, n, s, 0);
        }
        double[] f = new double[n];
        for (int i = 0; i < n; i++) {
          f[i] = s[i] * col[i];
        }
        if (allEqual(col) && spec.statistic().equals("t")) {
          return Double.NaN;
        }
        double mean = mean(f);
        return spec.statistic().equals("mean") ? mean : mean / (std(f, 1) / Math.sqrt(n));
      }
      case TWO_SAMPLE: {
        DataMatrix y = in.y();
        int n1 = n;
        int n2 = y.rows();
        double[] z = new double[n1 + n2];
        System.arraycopy(col, 0, z, 0, n1);
        System.arraycopy(column(y, j), 0, z, n1, n2);
        int[] perm = new int[n1 + n2];
        if (r < 0) {
          for (int i = 0; i < perm.length; i++) {
            perm[i] = i;
          }
        } else {
          Draws.permutation(spec.seed(), r, n1 + n2, perm);
        }
        // group membership, summed in index order so equal partitions give equal bits
        boolean[] first = new boolean[n1 + n2];
        for (int i = 0; i < n1; i++) {
          first[perm[i]] = true;
        }
        double[] a = new double[n1];
        double[] b = new double[n2];
        for (int i = 0, ia = 0, ib = 0; i < n1 + n2; i++) {
          if (first[i]) {
            a[ia++] = z[i];
          } else {
            b[ib++] = z[i];
          }
        }
        if (spec.statistic().equals("mean-diff")) {
          return mean(a) - mean(b);
        }
        if (allEqual(col) && allEqual(column(y, j))) {
          return Double.NaN;
        }
        double va = Math.pow(std(a, 1), 2);
        double vb = Math.pow(std(b, 1), 2);
        return (mean(a) - mean(b)) / Math.sqrt(va / n1 + vb / n2);
      }
      case CORRELATION: {
        double[] t = in.target();
        double[] yv = new double[n];
        int[] perm = new int[n];
        if (r < 0) {
          for (int i = 0; i < n; i++) {
            perm[i] = i;
          }
        } else {
          Draws.permutation(spec.seed(), r, n, perm);
        }
        boolean spearman = spec.statistic().equals("spearman");
        double[] tt = spearman ? Ranks.average(t) : t;
        for (int i = 0; i < n; i++) {
          yv[i] = tt[perm[i]];
        }
        if (allEqual(col)) {
          return Double.NaN;
        }
        return spearman ? spearmanExact(col, yv) : pearson(col, yv);
      }
      default:
        throw new IllegalStateException();
    }
  }

  static double bootstrapStat(String stat, double[] res) {
    double[] s = res.clone();
    Arrays.sort(s);
    int n = s.length;
    switch (stat) {
      case "mean":
        return mean(res);
      case "sum":
        return mean(res) * n;
      case "std":
        return std(res, 0);
      case "min":
        return s[0];
      case "max":
        return s[n - 1];
      case "median":
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
      default:
        throw new IllegalStateException(stat);
    }
  }

  static double[] column(DataMatrix x, int j) {
    double[] c = new double[x.rows()];
    for (int i = 0; i < c.length; i++) {
      c[i] = x.get(i, j);
    }
    return c;
  }

  static boolean allEqual(double[] v) {
    for (double d : v) {
      if (d != v[0]) {
        return false;
      }
    }
    return true;
  }

  static double mean(double[] v) {
    double s = 0;
    for (double d : v) {
      s += d;
    }
    return s / v.length;
  }

  static double std(double[] v, int ddof) {
    double m = mean(v);
    double ss = 0;
    for (double d : v) {
      ss += (d - m) * (d - m);
    }
    return Math.sqrt(ss / (v.length - ddof));
  }

  /** Spearman from exact integer sums of 2 * rank - (n + 1) (yRanks already ranked). */
  static double spearmanExact(double[] x, double[] yRanks) {
    int n = x.length;
    double[] rx = Ranks.average(x);
    long sxy = 0;
    long sxx = 0;
    long syy = 0;
    for (int i = 0; i < n; i++) {
      long a = Math.round(2 * rx[i] - (n + 1));
      long b = Math.round(2 * yRanks[i] - (n + 1));
      sxy += a * b;
      sxx += a * a;
      syy += b * b;
    }
    return Math.max(-1.0, Math.min(1.0, sxy / Math.sqrt((double) sxx * (double) syy)));
  }

  static double pearson(double[] a, double[] b) {
    double ma = mean(a);
    double mb = mean(b);
    double sab = 0;
    double saa = 0;
    double sbb = 0;
    for (int i = 0; i < a.length; i++) {
      sab += (a[i] - ma) * (b[i] - mb);
      saa += (a[i] - ma) * (a[i] - ma);
      sbb += (b[i] - mb) * (b[i] - mb);
    }
    return sab / Math.sqrt(saa * sbb);
  }

  /** numpy.percentile(values, q) of a column of replicates. */
  static double percentile(double[][] reps, int j, double q) {
    double[] c = new double[reps.length];
    for (int r = 0; r < reps.length; r++) {
      c[r] = reps[r][j];
    }
    Arrays.sort(c);
    return NumpyPercentile.ofSorted(c, q);
  }

  static double key(String tail, double s) {
    switch (tail) {
      case "two":
        return Math.abs(s);
      case "upper":
        return s;
      default:
        return -s;
    }
  }
}
