package org.nlspark.spark.cli;

import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Mixin;
import org.nlspark.spark.output.HadoopOutput;

/**
 * What the isc, timeseries-correlation and ridge-bootstrap commands share: the common options of
 * DESIGN §6, writing outputs through Hadoop paths, and summary.json. Like every command they run
 * through the {@link Nlspark} API as Spark tasks ({@code --partitions}); each subclass computes in
 * one method, {@link #execute}.
 */
abstract class CoreCommand extends NlsparkCommand {
  static final String CPU_ONLY = "Runs CPU kernels in float64: --backend gpu and --precision"
      + " float32 are refused.";

  /** --mask of the commands that take one 4-D NIfTI per subject. */
  static final String SERIES_MASK = "3-D NIfTI, non-zero voxels analysed (NIfTI inputs only;"
      + " default: every voxel finite in every volume of every subject and non-zero in one,"
      + " written as mask.nii.gz)";

  /** The outputs with NIfTI inputs, for the help footers. */
  static final String SERIES_MAPS = "With NIfTI inputs every per-voxel output is also written"
      + " as NAME.nii.gz on the mask's grid (0 outside the mask, 1 for p-values).";

  @Mixin CommonOptions common;

  @Mixin PartitionsOption partitionsOption;

  /** Checks every option before Spark starts; throws exit-2 errors. */
  abstract void checkOptions();

  /** Runs the command through the API: the one place this command computes. */
  abstract RunReport execute(SparkSession spark);

  /** The inputs named on the command line (for the check that --overwrite never replaces them). */
  abstract String[] inputPaths();

  /** The resolved inputs as summary.json's {@code inputs}, or null; read after {@link #execute}. */
  Map<String, Object> describeInputs() {
    return null;
  }

  Integer partitions() {
    return partitionsOption.partitions;
  }

  /** The common options as API options (seed, backend, budget, partitions). */
  final NlsparkOptions apiOptions() {
    return NlsparkOptions.defaults().seed(seed()).backend(common.backend())
        .memoryBudgetGb(common.memoryBudgetGb).partitions(partitions());
  }

  @Override
  public final void validate() {
    backendAndPrecision();
    checkOptions();
    common.output(name());
  }

  @Override
  protected final int run() {
    validate();
    String output = common.output(name());
    boolean overwrite = common.overwrite;
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark " + name())) {
      SparkSession spark = session.spark;
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      try (HadoopOutput.OutputDir.Reservation reserved = HadoopOutput.OutputDir.preflight(conf,
          output, overwrite, 0, inputPaths())) {
        RunReport report = execute(spark);
        Map<String, Object> summary = Summaries.summary(report, argv);
        Map<String, Object> inputs = describeInputs();
        if (inputs != null) {
          summary.put("inputs", inputs);
        }
        String written = Nlspark.write(conf, report, summary, output, overwrite);
        if (!common.quiet) {
          out.printf(Locale.ROOT,
              "%s: %d voxels, %d replicates, %d tiles on %s in %.2f s; wrote %s%n",
              name(), report.result.voxels(), report.analysis.replicates(),
              report.plan.tileCount(), report.engineFacts.get("master"), report.wallSeconds(),
              Untrusted.escape(written));
          Summaries.printResultLine(out, conf, summary, written);
        }
        Summaries.printWarnings(report, err);
      }
      return 0;
    }
  }

  final long seed() {
    return common.seed();
  }

  static long count(String flag, Long value, long fallback) {
    long n = value == null ? fallback : value;
    if (n < 1) {
      throw new InvalidInputException(flag + " must be >= 1, but was: " + n);
    }
    return n;
  }

  static double confidence(Double value) {
    double v = value == null ? 0.95 : value;
    if (!(v > 0 && v < 1)) {
      throw new InvalidInputException("--confidence must be in (0, 1), but was: " + v);
    }
    return v;
  }

  /** These kernels run on CPU in float64; anything else is refused, not silently replaced. */
  private void backendAndPrecision() {
    if (common.backend().equals("gpu")) {
      throw new ResourceRefusedException("Cannot run " + name() + " on a GPU: a GPU was requested"
          + " explicitly (--backend gpu), but this command has CPU kernels only; use --backend cpu"
          + " or auto");
    }
    if (!common.precision().equals("float64")) {
      throw new InvalidInputException("--precision must be float64 for " + name()
          + ", but was: " + common.precision());
    }
    Integer n = partitions();
    if (n != null && n < 1) {
      throw new InvalidInputException("--partitions must be >= 1, but was: " + n);
    }
    // An explicit --memory-budget-gb must be > 0 (DESIGN §3.5), checked before Spark; the engine
    // resolves the budget itself.
    MemoryBudget.checkExplicit(common.memoryBudgetGb);
  }


}
