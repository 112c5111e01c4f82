package org.nlspark.spark.cli;

import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.output.HadoopOutput;

/**
 * The one run sequence of every command that runs an analysis (the tile commands, glm, isc,
 * timeseries-correlation, ridge-bootstrap): every option checked, the start line, the Spark
 * session, the output directory's preflight (its lock taken before any work), the computation,
 * summary.json, the atomic write, the result line and the warnings. A command declares its
 * options and builds its job in the hooks; it does not write this sequence again.
 */
abstract class AnalysisCommand extends NlsparkCommand {
  /** The options every analysis command takes (DESIGN §6). */
  abstract CommonOptions common();

  /** What runs before Spark starts, after {@link #validate}: the start line, where printed. */
  void beforeSession(String output) {}

  /** The inputs named on the command line (for the check that --overwrite never replaces them). */
  abstract String[] inputPaths();

  /** The outputs' size as far as is known before the computation (0: unknown). */
  long expectedOutputBytes(Configuration conf) {
    return 0;
  }

  /**
   * The options the run takes, after {@link #validate} (checked against the Java API's defaults
   * through {@link org.nlspark.spark.api.CommandDefaults}).
   */
  abstract org.nlspark.spark.api.NlsparkOptions settings();

  /** Reads the inputs and runs the analysis: the one place the command computes. */
  abstract RunReport execute(SparkSession spark);

  /** The resolved inputs as summary.json's {@code inputs}, or null; read after {@link #execute}. */
  Map<String, Object> describeInputs() {
    return null;
  }

  @Override
  protected final int run() {
    validate(); // every setting checked before Spark starts
    CommonOptions common = common();
    String output = common.output(name());
    beforeSession(output);
    // a fresh local context warms Spark's job path (SparkJobWarmup) while the inputs are read
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark " + name(),
        true)) {
      SparkSession spark = session.spark;
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      try (HadoopOutput.OutputDir.Reservation reserved = HadoopOutput.OutputDir.preflight(conf,
          output, common.overwrite, expectedOutputBytes(conf), inputPaths())) {
        RunReport report = execute(spark);
        Map<String, Object> summary = Summaries.summary(report, argv);
        Map<String, Object> inputs = describeInputs();
        if (inputs != null) {
          summary.put("inputs", inputs);
        }
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

  /** The run's line on stdout: what was computed, where, how fast, and the directory written. */
  static String describe(RunReport report, String dir) {
    return String.format(Locale.ROOT,
        "%s: %d %s, %d replicates, %d tiles on %s in %.2f s; wrote %s",
        report.command(), report.result.voxels(),
        report.elements(),
        report.analysis.replicates(), report.plan.tileCount(),
        report.engineFacts.get("master"), report.wallSeconds(), Untrusted.escape(dir));
  }
}
