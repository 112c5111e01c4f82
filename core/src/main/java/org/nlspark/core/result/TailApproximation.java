package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntFunction;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.ParetoTail;

/**
 * {@code --tail-approximation} on the voxelwise FWER p-values (PALM's {@code -accel tail}): for
 * each statistic, a generalised Pareto tail is fitted to its max-statistic null ({@code
 * null_max*}, the maxima of the extremeness key) by {@link ParetoTail}, and every {@code p_fwer*}
 * below 0.1 whose key is above the fit's threshold is replaced by the fitted tail probability;
 * p ≥ 0.1 and voxels at or below the threshold keep their permutation p, and so does every voxel
 * when no fit passes. Exactly enumerated draws are left alone (their p is exact). The fits go to
 * summary.json ({@code result.tail_approximation}). Made on the driver from the merged maps, so
 * as deterministic as they are.
 *
 * <p>{@link #uncorrected} does the same for the uncorrected p maps ({@code p}, {@code p_tstat1}
 * ...), where voxel v's null is its own: the tiles keep each voxel's largest null keys ({@link
 * ParetoTail#retainedTailSize} of P, streamed and merged like the bootstrap tails), a GPD is
 * fitted per voxel with p &lt; 0.1, and the fit replaces p when it passes and the key is above
 * its threshold; summary.json records how many voxels were fitted and how many fell back.
 */
public final class TailApproximation extends DerivedResult {
  /** One FWER map to refine: its statistic map, its null maxima and the statistic's tail. */
  public record Target(String pFwer, String statistic, String nullMax, Tail tail,
      boolean enumerated) {}

  private final Map<String, Object> fits;

  private TailApproximation(Result inner, List<Output> outputs, Map<String, Object> fits) {
    super(inner, outputs);
    this.fits = fits;
  }

  /**
   * One uncorrected p map to refine from each voxel's own null: {@code upperKeys.apply(v)} is
   * voxel v's largest {@code retained} null keys ascending (null when a draw's statistic was
   * undefined there), of {@code draws} in all.
   */
  public record VoxelTarget(String p, String statistic, Tail tail,
      IntFunction<double[]> upperKeys, long draws, int retained, boolean enumerated) {}

  /** The uncorrected maps of {@code targets} refined voxel by voxel (class comment). */
  public static TailApproximation uncorrected(Result inner, List<VoxelTarget> targets) {
    Map<String, double[]> replaced = new LinkedHashMap<>();
    Map<String, Object> fits = priorFits(inner);
    for (VoxelTarget t : targets) {
      double[] p = inner.output(t.p());
      double[] stat = inner.output(t.statistic());
      if (p == null || stat == null) {
        continue;
      }
      Map<String, Object> f = new LinkedHashMap<>();
      fits.put(t.p(), f);
      if (t.enumerated()) {
        f.put("fit", "none: the draws are exactly enumerated, so p is exact");
        continue;
      }
      double[] out = p.clone();
      int below = 0;
      int fitted = 0;
      for (int v = 0; v < out.length; v++) {
        if (!(p[v] < ParetoTail.P_THRESHOLD)) {
          continue;
        }
        below++;
        double[] top = t.upperKeys().apply(v);
        double key = t.tail().key(stat[v]);
        ParetoTail.Fit fit = top == null ? null : ParetoTail.fitUpperTail(top, t.draws());
        if (fit != null && key > fit.threshold()) {
          out[v] = fit.p(key);
          fitted++;
        }
      }
      replaced.put(t.p(), out);
      f.put("fit", "generalised pareto per voxel, method of moments, on the voxel's own null");
      f.put("retained_per_voxel", t.retained());
      f.put("voxels_below_0.1", below);
      f.put("voxels_fitted", fitted);
      f.put("voxels_fell_back", below - fitted);
    }
    return new TailApproximation(inner, replace(inner, replaced), fits);
  }

  /** The fits an inner tail approximation recorded (the uncorrected maps'), to add to. */
  @SuppressWarnings("unchecked")
  private static Map<String, Object> priorFits(Result inner) {
    Object prior = inner.facts().get("tail_approximation");
    return prior instanceof Map ? new LinkedHashMap<>((Map<String, Object>) prior)
        : new LinkedHashMap<>();
  }

  private static List<Output> replace(Result inner, Map<String, double[]> replaced) {
    List<Output> out = new ArrayList<>();
    for (Output o : inner.outputs()) {
      double[] r = replaced.get(o.name());
      out.add(r == null ? o : new Output(o.name(), o.shape().clone(), r));
    }
    return out;
  }

  public static TailApproximation of(Result inner, List<Target> targets) {
    Map<String, double[]> replaced = new LinkedHashMap<>();
    Map<String, Object> fits = priorFits(inner);
    for (Target t : targets) {
      double[] p = inner.output(t.pFwer());
      double[] stat = inner.output(t.statistic());
      double[] nulls = inner.output(t.nullMax());
      if (p == null || stat == null || nulls == null) {
        continue;
      }
      Map<String, Object> f = new LinkedHashMap<>();
      fits.put(t.pFwer(), f);
      if (t.enumerated()) {
        f.put("fit", "none: the draws are exactly enumerated, so p is exact");
        continue;
      }
      ParetoTail.Fit fit = ParetoTail.fit(nulls);
      if (fit == null) {
        f.put("fit", "none passed the Anderson-Darling test: permutation p kept");
        continue;
      }
      double[] out = p.clone();
      int changed = 0;
      for (int v = 0; v < out.length; v++) {
        double key = t.tail().key(stat[v]);
        if (p[v] < ParetoTail.P_THRESHOLD && key > fit.threshold()) {
          out[v] = fit.p(key);
          changed++;
        }
      }
      replaced.put(t.pFwer(), out);
      f.put("fit", "generalised pareto, method of moments");
      f.put("tail_start_quantile", fit.quantile());
      f.put("threshold", fit.threshold());
      f.put("scale", fit.scale());
      f.put("shape", fit.shape());
      f.put("tail_size", fit.tailSize());
      f.put("anderson_darling_p", fit.andersonDarlingP());
      f.put("voxels_replaced", changed);
    }
    return new TailApproximation(inner, replace(inner, replaced), fits);
  }

  @Override
  String factKey() {
    return "tail_approximation";
  }

  @Override
  Object factValue() {
    return fits;
  }
}
