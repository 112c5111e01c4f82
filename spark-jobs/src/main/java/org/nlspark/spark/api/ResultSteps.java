package org.nlspark.spark.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.FdrMaps;
import org.nlspark.core.result.Findings;
import org.nlspark.core.result.FslNames;
import org.nlspark.core.result.Result;
import org.nlspark.core.result.TailApproximation;

/**
 * The steps a finished run's result takes after the engine, each a map added beside the
 * engine's: the tail approximation's refined FWER maps, Benjamini–Hochberg q maps, randomise's
 * 1 − p names. Every run of {@link Nlspark} ends here.
 */
final class ResultSteps {
  private ResultSteps() {}

  /**
   * The FWER maps {@code --tail-approximation} refines: glm's {@code p_fwer_tstat1 ...} (each
   * contrast's tail and enumeration from its draw plan), else {@code p_fwer}, and with them the
   * whole-map FWER maps (TFCE, cluster extent, cluster mass) the run has.
   */
  @SuppressWarnings("unchecked")
  static List<TailApproximation.Target> tailTargets(RunReport report) {
    List<TailApproximation.Target> targets = new ArrayList<>();
    Map<String, Object> facts = report.result.facts();
    if (facts.get("contrasts") instanceof Map) {
      for (Map.Entry<String, Object> e : ((Map<String, Object>) facts.get("contrasts"))
          .entrySet()) {
        Map<String, Object> plan = (Map<String, Object>) e.getValue();
        wholeMapTargets(targets, "_" + e.getKey(), e.getKey(),
            Tail.parse(String.valueOf(plan.get("tail"))),
            Boolean.TRUE.equals(plan.get("exact_enumeration")));
      }
      return targets;
    }
    Object parameters = report.analysis.describe().get("parameters");
    Object tail = parameters instanceof Map
        ? ((Map<String, Object>) parameters).get("tail") : null;
    if (tail != null) {
      wholeMapTargets(targets, "", "observed", Tail.parse(
          String.valueOf(tail)), Boolean.TRUE.equals(facts.get("exact_enumeration")));
    }
    return targets;
  }

  /**
   * The voxelwise FWER map and the whole-map ones of one statistic ({@code s} "" or "_tstat1"),
   * named by {@link Findings.Kind}: TFCE keys are the tail's key of the score, cluster sizes are
   * their own key (upper: a size has no sign), masses |mass| (two-tailed keys). Maps the run does
   * not have are skipped.
   */
  private static void wholeMapTargets(List<TailApproximation.Target> targets, String s,
      String statistic, Tail tail, boolean enumerated) {
    for (Findings.Kind kind : List.of(Findings.Kind.MAX_T, Findings.Kind.TFCE,
        Findings.Kind.CLUSTER_EXTENT, Findings.Kind.CLUSTER_MASS)) {
      Tail keys = !kind.signedScore ? Tail.UPPER
          : kind == Findings.Kind.CLUSTER_MASS ? Tail.TWO : tail;
      targets.add(new TailApproximation.Target(kind.pMap + s,
          kind.scoreMap == null ? statistic : kind.scoreMap + s, kind.nullMap + s, keys,
          enumerated));
    }
  }

  /**
   * With {@link NlsparkOptions#fdr}, the report whose result has a Benjamini–Hochberg q map after
   * each uncorrected p map ({@link FdrMaps}); with {@link NlsparkOptions#fslNames}, randomise's
   * 1 − p maps after the p maps ({@link FslNames}); else {@code report} itself.
   */
  static RunReport applied(RunReport report, NlsparkOptions o) {
    if (!o.fdr() && !o.fslNames() && !o.tailApproximation()) {
      return report;
    }
    Result r = o.tailApproximation()
        ? TailApproximation.of(report.result, tailTargets(report)) : report.result;
    r = o.fdr() ? FdrMaps.of(r) : r;
    r = o.fslNames() ? FslNames.of(r) : r;
    return report.withResult(r);
  }
}
