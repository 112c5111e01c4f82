package org.nlspark.spark.cli;

import java.util.Map;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.result.Result;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.ridge.RidgeResult;
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
      description = "bootstrap samples (default 5000)")
  Long samples;

  @Option(names = "--confidence", paramLabel = "C", order = 13,
      description = "interval confidence in (0, 1) (default 0.95)")
  Double confidence;

  private RidgeBootstrap.Options options;

  @Override
  public String name() {
    return "ridge-bootstrap";
  }

  @Override
  String[] inputPaths() {
    return new String[] {input, target, xTest};
  }

  @Override
  void checkOptions() {
    require("--input", input);
    require("--target", target);
    options = new RidgeBootstrap.Options(alpha == null ? 1.0 : alpha,
        count("--samples", samples, 5000), confidence(confidence), seed(), threads(), budget());
  }

  @Override
  Result execute(SparkSession spark, Map<String, Object> parameters) {
    NpyArray x = read("--input", input, 2);
    NpyArray y = read("--target", target, 0);
    NpyArray t = xTest != null ? read("--x-test", xTest, 2) : null;
    if (y.rank() == 0) {
      throw new InvalidInputException("Cannot run ridge-bootstrap: --target must be 1-D or 2-D,"
          + " but is a scalar");
    }
    parameters.put("alpha", options.alpha());
    parameters.put("samples", options.samples());
    parameters.put("confidence", options.confidence());
    parameters.put("output", t == null ? "weights" : "predictions");
    parameters.put("memory_budget_gb", options.budget().gb());
    parameters.put("memory_budget_source", options.budget().source().describe());
    RidgeResult result = RidgeBootstrap.run(x, y, t, options);
    tilePlan.put("batch_size", result.batchSize);
    tilePlan.put("batches", result.batches);
    tilePlan.put("fold", "replicate order, one replicate at a time");
    return result;
  }
}
