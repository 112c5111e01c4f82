package org.nlspark.core.result;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.glm.GlmResult;

/** randomise's names and 1 − p beside our p maps ({@code --fsl-names}). */
class FslNamesTest {
  @Test
  void everyCorrectedAndUncorrectedPMapGetsRandomisesNameAndOneMinusP() {
    Map<String, double[]> maps = new LinkedHashMap<>();
    String[] ours = {"tstat1", "p_tstat1", "p_fwer_tstat1", "null_max_tstat1", "tfce_tstat1",
        "p_tfce_tstat1", "p_fwer_tfce_tstat1", "cluster_size_tstat1", "p_fwer_cluster_tstat1",
        "cluster_mass_tstat1", "p_fwer_cluster_mass_tstat1", "fstat1", "p_fstat1",
        "p_fwer_fstat1", "p_cfwer_tstat1", "q_tstat1"};
    double[] p = {0.002, 0.5, 1.0, Double.NaN};
    for (String name : ours) {
      maps.put(name, p.clone());
    }
    GlmResult r = new GlmResult(maps, Map.of(), Map.of());
    FslNames fsl = FslNames.of(r);
    List<String> names = fsl.outputs().stream().map(Output::name).toList();
    Map<String, String> expected = Map.of("p_tstat1", "vox_p_tstat1",
        "p_fwer_tstat1", "vox_corrp_tstat1", "p_tfce_tstat1", "tfce_p_tstat1",
        "p_fwer_tfce_tstat1", "tfce_corrp_tstat1", "p_fwer_cluster_tstat1",
        "clustere_corrp_tstat1", "p_fwer_cluster_mass_tstat1", "clusterm_corrp_tstat1",
        "p_fstat1", "vox_p_fstat1", "p_fwer_fstat1", "vox_corrp_fstat1");
    assertThat(names).hasSize(ours.length + expected.size());
    for (Map.Entry<String, String> e : expected.entrySet()) {
      assertThat(names.indexOf(e.getValue())).as(e.getValue())
          .isEqualTo(names.indexOf(e.getKey()) + 1);
      double[] v = fsl.output(e.getValue());
      assertThat(v[0]).isEqualTo(1 - 0.002);
      assertThat(v[1]).isEqualTo(0.5);
      assertThat(v[2]).isEqualTo(0.0);
      assertThat(v[3]).isNaN();
    }
    for (String none : new String[] {"p_cfwer_tstat1", "q_tstat1", "tstat1", "null_max_tstat1"}) {
      assertThat(FslNames.fslName(none)).as(none).isNull();
    }
    assertThat(fsl.facts().get("fsl_names").toString())
        .contains("vox_corrp_tstat1=1 - p_fwer_tstat1");
  }
}
