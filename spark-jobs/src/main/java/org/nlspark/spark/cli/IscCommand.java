package org.nlspark.spark.cli;

import java.io.PrintStream;
import java.util.Map;
import java.util.Set;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.result.Result;
import org.nlspark.core.stats.Tail;
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
      + "Outputs: isc p ci_lower ci_upper (.npy), with a surrogate null and FWER also p_fwer\n"
      + "null_max; summary.json. Surrogates shift or phase-randomize each subject's series by one\n"
      + "draw shared across that subject's voxels: that keeps each subject's spatial and temporal\n"
      + "autocorrelation and breaks only the alignment in time between subjects.\n";

  private Isc.Options options;

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
    return union(COMMON_SWITCHES, "--fwer", "--no-fwer");
  }

  @Override
  void checkOptions() {
    IscSummary summary = IscSummary.parse(args.get("--summary", "pairwise"));
    IscMetric metric = IscMetric.parse(args.get("--metric", "median"));
    IscNull nul = IscNull.parse(args.get("--null", "bootstrap"));
    String used = nul == IscNull.BOOTSTRAP ? "--samples" : "--permutations";
    String other = nul == IscNull.BOOTSTRAP ? "--permutations" : "--samples";
    if (args.has(other)) {
      throw new InvalidInputException("Cannot run isc: " + other + " does not apply to --null "
          + nul.cliName() + "; use " + used);
    }
    Tail tail = args.has("--tail") ? Tail.parse(args.get("--tail")) : Tail.TWO;
    options = new Isc.Options(summary, metric, nul, count(used, 5000), confidence(), tail,
        fwer(), seed(), threads(), 1, Grid.DEFAULT);
  }

  @Override
  Result compute(Map<String, Object> parameters) {
    parameters.put("summary", options.summary().cliName());
    parameters.put("metric", options.metric().cliName());
    parameters.put("null", options.nullMethod().cliName());
    parameters.put(options.nullMethod() == IscNull.BOOTSTRAP ? "samples" : "permutations",
        options.samples());
    parameters.put("confidence", options.confidence());
    parameters.put("tail", options.tail().cliName());
    parameters.put("fwer", options.nullMethod().isPermutation() && options.fwer());
    NpyArray input = read("--input", 3);
    tilePlan.putAll(options.grid().toMap());
    tilePlan.put("voxel_blocks", options.grid().blocks(input.dim(2)));
    tilePlan.put("replicate_windows", options.grid().windows(options.samples()));
    return Isc.run(input, options);
  }
}
