package org.nlspark.spark.cli;

import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Option;

/**
 * Inference beyond the voxelwise maps of the permutation tests (DESIGN §9): TFCE and cluster
 * extent on whole maps, and FDR q maps.
 */
public final class TfceOptions {
  static final String OUTPUTS = "With --tfce also tfce.npy (signed scores) p_tfce.npy, with FWER"
      + " p_fwer_tfce.npy null_max_tfce.npy (P,); with --cluster-threshold also cluster_size.npy,"
      + " with FWER p_fwer_cluster.npy null_max_cluster.npy (P,); with --cluster-mass also"
      + " cluster_mass.npy, with FWER p_fwer_cluster_mass.npy null_max_cluster_mass.npy (P,). All"
      + " need a mask image (an .npy input has no grid: exit 2).";

  @Option(names = "--tfce", order = 24,
      description = "threshold-free cluster enhancement of every replicate's whole map (E = 0.5,"
          + " H = 2, 100 steps, face neighbours), FWER by each map's largest score")
  boolean tfce;

  @Option(names = "--cluster-threshold", paramLabel = "T", order = 25,
      description = "cluster-extent inference: clusters of voxels at least T on the tail's side"
          + " (T > 0), FWER by each map's largest cluster")
  Double clusterThreshold;

  @Option(names = "--cluster-mass", paramLabel = "T", order = 25,
      description = "cluster-mass inference (randomise -C): clusters of voxels at least T on the"
          + " tail's side, mass = sum of the statistic over each, FWER by each map's largest"
          + " mass")
  Double clusterMass;

  @Option(names = "--connectivity", paramLabel = "6|18|26", order = 25,
      description = "neighbours of clusters (extent and mass): faces (6), edges (18) or corners"
          + " (26, the default, as randomise and PALM)")
  Integer connectivity;

  @Option(names = "--cluster-rule", paramLabel = "randomise|nilearn", order = 25,
      description = "how clusters form and what mass sums: randomise (the default, as randomise"
          + " and PALM: voxels at least T, mass = sum of the statistic) or nilearn (as nilearn's"
          + " non_parametric_inference threshold=: voxels above T, mass = sum of |stat| - T)")
  String clusterRule;

  @Option(names = "--tfce-e", paramLabel = "E", order = 25,
      description = "TFCE extent exponent, in (0, 10] (default 0.5, as FSL's --tfce_E; 1 with"
          + " --tfce-2d)")
  Double tfceE;

  @Option(names = "--tfce-h", paramLabel = "H", order = 25,
      description = "TFCE height exponent, in (0, 10] (default 2, as FSL's --tfce_H)")
  Double tfceH;

  @Option(names = "--tfce-connectivity", paramLabel = "6|18|26", order = 25,
      description = "TFCE neighbours: faces (6, the default, as FSL's --tfce_C), edges (18) or"
          + " corners (26; the default with --tfce-2d)")
  Integer tfceConnectivity;

  @Option(names = "--tfce-2d", order = 25,
      description = "TFCE for 2-D data, FSL's --T2: H = 2, E = 1, 26 neighbours (implies --tfce)")
  boolean tfce2d;

  @Option(names = "--tail-approximation", order = 26,
      description = "refine the p below 0.1 by a generalised Pareto fit to the tail of the"
          + " null (PALM's -accel tail): FWER p from the max-statistic null, uncorrected p from"
          + " each voxel's own (its largest ~P/4 null values kept per voxel), so that a strong"
          + " effect can get p below 1/(P + 1)")
  boolean tailApproximation;

  @Option(names = "--fdr", order = 26,
      description = "also Benjamini-Hochberg q maps from the uncorrected p (q, q_tfce; glm"
          + " q_tstat{c} q_fstat{f})")
  boolean fdr;

  void apply(NlsparkOptions.Builder o) {
    if (fdr) {
      o.fdr(true);
    }
    if (tailApproximation) {
      o.tailApproximation(true);
    }
    if (tfce) {
      o.tfce(true);
    }
    if (clusterThreshold != null) {
      o.clusterThreshold(clusterThreshold);
    }
    if (clusterMass != null) {
      o.clusterMass(clusterMass);
    }
    o.connectivity(connectivity);
    if (clusterRule != null) {
      o.clusterRule(org.nlspark.core.tfce.ClusterExtent.Rule.named(clusterRule));
    }
    o.tfceE(tfceE).tfceH(tfceH).tfceConnectivity(tfceConnectivity).tfce2d(tfce2d);
    o.build().wholeMapSettings(); // every value checked before Spark starts
  }
}
