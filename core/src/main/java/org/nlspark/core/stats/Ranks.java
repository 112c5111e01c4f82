package org.nlspark.core.stats;

import java.util.Arrays;

/** Ranks with ties averaged (scipy.stats.rankdata 'average'), 1-based. */
public final class Ranks {
  private Ranks() {}

  public static double[] average(double[] values) {
    int n = values.length;
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    Arrays.sort(order, (p, q) -> Double.compare(values[p], values[q]));
    double[] ranks = new double[n];
    int i = 0;
    while (i < n) {
      int j = i;
      while (j + 1 < n && values[order[j + 1]] == values[order[i]]) {
        j++;
      }
      double rank = (i + j) / 2.0 + 1.0; // mean of 1-based ranks i+1 .. j+1
      for (int k = i; k <= j; k++) {
        ranks[order[k]] = rank;
      }
      i = j + 1;
    }
    return ranks;
  }
}
