package org.nlspark.spark.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Set;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.result.Result;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.ridge.RidgeResult;

/** {@code nlspark ridge-bootstrap}: bootstrap of ridge weights or predictions. */
final class RidgeBootstrapCommand extends CoreCommand {
  static final String HELP = ""
      + "Usage: nlspark ridge-bootstrap --input X.npy --target Y.npy --output DIR [options]\n"
      + "  --input X.npy            (n_samples, n_features) design; no intercept is fitted\n"
      + "  --target Y.npy           (n_samples, n_targets) or (n_samples,) responses\n"
      + "  --alpha A                ridge penalty > 0 (default 1.0)\n"
      + "  --x-test T.npy           (n_test, n_features): summarise predictions, not weights\n"
      + "  --samples B              bootstrap samples (default 5000)\n"
      + "  --confidence C           interval confidence in (0, 1) (default 0.95)\n"
      + "  --threads N              driver threads (default: all cores; results do not change)\n"
      + "Outputs: mean std ci_lower ci_upper z p (.npy) of shape (n_features, n_targets), or\n"
      + "(n_test, n_targets) with --x-test; summary.json\n";

  private RidgeBootstrap.Options options;

  RidgeBootstrapCommand(PrintStream out) {
    super(out);
  }

  @Override
  String name() {
    return "ridge-bootstrap";
  }

  @Override
  Set<String> valued() {
    return union(COMMON_VALUED, "--input", "--target", "--alpha", "--x-test", "--samples",
        "--confidence");
  }

  @Override
  Set<String> switches() {
    return COMMON_SWITCHES;
  }

  @Override
  void checkOptions() {
    Double alpha = args.doubleValue("--alpha");
    options = new RidgeBootstrap.Options(alpha == null ? 1.0 : alpha, count("--samples", 5000),
        confidence(), seed(), threads(), budget());
  }

  @Override
  Result compute(Map<String, Object> parameters) {
    NpyArray x = read("--input", 2);
    NpyArray y = read("--target", 0);
    NpyArray xTest = args.has("--x-test") ? read("--x-test", 2) : null;
    if (y.rank() == 0) {
      throw new InvalidInputException("Cannot run ridge-bootstrap: --target must be 1-D or 2-D,"
          + " but is a scalar");
    }
    parameters.put("alpha", options.alpha());
    parameters.put("samples", options.samples());
    parameters.put("confidence", options.confidence());
    parameters.put("output", xTest == null ? "weights" : "predictions");
    parameters.put("memory_budget_gb", options.budget().gb());
    parameters.put("memory_budget_source", options.budget().source().describe());
    RidgeResult result = RidgeBootstrap.run(x, y, xTest, options);
    tilePlan.put("batch_size", result.batchSize);
    tilePlan.put("batches", result.batches);
    tilePlan.put("fold", "replicate order, one replicate at a time");
    return result;
  }
}
