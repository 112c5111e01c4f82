package org.nlspark.spark.cli;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nlspark two-sample}: label-permutation test of two groups. */
@Command(sortOptions = false, name = "two-sample", description = "Label-permutation test of two groups.",
    customSynopsis = "nlspark two-sample --input X --input2 Y --output DIR [options]",
    footer = {TileCommand.PERMUTATION_OUTPUTS, TfceOptions.OUTPUTS})
final class TwoSampleCommand extends TileCommand {
  @Option(names = "--input2", paramLabel = "Y", order = 2,
      description = "(required) the second group (same format, and same grid or voxels, as --input)")
  String input2;

  @Option(names = "--stat", paramLabel = "mean-diff|welch-t", order = 10,
      description = "statistic (default welch-t)")
  String stat;

  @Mixin PermutationOptions permutation;
  @Mixin TfceOptions wholeMap;

  @Override
  Analysis analysis() {
    return Analysis.TWO_SAMPLE;
  }

  @Override
  void requireOthers() {
    require("--input2", input2);
  }

  @Override
  String input2() {
    return input2;
  }

  @Override
  String[] otherInputs() {
    return new String[] {input2};
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
