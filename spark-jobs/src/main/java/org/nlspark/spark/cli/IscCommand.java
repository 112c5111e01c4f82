package org.nlspark.spark.cli;

import java.util.Map;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.JobSpec;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.StudyInputs;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nlspark isc}: intersubject correlation with a bootstrap or surrogate null. The input is
 * a (subjects, timepoints, voxels) {@code .npy}, or one 4-D NIfTI per subject (time on the 4th
 * axis) named as the other commands name images (DESIGN §8): a list file, a directory or a
 * glob, with {@code --mask} or the default mask; see {@link SeriesInputs}.
 */
@Command(sortOptions = false, name = "isc",
    description = "Intersubject correlation (subjects x time x voxels), with a bootstrap or a"
        + " circle-shift / phase-randomization null.",
    customSynopsis = "nlspark isc --input SUBJECTS --output DIR [--mask MASK.nii.gz] [options]",
    footer = {"Outputs: isc p ci_lower ci_upper (.npy), with a surrogate null and FWER also"
        + " p_fwer null_max; summary.json. " + CoreCommand.SERIES_MAPS + " Surrogates shift or"
        + " phase-randomize each subject's series by one draw shared across that subject's"
        + " voxels: that keeps each subject's spatial and temporal autocorrelation and breaks"
        + " only the alignment in time between subjects.", CoreCommand.CPU_ONLY})
final class IscCommand extends CoreCommand {
  @Option(names = "--input", paramLabel = "SUBJECTS", order = 1,
      description = "(required) one 4-D .nii/.nii.gz per subject (time on the 4th axis): a text"
          + " file listing them (one per line, in subject order, relative to the list file), a"
          + " directory or a glob of them (sorted by name); or one surface series per subject"
          + " (GIFTI, MGH, CIFTI .dtseries.nii, a row per time point) with its mesh (--surface;"
          + " CIFTI's --surface-left/--surface-right); or an"
          + " .npy (n_subjects, n_timepoints, n_voxels) array")
  String input;

  @Option(names = "--mask", paramLabel = "MASK.nii.gz", order = 2,
      description = CoreCommand.SERIES_MASK)
  String mask;

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
      description = "bootstrap samples (default " + JobSpec.DEFAULT_BOOTSTRAP_SAMPLES
          + "; --null bootstrap)")
  Long samples;

  @Option(names = "--confidence", paramLabel = "C", order = 14,
      description = "interval confidence in (0, 1) (default " + JobSpec.DEFAULT_CONFIDENCE + ")")
  Double confidence;

  @Mixin PermutationOptions permutation;

  @Mixin SurfaceOptions meshes;

  @Option(names = "--save-samples", order = 15,
      description = "also write samples.npy, every bootstrap ISC (B, n_voxels); --null bootstrap")
  boolean saveSamples;

  private NlsparkOptions options;

  private SeriesInputs series;

  @Override
  public String name() {
    return "isc";
  }

  @Override
  String[] inputPaths() {
    java.util.List<String> all = new java.util.ArrayList<>(java.util.List.of(input));
    if (mask != null) {
      all.add(mask);
    }
    all.addAll(meshes.paths());
    return all.toArray(new String[0]);
  }

  @Override
  Map<String, Object> describeInputs() {
    return series == null ? null : series.describe();
  }

  @Override
  NlsparkOptions settings() {
    return options;
  }

  @Override
  void checkOptions() {
    require("--input", input);
    StudyInputs.checkOptions(input, mask, null, null);
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
    long count = count(used, boot ? samples : permutation.permutations,
        boot ? JobSpec.DEFAULT_BOOTSTRAP_SAMPLES : JobSpec.DEFAULT_PERMUTATIONS);
    NlsparkOptions.Builder o = apiOptions().iscSummary(s.cliName()).iscMetric(m.cliName())
        .nullMethod(nul.cliName()).replicates(count).confidence(confidence(confidence))
        .tail(permutation.tail()).fwer(permutation.fwer()).saveSamples(saveSamples)
        .maskFile(mask);
    meshes.applyTo(o);
    options = o.build();
    options.toIscOptions(); // every option checked before Spark starts
  }

  @Override
  RunReport execute(SparkSession spark) {
    series = Nlspark.resolveSeries(spark, input, "--input", options);
    return Nlspark.isc(spark, series, options);
  }
}
