package org.nlspark.spark.cli;

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
  boolean usesPartitions() {
    return true;
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
    int partitions = partitions();
    if (partitions == 0) {
      return Isc.run(input, options);
    }
    return onSpark(input, partitions);
  }

  /** 0 for driver threads; else Spark partitions (--partitions, or one per block off-local). */
  private int partitions() {
    Integer n = args.intValue("--partitions");
    if (n != null) {
      return n;
    }
    return spark.sparkContext().master().startsWith("local") ? 0 : Integer.MAX_VALUE;
  }

  /**
   * Voxel blocks as Spark tasks: each task receives its block's slice of the input (so no input
   * is broadcast) and returns the block's outcome; the driver merges them. The outcome of a block
   * is a pure function of its slice, so the files equal those of driver threads bit for bit.
   * The driver holds the input and its slices (twice the input) while the job runs.
   */
  private Result onSpark(NpyArray input, int partitions) {
    int s = input.dim(0);
    int t = input.dim(1);
    int v = input.dim(2);
    Isc.checkInput(input.data(), s, t, v);
    Isc.Options opt = options;
    int blocks = opt.grid().blocks(v);
    List<BlockSlice> slices = new ArrayList<>(blocks);
    for (int b = 0; b < blocks; b++) {
      slices.add(new BlockSlice(b, Isc.blockSlice(input.data(), s, t, v, opt.grid(), b)));
    }
    int numPartitions = Math.min(partitions, blocks);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<Isc.BlockOutcome> outs = jsc.parallelize(slices, numPartitions)
        .map(x -> Isc.blockOfSlice(x.values(), s, t, x.block(), opt))
        .collect();
    engine.clear();
    engine.put("name", "spark");
    engine.put("master", spark.sparkContext().master());
    engine.put("partitions", numPartitions);
    engine.put("tasks_per_partition", "voxel blocks, one thread each");
    return Isc.merge(outs, v, opt);
  }

  /** One voxel block's input, as shipped to a task. */
  record BlockSlice(int block, double[] values) implements Serializable {}
}
