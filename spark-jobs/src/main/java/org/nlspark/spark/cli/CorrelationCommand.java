package org.nlspark.spark.cli;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import org.nlspark.spark.io.NpyInputs;

/** {@code nlspark correlation}: permutation test of each voxel's correlation with a target. */
@Command(sortOptions = false, name = "correlation",
    description = "Permutation test of each voxel's correlation with a target (y permuted).",
    customSynopsis = "nlspark correlation --input X --target y.npy --output DIR [options]",
    footer = {TileCommand.PERMUTATION_OUTPUTS, TfceOptions.OUTPUTS})
final class CorrelationCommand extends TileCommand {
  @Option(names = "--target", paramLabel = "y.npy", order = 2,
      description = "(required) (n_samples,) array")
  String target;

  @Option(names = "--method", paramLabel = "pearson|spearman", order = 10,
      description = "correlation (default pearson)")
  String method;

  @Mixin PermutationOptions permutation;
  @Mixin TfceOptions wholeMap;

  @Override
  Analysis analysis() {
    return Analysis.CORRELATION;
  }

  @Override
  void requireOthers() {
    require("--target", target);
  }

  @Override
  String[] otherInputs() {
    return new String[] {target};
  }

  @Override
  void configure(NlsparkOptions.Builder o) {
    statistic(o, "--method", method);
    permutation(o, permutation);
    wholeMap.apply(o);
  }

  @Override
  RunReport execute(SparkSession spark, NlsparkOptions options) {
    return runStudy(spark, options,
        NpyInputs.readVector(conf(spark), target, "--target"));
  }
}
