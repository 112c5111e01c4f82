package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.stats.FalseDiscoveryRate;

/**
 * {@code --fdr}: a result with a Benjamini–Hochberg q map after each uncorrected p map ({@link
 * FalseDiscoveryRate}): {@code p -> q}, {@code p_tfce -> q_tfce}, and for glm {@code p_tstat{c} ->
 * q_tstat{c}}, {@code p_fstat{f} -> q_fstat{f}}, {@code p_tfce_tstat{c} -> q_tfce_tstat{c}}. FWER
 * maps ({@code p_fwer*}, {@code p_cfwer*}) are already corrected and get none. The q maps are
 * made on the driver from the merged p maps, so they are as deterministic as p.
 */
public final class FdrMaps extends DerivedResult {
  private final List<String> adjusted;

  private FdrMaps(Result inner, List<Output> outputs, List<String> adjusted) {
    super(inner, outputs);
    this.adjusted = adjusted;
  }

  /** Whether {@code name} is an uncorrected p map that {@code --fdr} adjusts. */
  public static boolean isUncorrected(String name) {
    return name.equals("p") || name.equals("p_tfce") || name.matches("p_(tfce_)?[tf]stat[0-9]+");
  }

  /** The q map's name of an uncorrected p map: {@code p_tstat1 -> q_tstat1}. */
  public static String qName(String pName) {
    return "q" + pName.substring(1);
  }

  /** {@code inner} with a q map after each of its uncorrected p maps. */
  public static FdrMaps of(Result inner) {
    List<Output> out = new ArrayList<>();
    List<String> adjusted = new ArrayList<>();
    for (Output o : inner.outputs()) {
      out.add(o);
      if (isUncorrected(o.name()) && o.shape().length == 1) {
        out.add(new Output(qName(o.name()), o.shape().clone(),
            FalseDiscoveryRate.benjaminiHochberg(o.values())));
        adjusted.add(o.name());
      }
    }
    return new FdrMaps(inner, out, List.copyOf(adjusted));
  }

  @Override
  String factKey() {
    return "fdr";
  }

  @Override
  Object factValue() {
    Map<String, Object> fdr = new LinkedHashMap<>();
    fdr.put("method", "benjamini-hochberg");
    fdr.put("from", adjusted);
    Map<String, Object> below = new LinkedHashMap<>();
    for (String p : adjusted) {
      long count = 0;
      for (double q : output(qName(p))) {
        count += q < 0.05 ? 1 : 0;
      }
      below.put(qName(p), count);
    }
    fdr.put("q_below_0_05", below);
    return fdr;
  }
}
