package org.nlspark.spark.cli;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nlspark one-sample}: sign-flip permutation test against 0. */
@Command(sortOptions = false, name = "one-sample", description = "Sign-flip permutation test against 0.",
    customSynopsis = "nlspark one-sample --input X --output DIR [options]",
    footer = {TileCommand.PERMUTATION_OUTPUTS, TfceOptions.OUTPUTS})
final class OneSampleCommand extends TileCommand {
  @Option(names = "--stat", paramLabel = "mean|t", order = 10,
      description = "statistic (default t)")
  String stat;

  @Mixin PermutationOptions permutation;
  @Mixin TfceOptions wholeMap;

  @Override
  Analysis analysis() {
    return Analysis.ONE_SAMPLE;
  }

  @Override
  void configure(NlsparkOptions.Builder o) {
    statistic(o, "--stat", stat);
    permutation(o, permutation);
    wholeMap.apply(o);
  }

  @Override
  RunReport execute(SparkSession spark, NlsparkOptions options) {
    return runStudy(spark, options, null);
  }
}
