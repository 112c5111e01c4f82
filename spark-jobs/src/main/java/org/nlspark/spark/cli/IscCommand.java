package org.nlspark.spark.cli;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code nlspark isc}: intersubject correlation with a bootstrap or surrogate null. */
@Command(sortOptions = false, name = "isc",
    description = "Intersubject correlation (subjects x time x voxels), with a bootstrap or a"
        + " circle-shift / phase-randomization null.",
    customSynopsis = "nlspark isc --input D.npy --output DIR [options]",
    footer = {"Outputs: isc p ci_lower ci_upper (.npy), with a surrogate null and FWER also"
        + " p_fwer null_max; summary.json. Surrogates shift or phase-randomize each subject's"
        + " series by one draw shared across that subject's voxels: that keeps each subject's"
        + " spatial and temporal autocorrelation and breaks only the alignment in time between"
        + " subjects.", CoreCommand.CPU_ONLY})
final class IscCommand extends CoreCommand {
  @Option(names = "--input", paramLabel = "D.npy", order = 1,
      description = "(required) (n_subjects, n_timepoints, n_voxels) array")
  String input;

  @Option(names = "--summary", paramLabel = "pairwise|leave-one-out", order = 10,
      description = "correlations summarised (default pairwise)")
  String summary;

  @Option(names = "--metric", paramLabel = "median|mean", order = 11,
      description = "median of r, or mean through Fisher z (default median)")
  String metric;

  @Option(names = "--null", paramLabel = "bootstrap|circle-shift|phase-randomize", order = 12,
      description = "null (default bootstrap)")
  String nullMethod;

  @Option(names = "--samples", paramLabel = "B", order = 13,
      description = "bootstrap samples (default 5000; --null bootstrap)")
  Long samples;

  @Option(names = "--confidence", paramLabel = "C", order = 14,
      description = "interval confidence in (0, 1) (default 0.95)")
  Double confidence;

  @Mixin PermutationOptions permutation;

  @Option(names = "--partitions", paramLabel = "N", order = 110,
      description = "run the voxel blocks as Spark tasks in N partitions (default: driver"
          + " threads under local masters, one block per task else)")
  Integer partitions;

  private Isc.Options options;

  @Override
  public String name() {
    return "isc";
  }

  @Override
  String[] inputPaths() {
    return new String[] {input};
  }

  @Override
  Integer partitions() {
    return partitions;
  }

  @Override
  void checkOptions() {
    require("--input", input);
    IscSummary s = IscSummary.parse(summary == null ? "pairwise" : summary);
    IscMetric m = IscMetric.parse(metric == null ? "median" : metric);
    IscNull nul = IscNull.parse(nullMethod == null ? "bootstrap" : nullMethod);
    boolean boot = nul == IscNull.BOOTSTRAP;
    String used = boot ? "--samples" : "--permutations";
    String other = boot ? "--permutations" : "--samples";
    if ((boot ? permutation.permutations : samples) != null) {
      throw new InvalidInputException("Cannot run isc: " + other + " does not apply to --null "
          + nul.cliName() + "; use " + used);
    }
    long count = count(used, boot ? samples : permutation.permutations, 5000);
    options = new Isc.Options(s, m, nul, count, confidence(confidence), permutation.tail(),
        permutation.fwer(), seed(), threads(), 1, Grid.DEFAULT);
  }

  @Override
  Result execute(SparkSession spark, Map<String, Object> parameters) {
    parameters.put("summary", options.summary().cliName());
    parameters.put("metric", options.metric().cliName());
    parameters.put("null", options.nullMethod().cliName());
    parameters.put(options.nullMethod() == IscNull.BOOTSTRAP ? "samples" : "permutations",
        options.samples());
    parameters.put("confidence", options.confidence());
    parameters.put("tail", options.tail().cliName());
    parameters.put("fwer", options.nullMethod().isPermutation() && options.fwer());
    NpyArray data = read("--input", input, 3);
    tilePlan.putAll(options.grid().toMap());
    tilePlan.put("voxel_blocks", options.grid().blocks(data.dim(2)));
    tilePlan.put("replicate_windows", options.grid().windows(options.samples()));
    int n = sparkPartitions(spark);
    if (n == 0) {
      return Isc.run(data, options);
    }
    return onSpark(spark, data, n);
  }

  /** 0 for driver threads; else Spark partitions (--partitions, or one per block off-local). */
  private int sparkPartitions(SparkSession spark) {
    if (partitions != null) {
      return partitions;
    }
    return spark.sparkContext().master().startsWith("local") ? 0 : Integer.MAX_VALUE;
  }

  /**
   * Voxel blocks as Spark tasks: each task receives its block's slice of the input (so no input
   * is broadcast) and returns the block's outcome; the driver merges them. The outcome of a block
   * is a pure function of its slice, so the files equal those of driver threads bit for bit.
   * The driver holds the input and its slices (twice the input) while the job runs.
   */
  private Result onSpark(SparkSession spark, NpyArray data, int numPartitionsWanted) {
    int s = data.dim(0);
    int t = data.dim(1);
    int v = data.dim(2);
    Isc.checkInput(data.data(), s, t, v);
    Isc.Options opt = options;
    int blocks = opt.grid().blocks(v);
    List<BlockSlice> slices = new ArrayList<>(blocks);
    for (int b = 0; b < blocks; b++) {
      slices.add(new BlockSlice(b, Isc.blockSlice(data.data(), s, t, v, opt.grid(), b)));
    }
    int numPartitions = Math.min(numPartitionsWanted, blocks);
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
