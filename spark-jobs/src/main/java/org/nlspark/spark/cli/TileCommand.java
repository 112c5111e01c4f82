package org.nlspark.spark.cli;

import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.spark.Nlspark;
import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.io.HadoopFiles;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What bootstrap, one-sample, two-sample and correlation share: the tile pipeline through
 * {@link Nlspark}, the output directory and the result line. Each subclass computes in one
 * method, {@link #execute}.
 */
abstract class TileCommand extends NlsparkCommand {
  @Option(names = "--input", paramLabel = "X.npy", order = 1,
      description = "(required) (n_samples, n_voxels) float32/float64 array")
  String input;

  @Mixin CommonOptions common;
  @Mixin PartitionsOption partitions;

  static final String PERMUTATION_OUTPUTS = "Outputs: observed.npy p.npy, with FWER also"
      + " p_fwer.npy null_max.npy (P,); summary.json.";

  abstract Analysis analysis();

  /** The command's own settings onto the shared ones. */
  abstract void configure(NlsparkOptions options);

  /** Checks that the inputs besides --input are given. */
  void requireOthers() {}

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
    NlsparkOptions o = common.toOptions();
    o.partitions(partitions.partitions);
    configure(o);
    return o;
  }

  /** --stat (or --method) checked against the analysis' statistics. */
  final void statistic(NlsparkOptions o, String flag, String value) {
    if (value == null) {
      return;
    }
    if (!analysis().statistics().contains(value)) {
      throw new InvalidInputException(flag + " must be one of " + analysis().statistics()
          + " for " + analysis().command() + ", but was: " + value);
    }
    o.statistic(value);
  }

  static void permutation(NlsparkOptions o, PermutationOptions p) {
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

  final boolean progress() {
    return Summaries.progressWanted(common.quiet);
  }

  static DataMatrix matrix(SparkSession spark, String uri, String flag) {
    return HadoopFiles.readMatrix(conf(spark), uri, flag);
  }

  static Configuration conf(SparkSession spark) {
    return spark.sparkContext().hadoopConfiguration();
  }

  @Override
  public final void validate() {
    options().toSpec(analysis());
    require("--input", input);
    requireOthers();
    common.output(name());
  }

  @Override
  protected final int run() {
    validate(); // every setting checked before Spark starts
    NlsparkOptions options = options();
    String output = common.output(name());
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark " + name())) {
      SparkSession spark = session.spark;
      Configuration conf = conf(spark);
      String[] others = otherInputs();
      String[] inputs = new String[others.length + 1];
      inputs[0] = input;
      System.arraycopy(others, 0, inputs, 1, others.length);
      try (HadoopFiles.OutputDir.Reservation reserved = HadoopFiles.OutputDir.preflight(conf,
          output, common.overwrite, expectedOutputBytes(conf, options), inputs)) {
        RunReport report = execute(spark, options);
        Map<String, Object> summary = Summaries.summary(report, argv);
        String written = Nlspark.write(conf, report, summary, output, common.overwrite);
        if (!common.quiet) {
          out.println(describe(report, written));
          Summaries.printResultLine(out, conf, summary, written);
        }
        Summaries.printWarnings(report, err);
      }
      return 0;
    }
  }

  /**
   * The outputs' size as far as the --input header tells it before the computation (per-voxel
   * float64 maps, the saved draws), for the free-space check; 0 when the header says nothing.
   */
  private long expectedOutputBytes(Configuration conf, NlsparkOptions options) {
    long voxels = HadoopFiles.npyColumns(conf, input);
    if (voxels <= 0) {
      return 0;
    }
    org.nlspark.core.job.JobSpec spec = options.toSpec(analysis());
    long perVoxelMaps = 8;
    long rows = perVoxelMaps + (spec.saveSamples() ? spec.replicates() : 0);
    return rows * voxels * Double.BYTES;
  }

  static String describe(RunReport report, String dir) {
    String line = String.format(Locale.ROOT,
        "%s: %d voxels, %d replicates, %d tiles on %s in %.2f s; wrote %s",
        report.command(), report.result.voxels(),
        report.analysis.replicates(), report.plan.tileCount(),
        report.engineFacts.get("master"), report.wallSeconds(), Untrusted.escape(dir));
    return line;
  }
}
