package org.nlspark.spark.cli;

import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.Nlspark;
import org.nlspark.core.engine.RunReport;
import java.io.PrintStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.spark.api.java.JavaSparkContext;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.result.Result;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/** {@code nlspark isc}: intersubject correlation with a bootstrap or surrogate null. */
final class IscCommand extends CoreCommand {
  static final String HELP = ""
      + "Usage: nlspark isc --input D.npy --output DIR [options]\n"
      + "  --input D.npy            (n_subjects, n_timepoints, n_voxels) array\n"
      + "  --summary pairwise|leave-one-out   correlations summarised (default pairwise)\n"
      + "  --metric median|mean     median of r, or mean through Fisher z (default median)\n"
      + "  --null bootstrap|circle-shift|phase-randomize   null (default bootstrap)\n"
      + "  --samples B              bootstrap samples (default 5000; --null bootstrap)\n"
      + "  --permutations P         surrogates (default 5000; circle-shift, phase-randomize)\n"
      + "  --confidence C           interval confidence in (0, 1) (default 0.95)\n"
      + "  --tail two|upper|lower   alternative hypothesis (default two)\n"
      + "  --fwer / --no-fwer       max-statistic FWER for surrogate nulls (default on)\n"
      + "  --threads N              driver threads (default: all cores; results do not change)\n"
      + "  --partitions N           run the voxel blocks as Spark tasks in N partitions (default:\n"
      + "                           driver threads under local masters, one block per task else)\n"
      + "Outputs: isc p ci_lower ci_upper (.npy), with a surrogate null and FWER also p_fwer\n"
      + "null_max; summary.json. Surrogates shift or phase-randomize each subject's series by one\n"
      + "draw shared across that subject's voxels: that keeps each subject's spatial and temporal\n"
      + "autocorrelation and breaks only the alignment in time between subjects.\n";

  private NlsparkOptions options;

  IscCommand(PrintStream out) {
    super(out);
  }

  @Override
  String name() {
    return "isc";
  }

  @Override
  Set<String> valued() {
    return union(COMMON_VALUED, "--input", "--summary", "--metric", "--null", "--samples",
        "--permutations", "--confidence", "--tail");
  }

  @Override
  Set<String> switches() {
    return union(COMMON_SWITCHES, "--fwer", "--no-fwer", "--save-samples");
  }

  @Override
  void checkOptions() {
    IscNull nul = IscNull.parse(args.get("--null", "bootstrap"));
    String used = nul == IscNull.BOOTSTRAP ? "--samples" : "--permutations";
    String other = nul == IscNull.BOOTSTRAP ? "--permutations" : "--samples";
    if (args.has(other)) {
      throw new InvalidInputException("Cannot run isc: " + other + " does not apply to --null "
          + nul.cliName() + "; use " + used);
    }
    options = apiOptions().iscSummary(args.get("--summary", "pairwise"))
        .iscMetric(args.get("--metric", "median")).nullMethod(nul.cliName())
        .replicates(count(used, 5000)).confidence(confidence()).fwer(fwer())
        .tail(args.has("--tail") ? Tail.parse(args.get("--tail")) : Tail.TWO)
        .saveSamples(args.flag("--save-samples"));
    options.toIscOptions(); // every option checked before Spark starts
  }

  @Override
  RunReport compute() {
    return Nlspark.isc(spark, args.require("--input"), options);
  }
}
