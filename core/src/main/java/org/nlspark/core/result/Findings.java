package org.nlspark.core.result;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a run found, from its outputs alone, for summary.json, the result line and the report:
 * voxels below 0.05 and 0.01 (uncorrected {@code p} and, when present, {@code p_fwer}), and the
 * largest statistic by absolute value and its voxel. The statistic is the first of
 * {@code observed}, {@code isc}, {@code mean} that the result has.
 */
public final class Findings {
  private static final String[] STATISTICS = {"observed", "isc", "mean"};

  private Findings() {}

  public static Map<String, Object> of(Result result) {
    Map<String, Object> m = new LinkedHashMap<>();
    double[] p = result.output("p");
    if (p != null) {
      m.put("p_below_0_05", countBelow(p, 0.05));
      m.put("p_below_0_01", countBelow(p, 0.01));
    }
    double[] pFwer = result.output("p_fwer");
    if (pFwer != null) {
      m.put("p_fwer_below_0_05", countBelow(pFwer, 0.05));
      m.put("p_fwer_below_0_01", countBelow(pFwer, 0.01));
    }
    for (String name : STATISTICS) {
      double[] stat = result.output(name);
      if (stat == null) {
        continue;
      }
      int at = -1;
      for (int v = 0; v < stat.length; v++) {
        if (!Double.isNaN(stat[v]) && (at < 0 || Math.abs(stat[v]) > Math.abs(stat[at]))) {
          at = v;
        }
      }
      m.put("statistic", name);
      m.put("max_abs_statistic", at < 0 ? null : stat[at]);
      m.put("max_abs_statistic_voxel", at < 0 ? null : at);
      break;
    }
    return m;
  }

  /** Values strictly below {@code alpha} (NaN never counts). */
  public static int countBelow(double[] values, double alpha) {
    int n = 0;
    for (double v : values) {
      if (v < alpha) {
        n++;
      }
    }
    return n;
  }
}
