package org.nlspark.spark.cli;

import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.Nlspark;
import org.nlspark.core.engine.RunReport;
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

  private NlsparkOptions options;

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
    return union(COMMON_SWITCHES, "--save-samples");
  }

  @Override
  void checkOptions() {
    Double alpha = args.doubleValue("--alpha");
    options = apiOptions().alpha(alpha == null ? 1.0 : alpha)
        .replicates(count("--samples", 5000)).confidence(confidence())
        .saveSamples(args.flag("--save-samples"));
    options.toRidgeOptions();
  }

  @Override
  RunReport compute() {
    return Nlspark.ridgeBootstrap(spark, args.require("--input"), args.require("--target"),
        args.get("--x-test"), options);
  }
}
