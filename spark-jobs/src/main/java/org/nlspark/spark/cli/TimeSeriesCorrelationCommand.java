package org.nlspark.spark.cli;

import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.Nlspark;
import org.nlspark.core.engine.RunReport;
import java.io.PrintStream;
import java.util.Map;
import java.util.Set;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.result.Result;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.timeseries.SurrogateMethod;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;

/** {@code nlspark timeseries-correlation}: voxel-wise r with a target, surrogate-y null. */
final class TimeSeriesCorrelationCommand extends CoreCommand {
  static final String HELP = ""
      + "Usage: nlspark timeseries-correlation --input X.npy --target y.npy --output DIR [options]\n"
      + "  --input X.npy            (n_timepoints, n_voxels) array\n"
      + "  --target y.npy           (n_timepoints,) series\n"
      + "  --null circle-shift|phase-randomize   surrogates of y (default circle-shift); both\n"
      + "                           keep y's autocorrelation, unlike a permutation\n"
      + "  --permutations P         surrogates (default 5000)\n"
      + "  --tail two|upper|lower   alternative hypothesis (default two)\n"
      + "  --fwer / --no-fwer       max-statistic FWER p-values (default on)\n"
      + "  --threads N              driver threads (default: all cores; results do not change)\n"
      + "Outputs: observed.npy p.npy, with FWER also p_fwer.npy null_max.npy; summary.json\n";

  private NlsparkOptions options;

  TimeSeriesCorrelationCommand(PrintStream out) {
    super(out);
  }

  @Override
  String name() {
    return "timeseries-correlation";
  }

  @Override
  Set<String> valued() {
    return union(COMMON_VALUED, "--input", "--target", "--null", "--permutations", "--tail");
  }

  @Override
  Set<String> switches() {
    return union(COMMON_SWITCHES, "--fwer", "--no-fwer");
  }

  @Override
  void checkOptions() {
    options = apiOptions().nullMethod(args.get("--null", "circle-shift"))
        .replicates(count("--permutations", 5000)).fwer(fwer())
        .tail(args.has("--tail") ? Tail.parse(args.get("--tail")) : Tail.TWO);
    options.toTimeSeriesOptions();
  }

  @Override
  RunReport compute() {
    return Nlspark.timeseriesCorrelation(spark, args.require("--input"), args.require("--target"),
        options);
  }
}
