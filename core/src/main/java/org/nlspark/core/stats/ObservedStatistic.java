package org.nlspark.core.stats;

import java.util.Arrays;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Statistic;

/**
 * A bootstrap statistic on the full data, per voxel ({@code observed.npy}, DESIGN §6): what the
 * bootstrap is about, as numpy would compute it on the columns (std with ddof = 0 like the
 * bootstrap kernel, median as numpy's mean of the two middle values).
 */
public final class ObservedStatistic {
  private ObservedStatistic() {}

  public static double[] of(Statistic statistic, DataMatrix x) {
    int n = x.rows();
    int v = x.cols();
    double[] out = new double[v];
    double[] column = new double[n];
    for (int j = 0; j < v; j++) {
      for (int i = 0; i < n; i++) {
        column[i] = x.get(i, j);
      }
      out[j] = of(statistic, column);
    }
    return out;
  }

  static double of(Statistic statistic, double[] c) {
    int n = c.length;
    double sum = 0;
    for (double d : c) {
      sum += d;
    }
    switch (statistic) {
      case BOOTSTRAP_SUM:
        return sum;
      case BOOTSTRAP_MEAN:
        return sum / n;
      case BOOTSTRAP_STD: {
        double m = sum / n;
        double ss = 0;
        for (double d : c) {
          ss += (d - m) * (d - m);
        }
        return Math.sqrt(ss / n);
      }
      case BOOTSTRAP_MIN:
        return Arrays.stream(c).min().orElse(Double.NaN);
      case BOOTSTRAP_MAX:
        return Arrays.stream(c).max().orElse(Double.NaN);
      case BOOTSTRAP_MEDIAN: {
        double[] s = c.clone();
        Arrays.sort(s);
        return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
      }
      default:
        throw new IllegalArgumentException("[BUG] no observed value for statistic " + statistic);
    }
  }
}
