package org.nlspark.spark.cli;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobSpec;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nlspark bootstrap}: bootstrap confidence intervals of a per-voxel statistic. */
@Command(sortOptions = false, name = "bootstrap",
    description = "Bootstrap confidence intervals of a per-voxel statistic.",
    customSynopsis = "nlspark bootstrap --input X --output DIR [options]",
    footer = "Outputs: mean std ci_lower ci_upper z p (.npy), summary.json; samples.npy"
        + " (B, n_voxels) with --save-samples.")
final class BootstrapCommand extends TileCommand {
  @Option(names = "--stat", paramLabel = "mean|median|std|sum|min|max", order = 10,
      description = "statistic (default mean)")
  String stat;

  @Option(names = "--samples", paramLabel = "B", order = 11,
      description = "bootstrap samples (default " + JobSpec.DEFAULT_BOOTSTRAP_SAMPLES + ")")
  Long samples;

  @Option(names = "--confidence", paramLabel = "C", order = 12,
      description = "interval confidence in (0, 1) (default " + JobSpec.DEFAULT_CONFIDENCE + ")")
  Double confidence;

  @Option(names = "--ci", paramLabel = "percentile|normal", order = 13,
      description = "interval method (default percentile)")
  String ci;

  @Option(names = "--save-samples", order = 14,
      description = "also write samples.npy (B, n_voxels)")
  boolean saveSamples;

  @Override
  Analysis analysis() {
    return Analysis.BOOTSTRAP;
  }

  @Override
  void configure(NlsparkOptions.Builder o) {
    statistic(o, "--stat", stat);
    if (samples != null) {
      o.replicates(samples);
    }
    if (confidence != null) {
      o.confidence(confidence);
    }
    if (ci != null) {
      o.ci(CiMethod.parse(ci));
    }
    if (saveSamples) {
      o.saveSamples(true);
    }
  }

  @Override
  RunReport execute(SparkSession spark, NlsparkOptions options) {
    return runStudy(spark, options, null);
  }
}
