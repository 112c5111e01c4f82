package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

  public static TailApproximation of(Result inner, List<Target> targets) {
    Map<String, double[]> replaced = new LinkedHashMap<>();
    Map<String, Object> fits = new LinkedHashMap<>();
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
    List<Output> out = new ArrayList<>();
    for (Output o : inner.outputs()) {
      double[] r = replaced.get(o.name());
      out.add(r == null ? o : new Output(o.name(), o.shape().clone(), r));
    }
    return new TailApproximation(inner, out, fits);
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
