package org.nlspark.spark.cli;

import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.JobSpec;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.apache.spark.sql.SparkSession;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nlspark ridge-bootstrap}: bootstrap of ridge weights or predictions. */
@Command(sortOptions = false, name = "ridge-bootstrap", description = "Bootstrap of ridge weights or predictions.",
    customSynopsis = "nlspark ridge-bootstrap --input X.npy --target Y.npy --output DIR"
        + " [options]",
    footer = {"Outputs: mean std ci_lower ci_upper z p (.npy) of shape (n_features, n_targets),"
        + " or (n_test, n_targets) with --x-test; summary.json.", CoreCommand.CPU_ONLY})
final class RidgeBootstrapCommand extends CoreCommand {
  @Option(names = "--input", paramLabel = "X.npy", order = 1,
      description = "(required) (n_samples, n_features) design; no intercept is fitted")
  String input;

  @Option(names = "--target", paramLabel = "Y.npy", order = 2,
      description = "(required) (n_samples, n_targets) or (n_samples,) responses")
  String target;

  @Option(names = "--alpha", paramLabel = "A", order = 10,
      description = "ridge penalty > 0 (default 1.0)")
  Double alpha;

  @Option(names = "--x-test", paramLabel = "T.npy", order = 11,
      description = "(n_test, n_features): summarise predictions, not weights")
  String xTest;

  @Option(names = "--samples", paramLabel = "B", order = 12,
      description = "bootstrap samples (default " + JobSpec.DEFAULT_BOOTSTRAP_SAMPLES + ")")
  Long samples;

  @Option(names = "--confidence", paramLabel = "C", order = 13,
      description = "interval confidence in (0, 1) (default " + JobSpec.DEFAULT_CONFIDENCE + ")")
  Double confidence;

  @Option(names = "--save-samples", order = 14,
      description = "also write samples.npy, every replicate's solution (B, rows, targets)")
  boolean saveSamples;

  private NlsparkOptions options;

  @Override
  public String name() {
    return "ridge-bootstrap";
  }

  @Override
  String[] inputPaths() {
    return new String[] {input, target, xTest};
  }

  @Override
  NlsparkOptions settings() {
    return options;
  }

  @Override
  void checkOptions() {
    require("--input", input);
    require("--target", target);
    options = apiOptions().alpha(alpha == null ? 1.0 : alpha)
        .replicates(count("--samples", samples, JobSpec.DEFAULT_BOOTSTRAP_SAMPLES))
        .confidence(confidence(confidence))
        .saveSamples(saveSamples).build();
    options.toRidgeOptions();
  }

  @Override
  RunReport execute(SparkSession spark) {
    return Nlspark.ridgeBootstrap(spark, input, target, xTest, options);
  }
}
