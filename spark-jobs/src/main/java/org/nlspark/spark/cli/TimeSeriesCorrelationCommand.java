package org.nlspark.spark.cli;

import org.nlspark.core.engine.RunReport;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.timeseries.SurrogateMethod;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nlspark timeseries-correlation}: voxel-wise r with a target, surrogate-y null. */
@Command(sortOptions = false, name = "timeseries-correlation",
    description = "Each voxel's correlation with a target series, against surrogates of the"
        + " target.",
    customSynopsis = "nlspark timeseries-correlation --input X.npy --target y.npy --output DIR"
        + " [options]",
    footer = {"Outputs: observed.npy p.npy, with FWER also p_fwer.npy null_max.npy;"
        + " summary.json.", CoreCommand.CPU_ONLY})
final class TimeSeriesCorrelationCommand extends CoreCommand {
  @Option(names = "--input", paramLabel = "X.npy", order = 1,
      description = "(required) (n_timepoints, n_voxels) array")
  String input;

  @Option(names = "--target", paramLabel = "y.npy", order = 2,
      description = "(required) (n_timepoints,) series")
  String target;

  @Option(names = "--null", paramLabel = "circle-shift|phase-randomize", order = 10,
      description = "surrogates of y (default circle-shift); both keep y's autocorrelation,"
          + " unlike a permutation")
  String nullMethod;

  @Mixin PermutationOptions permutation;

  private NlsparkOptions options;

  @Override
  public String name() {
    return "timeseries-correlation";
  }

  @Override
  String[] inputPaths() {
    return new String[] {input, target};
  }

  @Override
  void checkOptions() {
    require("--input", input);
    require("--target", target);
    SurrogateMethod m = SurrogateMethod.parse(nullMethod == null ? "circle-shift" : nullMethod,
        "--null");
    options = apiOptions().nullMethod(nullMethod == null ? "circle-shift" : nullMethod)
        .replicates(count("--permutations", permutation.permutations, 5000))
        .tail(permutation.tail()).fwer(permutation.fwer());
    options.toTimeSeriesOptions();
  }

  @Override
  RunReport execute(SparkSession spark) {
    return Nlspark.timeseriesCorrelation(spark, input, target, options);
  }
}
