package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Tail;

/**
 * What a run found, from its outputs alone, for summary.json, the result line and the report.
 *
 * <p>The first keys are the run's headline: voxels below 0.05 and 0.01 (uncorrected {@code p}
 * and, when present, {@code p_fwer}), and the largest statistic by absolute value and its voxel;
 * the statistic is the first of {@code observed}, {@code isc}, {@code mean} that the result has
 * (glm: the first contrast's, and each contrast's under {@code contrasts}).
 *
 * <p>Then {@code inferences}: one entry per inference that ran and per statistic (each glm
 * contrast), found by the names of the maps the run wrote ({@link Kind}: max-T, TFCE, cluster
 * extent and mass, FWER across contrasts, FDR, uncorrected, bootstrap interval). Each says its
 * maps, tail, count at 0.05 and 0.01, the smallest p its draws can reach, and its peak: the voxel
 * with the largest score on the tested tail, with the statistic there, in voxel index, (i, j, k)
 * and mm when the run had a grid.
 */
public final class Findings {
  private static final String[] STATISTICS = {"observed", "isc", "mean"};

  /**
   * One kind of inference by the names of its maps (DESIGN §9; statistic suffix {@code s} is ""
   * for the permutation tests and {@code _tstat1} ... for glm): the score map whose peak is
   * reported ({@code null}: the statistic itself), the p (or q) map counted, and the null of the
   * replicates' maxima when there is one. A new kind of inference is one more constant here.
   */
  public enum Kind {
    MAX_T("max-T", null, "p_fwer", "null_max", "p_fwer", true),
    TFCE("TFCE", "tfce", "p_fwer_tfce", "null_max_tfce", "p_fwer", true),
    CLUSTER_EXTENT("cluster extent", "cluster_size", "p_fwer_cluster", "null_max_cluster",
        "p_fwer", false),
    CLUSTER_MASS("cluster mass", "cluster_mass", "p_fwer_cluster_mass",
        "null_max_cluster_mass", "p_fwer", true),
    MAX_T_ACROSS_CONTRASTS("max-T across contrasts", null, "p_cfwer", null, "p_cfwer", true),
    FDR("FDR", null, "q", null, "q", true),
    UNCORRECTED("uncorrected", null, "p", null, "p", true);

    /** As the result line and the report name it. */
    public final String label;
    /** The whole-map score's map name (before a contrast's suffix), or null for the statistic. */
    public final String scoreMap;
    /** The p map's name (before a contrast's suffix). */
    public final String pMap;
    /** The null distribution's map name (before a contrast's suffix), or null. */
    public final String nullMap;
    /** What is counted below alpha: p_fwer, q, p. */
    public final String measure;
    /** Whether the score carries the statistic's sign (cluster extent is a size: it does not). */
    public final boolean signedScore;

    Kind(String label, String scoreMap, String pMap, String nullMap, String measure,
        boolean signedScore) {
      this.label = label;
      this.scoreMap = scoreMap;
      this.pMap = pMap;
      this.nullMap = nullMap;
      this.measure = measure;
      this.signedScore = signedScore;
    }
  }

  /** The label of the bootstrap's interval entry. */
  public static final String BOOTSTRAP = "bootstrap interval";

  private Findings() {}

  /** Without a summary or a grid (peaks as voxel indices, tails two-sided). */
  public static Map<String, Object> of(Result result) {
    return of(result, Map.of(), null);
  }

  /**
   * @param summary summary.json as far as it is known (parameters, resampling): tails and
   *     whether the draws were enumerated
   * @param mask the grid of image inputs, or null (peaks then have no mm)
   */
  public static Map<String, Object> of(Result result, Map<String, Object> summary,
      NiftiMask mask) {
    Map<String, Object> m = ofContrasts(result);
    if (m == null) {
      m = headline(result);
    }
    List<Map<String, Object>> inferences = inferences(result, summary, mask);
    if (!inferences.isEmpty()) {
      m.put("inferences", inferences);
    }
    return m;
  }

  private static Map<String, Object> headline(Result result) {
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

  /** The statistics a result tests: each glm contrast map, else the permutation statistic. */
  private static List<String> statistics(Result result) {
    List<String> names = new ArrayList<>();
    for (Output o : result.outputs()) {
      if (o.name().matches("[tf]stat[0-9]+")) {
        names.add(o.name());
      }
    }
    if (names.isEmpty()) {
      for (String name : new String[] {"observed", "isc"}) {
        if (result.output(name) != null) {
          names.add(name);
          break;
        }
      }
    }
    return names;
  }

  private static List<Map<String, Object>> inferences(Result result, Map<String, Object> summary,
      NiftiMask mask) {
    List<Map<String, Object>> list = new ArrayList<>();
    boolean glm = false;
    boolean bootstrap = result.output("ci_lower") != null && result.output("ci_upper") != null
        && result.output("null_max") == null;
    for (String statistic : bootstrap ? List.<String>of() : statistics(result)) {
      glm |= statistic.matches("[tf]stat[0-9]+");
      String s = statistic.matches("[tf]stat[0-9]+") ? "_" + statistic : "";
      double[] stat = result.output(statistic);
      Tail tail = tailOf(summary, statistic);
      Double smallestP = smallestP(result, summary, statistic, s);
      for (Kind kind : Kind.values()) {
        double[] p = result.output(kind.pMap + s);
        if (p == null || p.length != stat.length) {
          continue;
        }
        double[] score = kind.scoreMap == null ? stat : result.output(kind.scoreMap + s);
        if (score == null || score.length != stat.length) {
          score = stat;
        }
        Map<String, Object> e = new LinkedHashMap<>();
        e.put("statistic", statistic);
        e.put("statistic_label", label(statistic, summary));
        e.put("inference", kind.label);
        e.put("measure", kind.measure);
        e.put("p_map", kind.pMap + s);
        e.put("score_map", kind.scoreMap == null ? statistic : kind.scoreMap + s);
        String nullMap = kind.nullMap == null ? null : kind.nullMap + s;
        e.put("null_map", nullMap != null && result.output(nullMap) != null ? nullMap : null);
        e.put("tail", tail.cliName());
        e.put("below_0_05", countBelow(p, 0.05));
        e.put("below_0_01", countBelow(p, 0.01));
        e.put("smallest_possible_p", smallestP);
        int peak = peak(score, stat, tail, kind.signedScore);
        putPeak(e, peak, stat, mask);
        if (peak >= 0 && score != stat) {
          e.put("peak_score", score[peak]);
        }
        if (peak >= 0) {
          e.put("peak_p", p[peak]);
        }
        if (kind == Kind.CLUSTER_EXTENT || kind == Kind.CLUSTER_MASS) {
          e.put("cluster_threshold", clusterThreshold(result, summary, statistic, kind));
        }
        list.add(e);
      }
    }
    if (!glm) {
      Map<String, Object> boot = bootstrap(result, summary, mask);
      if (boot != null) {
        list.add(boot);
      }
    }
    return list;
  }

  /**
   * The bootstrap's entry: intervals that exclude 0 (at the run's confidence), the normal
   * p = 2(1 - Phi(|z|)) below 0.05 and 0.01, and the peak by |z| with the statistic there.
   */
  private static Map<String, Object> bootstrap(Result result, Map<String, Object> summary,
      NiftiMask mask) {
    double[] lo = result.output("ci_lower");
    double[] hi = result.output("ci_upper");
    double[] z = result.output("z");
    double[] stat = result.output("observed");
    if (stat == null) {
      stat = result.output("mean");
    }
    if (lo == null || hi == null || z == null || stat == null || lo.length != hi.length
        || z.length != lo.length || stat.length != lo.length) {
      return null;
    }
    Map<String, Object> e = new LinkedHashMap<>();
    e.put("statistic", result.output("observed") != null ? "observed" : "mean");
    e.put("statistic_label", label("observed", summary));
    e.put("inference", BOOTSTRAP);
    e.put("measure", "interval excludes 0");
    Object confidence = section(summary, "parameters").get("confidence");
    e.put("confidence", confidence instanceof Number ? confidence : null);
    int excludes = 0;
    for (int v = 0; v < lo.length; v++) {
      excludes += lo[v] > 0 || hi[v] < 0 ? 1 : 0;
    }
    e.put("intervals_excluding_0", excludes);
    double[] p = result.output("p");
    if (p != null && p.length == lo.length) {
      e.put("p_below_0_05", countBelow(p, 0.05));
      e.put("p_below_0_01", countBelow(p, 0.01));
    }
    e.put("tail", Tail.TWO.cliName());
    int peak = peak(z, z, Tail.TWO, true);
    putPeak(e, peak, stat, mask);
    if (peak >= 0) {
      e.put("peak_z", z[peak]);
      e.put("peak_ci", new double[] {lo[peak], hi[peak]});
    }
    return e;
  }

  private static void putPeak(Map<String, Object> e, int peak, double[] stat, NiftiMask mask) {
    e.put("peak_voxel", peak < 0 ? null : peak);
    e.put("peak_statistic", peak < 0 ? null : stat[peak]);
    if (peak >= 0 && mask != null && peak < mask.count()) {
      int[] ijk = mask.ijk(peak);
      double[][] a = mask.grid().affine();
      double[] mm = new double[3];
      for (int r = 0; r < 3; r++) {
        mm[r] = a[r][0] * ijk[0] + a[r][1] * ijk[1] + a[r][2] * ijk[2] + a[r][3];
      }
      e.put("peak_ijk", ijk);
      e.put("peak_mm", mm);
    }
  }

  /**
   * The voxel with the largest score on the tested tail (its key: |s|, s or -s; a size as it is),
   * ties broken by the statistic's key, then by the lower index; -1 when every score is NaN.
   */
  static int peak(double[] score, double[] stat, Tail tail, boolean signedScore) {
    int at = -1;
    double best = Double.NaN;
    double bestStat = Double.NaN;
    for (int v = 0; v < score.length; v++) {
      double k = signedScore ? tail.key(score[v]) : score[v];
      double ks = tail.key(stat[v]);
      if (Double.isNaN(k) || Double.isNaN(ks)) {
        continue;
      }
      if (at < 0 || k > best || (k == best && ks > bestStat)) {
        at = v;
        best = k;
        bestStat = ks;
      }
    }
    return at;
  }

  /** The tail a statistic was tested with: glm per contrast (F upper), else the run's. */
  private static Tail tailOf(Map<String, Object> summary, String statistic) {
    Object perContrast = section(section(summary, "resampling"), "contrasts").get(statistic);
    Object t = perContrast instanceof Map ? ((Map<?, ?>) perContrast).get("tail") : null;
    if (t == null) {
      t = section(summary, "parameters").get("tail");
    }
    if (t == null && (statistic.startsWith("fstat") || statistic.startsWith("gstat"))) {
      return Tail.UPPER;
    }
    try {
      return t == null ? Tail.TWO : Tail.parse(String.valueOf(t));
    } catch (RuntimeException e) {
      return Tail.TWO;
    }
  }

  /**
   * The smallest p the statistic's draws can give: 1 / N when the N distinct draws were all
   * enumerated, else 1 / (P + 1) (DESIGN §4); null when the number of draws is not known.
   */
  private static Double smallestP(Result result, Map<String, Object> summary, String statistic,
      String suffix) {
    Map<String, Object> resampling = section(summary, "resampling");
    Object perContrast = section(resampling, "contrasts").get(statistic);
    Map<?, ?> draws = perContrast instanceof Map ? (Map<?, ?>) perContrast : resampling;
    Long n = null;
    double[] nullMax = result.output("null_max" + suffix);
    if (nullMax != null) {
      n = (long) nullMax.length;
    } else if (draws.get("replicates_drawn") instanceof Number) {
      n = ((Number) draws.get("replicates_drawn")).longValue();
    }
    if (n == null || n <= 0) {
      Object p = result.facts().get("smallest_possible_p");
      return p instanceof Number ? ((Number) p).doubleValue() : null;
    }
    boolean exact = Boolean.TRUE.equals(draws.get("exact_enumeration"));
    return exact ? 1.0 / n : 1.0 / (n + 1);
  }

  /**
   * The cluster-forming threshold as the run recorded it: the whole-map settings
   * ({@code whole_map}), else the merged facts (flat, or per glm contrast).
   */
  private static Object clusterThreshold(Result result, Map<String, Object> summary,
      String statistic, Kind kind) {
    String key = kind == Kind.CLUSTER_MASS ? "cluster_mass" : "cluster_threshold";
    Object t = section(summary, "whole_map").get(key);
    if (!(t instanceof Number)) {
      t = section(summary, "parameters").get(key);
    }
    Map<String, Object> facts = section(result.facts(), "whole_map_inference");
    if (!(t instanceof Number)) {
      t = facts.get(key);
    }
    if (!(t instanceof Number)) {
      t = section(facts, statistic).get(key);
    }
    return t instanceof Number ? t : null;
  }

  /** "t", "F", "v", "G", or the run's statistic parameter ("t", "mean", "welch-t", ...). */
  private static String label(String statistic, Map<String, Object> summary) {
    if (statistic.startsWith("tstat")) {
      return "t";
    }
    if (statistic.startsWith("fstat")) {
      return "F";
    }
    if (statistic.startsWith("vstat")) {
      return "v";
    }
    if (statistic.startsWith("gstat")) {
      return "G";
    }
    Object s = section(summary, "parameters").get("statistic");
    if (s instanceof String) {
      return (String) s;
    }
    Object method = section(summary, "parameters").get("method");
    return method instanceof String ? "r (" + method + ")" : statistic;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> section(Map<?, ?> m, String key) {
    Object o = m == null ? null : m.get(key);
    return o instanceof Map ? (Map<String, Object>) o : Map.of();
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
