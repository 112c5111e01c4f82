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
      + " with FWER p_fwer_cluster.npy null_max_cluster.npy (P,). Both need a mask image (an .npy"
      + " input has no grid: exit 2).";

  @Option(names = "--tfce", order = 24,
      description = "threshold-free cluster enhancement of every replicate's whole map (E = 0.5,"
          + " H = 2, 100 steps, face neighbours), FWER by each map's largest score")
  boolean tfce;

  @Option(names = "--cluster-threshold", paramLabel = "T", order = 25,
      description = "cluster-extent inference: clusters of voxels at least T on the tail's side"
          + " (T > 0), FWER by each map's largest cluster")
  Double clusterThreshold;

  @Option(names = "--fdr", order = 26,
      description = "also Benjamini-Hochberg q maps from the uncorrected p (q, q_tfce; glm"
          + " q_tstat{c} q_fstat{f})")
  boolean fdr;

  void apply(NlsparkOptions o) {
    if (fdr) {
      o.fdr(true);
    }
    if (tfce) {
      o.tfce(true);
    }
    if (clusterThreshold != null) {
      o.clusterThreshold(clusterThreshold);
    }
  }
}
