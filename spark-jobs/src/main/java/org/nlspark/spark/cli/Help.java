package org.nlspark.spark.cli;

import java.util.List;

/** The --help texts of the tool and of each command (DESIGN §6). */
public final class Help {
  private Help() {}

  public static final List<String> COMMANDS = List.of("bootstrap", "one-sample", "two-sample",
      "correlation", "env", "demo");

  private static final String COMMON = ""
      + "Common options:\n"
      + "  --output DIR             output directory (Hadoop URI); refused if it exists and is\n"
      + "                           not empty, unless --overwrite\n"
      + "  --seed S                 random seed (default 0); same seed, same bits\n"
      + "  --backend cpu|gpu|auto   compute backend (default cpu)\n"
      + "  --precision float64|float32   GEMM precision (default float64)\n"
      + "  --memory-budget-gb G     memory per executor for tiles and the bootstrap preflight\n"
      + "                           (default: measured from the Spark executor memory)\n"
      + "  --master URL             Spark master (default local[*], or spark-submit's)\n"
      + "  --partitions N           Spark partitions for the tiles (default: one per tile)\n"
      + "  --overwrite              replace an existing output directory\n"
      + "  --quiet                  no progress line and no result line\n"
      + "  --verbose                stack traces on errors\n";

  private static final String PERMUTATION = ""
      + "  --permutations P         number of permutations (default 5000)\n"
      + "  --tail two|upper|lower   alternative hypothesis (default two)\n"
      + "  --fwer / --no-fwer       max-statistic FWER p-values (default on)\n"
      + "Outputs: observed.npy p.npy, with FWER also p_fwer.npy null_max.npy; summary.json\n";

  public static String tool() {
    return "Usage: nlspark <command> [options]   (nlspark <command> --help for its options)\n"
        + "Resampling statistics over a samples x voxels .npy matrix, on Apache Spark.\n\n"
        + "Commands:\n"
        + "  bootstrap     bootstrap confidence intervals of a per-voxel statistic\n"
        + "  one-sample    sign-flip permutation test against 0\n"
        + "  two-sample    label-permutation test of two groups\n"
        + "  correlation   permutation test of each voxel's correlation with a target\n"
        + "  env           device, BLAS and memory-budget report (--json)\n"
        + "  demo          makes a synthetic data set, runs bootstrap and one-sample\n\n"
        + "Exit codes: 0 done, 1 internal error, 2 bad usage or input, 3 resources refused.\n";
  }

  /** The help of one command, or null if there is no such command. */
  public static String command(String command) {
    switch (command) {
      case "bootstrap":
        return "Usage: nlspark bootstrap --input X.npy --output DIR [options]\n"
            + "  --input X.npy            (n_samples, n_voxels) float32/float64 array\n"
            + "  --stat mean|median|std|sum|min|max   statistic (default mean)\n"
            + "  --samples B              bootstrap samples (default 5000)\n"
            + "  --confidence C           interval confidence in (0, 1) (default 0.95)\n"
            + "  --ci percentile|normal   interval method (default percentile)\n"
            + "  --save-samples           also write samples.npy (B, n_voxels)\n"
            + "Outputs: mean std ci_lower ci_upper z p (.npy), summary.json\n" + COMMON;
      case "one-sample":
        return "Usage: nlspark one-sample --input X.npy --output DIR [options]\n"
            + "  --input X.npy            (n_samples, n_voxels) array\n"
            + "  --stat mean|t            statistic (default t)\n" + PERMUTATION + COMMON;
      case "two-sample":
        return "Usage: nlspark two-sample --input X.npy --input2 Y.npy --output DIR [options]\n"
            + "  --input X.npy, --input2 Y.npy   the two groups (same number of voxels)\n"
            + "  --stat mean-diff|welch-t       statistic (default welch-t)\n" + PERMUTATION
            + COMMON;
      case "correlation":
        return "Usage: nlspark correlation --input X.npy --target y.npy --output DIR [options]\n"
            + "  --input X.npy            (n_samples, n_voxels) array\n"
            + "  --target y.npy           (n_samples,) array\n"
            + "  --method pearson|spearman   correlation (default pearson)\n" + PERMUTATION
            + COMMON;
      case "env":
        return "Usage: nlspark env [--json] [--memory-budget-gb G]\n"
            + "Prints whether a GPU is usable, the backend 'auto' picks, the BLAS in use and\n"
            + "the memory budgets.\n";
      case "demo":
        return "Usage: nlspark demo [--output DIR] [--samples B] [--permutations P] [options]\n"
            + "Makes a synthetic data set (40 subjects x 20,000 voxels, an effect planted in\n"
            + "voxels 0, 50, 100, ...), runs bootstrap and one-sample --stat t, and prints a\n"
            + "table and where the files are (default DIR: nlspark-out/demo).\n" + COMMON;
      default:
        return null;
    }
  }
}
