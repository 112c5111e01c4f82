package org.nlspark.core.result;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code glm --fsl-names}: a result that also holds randomise's output maps under randomise's
 * names, which hold 1 − p (randomise writes 1 − p so that larger is more significant):
 *
 * <pre>
 *   p_tstat1                   -> vox_p_tstat1
 *   p_fwer_tstat1              -> vox_corrp_tstat1
 *   p_tfce_tstat1              -> tfce_p_tstat1
 *   p_fwer_tfce_tstat1         -> tfce_corrp_tstat1
 *   p_fwer_cluster_tstat1      -> clustere_corrp_tstat1
 *   p_fwer_cluster_mass_tstat1 -> clusterm_corrp_tstat1
 * </pre>
 *
 * and {@code fstat{f}} (and variance groups' {@code vstat}, {@code gstat}) likewise;
 * {@code tstat1}, {@code fstat1} and {@code tfce_tstat1} already have randomise's names. Each
 * FSL map follows its p map; NaN stays NaN. The p maps are kept.
 */
public final class FslNames extends DerivedResult {
  private static final String[][] RENAMES = {
      {"p_fwer_cluster_mass_", "clusterm_corrp_"},
      {"p_fwer_cluster_", "clustere_corrp_"},
      {"p_fwer_tfce_", "tfce_corrp_"},
      {"p_tfce_", "tfce_p_"},
      {"p_fwer_", "vox_corrp_"},
      {"p_", "vox_p_"},
  };

  private final Map<String, String> written;

  private FslNames(Result inner, List<Output> outputs, Map<String, String> written) {
    super(inner, outputs);
    this.written = written;
  }

  /** randomise's name of one of our p maps, or null when randomise has none. */
  public static String fslName(String name) {
    for (String[] r : RENAMES) {
      if (name.startsWith(r[0])) {
        String stat = name.substring(r[0].length());
        return stat.matches("[tfvg]stat[0-9]+") ? r[1] + stat : null;
      }
    }
    return null;
  }

  public static FslNames of(Result inner) {
    List<Output> out = new ArrayList<>();
    Map<String, String> written = new LinkedHashMap<>();
    for (Output o : inner.outputs()) {
      out.add(o);
      String fsl = fslName(o.name());
      if (fsl != null && o.shape().length == 1) {
        double[] p = o.values();
        double[] oneMinus = new double[p.length];
        for (int v = 0; v < p.length; v++) {
          oneMinus[v] = 1.0 - p[v];
        }
        out.add(new Output(fsl, o.shape().clone(), oneMinus));
        written.put(fsl, "1 - " + o.name());
      }
    }
    return new FslNames(inner, out, written);
  }

  @Override
  String factKey() {
    return "fsl_names";
  }

  @Override
  Object factValue() {
    return written;
  }
}
