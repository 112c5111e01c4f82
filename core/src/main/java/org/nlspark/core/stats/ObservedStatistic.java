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
    return statistic.dispatch(new Statistic.Dispatch<Double>() {
      @Override
      public Double bootstrapLinear(Statistic.Reduction reduction) {
        int n = c.length;
        double sum = 0;
        for (double d : c) {
          sum += d;
        }
        switch (reduction) {
          case SUM:
            return sum;
          case MEAN:
            return sum / n;
          default: {
            double m = sum / n;
            double ss = 0;
            for (double d : c) {
              ss += (d - m) * (d - m);
            }
            return Math.sqrt(ss / n);
          }
        }
      }

      @Override
      public Double bootstrapOrder(Statistic.Order order) {
        switch (order) {
          case MIN:
            return Arrays.stream(c).min().orElse(Double.NaN);
          case MAX:
            return Arrays.stream(c).max().orElse(Double.NaN);
          default: {
            int n = c.length;
            double[] s = c.clone();
            Arrays.sort(s);
            return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2.0;
          }
        }
      }

      @Override
      public Double signFlip(boolean tStatistic) {
        return none();
      }

      @Override
      public Double twoSample(boolean welch) {
        return none();
      }

      @Override
      public Double correlation(boolean spearman) {
        return none();
      }

      private Double none() {
        throw new IllegalArgumentException("[BUG] no observed value for statistic " + statistic);
      }
    });
  }
}
