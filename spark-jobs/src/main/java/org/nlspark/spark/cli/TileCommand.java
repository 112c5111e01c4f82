package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.tile.KernelWarmup;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.StudyInputs;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What bootstrap, one-sample, two-sample and correlation share: the tile pipeline through
 * {@link Nlspark} and their inputs (resolved before {@link #execute}); the run sequence is
 * {@link AnalysisCommand}'s. Each subclass computes in one method,
 * {@link #execute(SparkSession, NlsparkOptions)}.
 */
abstract class TileCommand extends AnalysisCommand {
  @Option(names = "--input", paramLabel = "X", order = 1,
      description = "(required) the samples: a 4-D .nii/.nii.gz (one volume per sample), a text"
          + " file listing 3-D images (one per line, in sample order), a directory or a glob of"
          + " them (sorted by name), a Parquet dataset (one row per sample), or an .npy"
          + " (n_samples, n_voxels) array")
  String input;

  @Option(names = "--mask", paramLabel = "MASK.nii.gz", order = 3,
      description = "3-D NIfTI, non-zero voxels analysed (NIfTI inputs; default: every"
          + " voxel finite in all samples and non-zero in one, written as mask.nii.gz); with"
          + " a mesh a GIFTI, MGH or CIFTI file of one value per vertex (default: every vertex)")
  String mask;

  @Option(names = "--column", paramLabel = "NAME", order = 4,
      description = "Parquet inputs: the array column of voxel values (default voxels)")
  String column;

  @Option(names = "--order-by", paramLabel = "NAME", order = 5,
      description = "Parquet inputs: the column giving the sample order (default: file name,"
          + " then row order)")
  String orderBy;

  /** The resolved inputs of this run, set before {@link #execute}. */
  StudyInputs study;

  /** The run's options, built once the options are checked. */
  private NlsparkOptions runOptions;
  /** The run's spec, converted once from {@link #runOptions} (the start line, warm-up, outputs). */
  private org.nlspark.core.job.JobSpec runSpec;

  @Mixin SurfaceOptions meshes;
  @Mixin CommonOptions common;
  @Mixin PartitionsOption partitions;

  static final String PERMUTATION_OUTPUTS = "Outputs: observed.npy p.npy, with FWER also"
      + " p_fwer.npy null_max.npy (P,); summary.json.";

  abstract Analysis analysis();

  /** The command's own settings onto the shared ones. */
  abstract void configure(NlsparkOptions.Builder options);

  /** Checks that the inputs besides --input are given. */
  void requireOthers() {}

  /** --input2 (two-sample), else null. */
  String input2() {
    return null;
  }

  /** The inputs besides --input (for the check that --overwrite never replaces them). */
  String[] otherInputs() {
    return new String[0];
  }

  /** Reads the inputs and runs the analysis: the one place this command computes. */
  abstract RunReport execute(SparkSession spark, NlsparkOptions options);

  @Override
  public String name() {
    return analysis().command();
  }

  final NlsparkOptions options() {
    NlsparkOptions.Builder o = common.optionsBuilder().partitions(partitions.partitions);
    meshes.applyTo(o);
    configure(o);
    return o.build();
  }

  /** --stat (or --method) checked against the analysis' statistics. */
  final void statistic(NlsparkOptions.Builder o, String flag, String value) {
    if (value == null) {
      return;
    }
    if (!analysis().statistics().contains(value)) {
      throw new InvalidInputException(flag + " must be one of " + analysis().statistics()
          + " for " + analysis().command() + ", but was: " + value);
    }
    o.statistic(value);
  }

  static void permutation(NlsparkOptions.Builder o, PermutationOptions p) {
    if (p.permutations != null) {
      o.replicates(p.permutations);
    }
    if (p.tail != null) {
      o.tail(p.tail());
    }
    if (!p.fwer()) {
      o.fwer(false);
    }
  }

  @Override
  final NlsparkOptions settings() {
    return options();
  }

  final boolean progress() {
    return Summaries.progressWanted(common.quiet);
  }

  /** Runs {@code analysis} on the resolved inputs ({@code target}: correlation's). */
  final RunReport runStudy(SparkSession spark, NlsparkOptions options, double[] target) {
    return Nlspark.run(spark, analysis(), study, target, options, progress());
  }

  static Configuration conf(SparkSession spark) {
    return spark.sparkContext().hadoopConfiguration();
  }

  @Override
  public final void validate() {
    options().toSpec(analysis());
    require("--input", input);
    requireOthers();
    StudyInputs.checkOptions(input, mask, column, orderBy);
    common.output(name());
  }

  @Override
  final CommonOptions common() {
    return common;
  }

  @Override
  final void beforeSession(String output) {
    runOptions = options();
    runSpec = runOptions.toSpec(analysis());
    Summaries.printStartLine(err, common.quiet, name(), runSpec.replicates(),
        input, mask, output, common.master);
    if (common.master == null || common.master.startsWith("local")) {
      // the kernels run in this JVM: let C2 compile them while Spark starts (KernelWarmup)
      KernelWarmup.start(runSpec);
    }
  }

  @Override
  final String[] inputPaths() {
    List<String> inputs = new ArrayList<>(List.of(otherInputs()));
    inputs.add(0, input);
    if (mask != null) {
      inputs.add(mask);
    }
    inputs.addAll(meshes.paths());
    return inputs.toArray(new String[0]);
  }

  /**
   * The outputs' size as far as the --input header tells it before the computation (per-voxel
   * float64 maps, the saved draws), for the free-space check; 0 when the header says nothing.
   */
  @Override
  final long expectedOutputBytes(Configuration conf) {
    long voxels = NpyInputs.npyColumns(conf, input);
    if (voxels <= 0) {
      return 0;
    }
    long perVoxelMaps = 8;
    long rows = perVoxelMaps + (runSpec.saveSamples() ? runSpec.replicates() : 0);
    return rows * voxels * Double.BYTES;
  }

  /** Resolves the inputs, then runs {@link #execute(SparkSession, NlsparkOptions)}. */
  @Override
  final RunReport execute(SparkSession spark) {
    study = StudyInputs.resolve(conf(spark), input, input2(), mask, column, orderBy,
        runOptions.meshFiles());
    return execute(spark, runOptions);
  }

  @Override
  final Map<String, Object> describeInputs() {
    return study.describe();
  }
}
