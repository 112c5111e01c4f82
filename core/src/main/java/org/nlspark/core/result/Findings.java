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
    Map<String, Object> glm = ofContrasts(result);
    if (glm != null) {
      return glm;
    }
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

  /**
   * A GLM result (DESIGN §9: {@code tstat1}, {@code p_tstat1}, ... per contrast): the first
   * contrast's findings under the usual keys, and every contrast's under {@code contrasts}; null
   * for any other result.
   */
  private static Map<String, Object> ofContrasts(Result result) {
    Map<String, Object> per = new LinkedHashMap<>();
    for (Output o : result.outputs()) {
      String name = o.name();
      if (name.matches("[tf]stat[0-9]+") && result.output("p_" + name) != null) {
        per.put(name, contrast(name, o.values(), result.output("p_" + name),
            result.output("p_fwer_" + name)));
      }
    }
    if (per.isEmpty()) {
      return null;
    }
    @SuppressWarnings("unchecked")
    Map<String, Object> m = new LinkedHashMap<>((Map<String, Object>) per.values().iterator()
        .next());
    m.put("contrasts", per);
    return m;
  }

  private static Map<String, Object> contrast(String name, double[] stat, double[] p,
      double[] pFwer) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("p_below_0_05", countBelow(p, 0.05));
    m.put("p_below_0_01", countBelow(p, 0.01));
    if (pFwer != null) {
      m.put("p_fwer_below_0_05", countBelow(pFwer, 0.05));
      m.put("p_fwer_below_0_01", countBelow(pFwer, 0.01));
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
