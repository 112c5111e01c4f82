package org.nlspark.spark.cli;

import java.util.Map;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.JobSpec;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.StudyInputs;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.timeseries.SurrogateMethod;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nlspark timeseries-correlation}: voxel-wise r with a target, surrogate-y null.
 *
 * <p>Inputs. The analysis is one series against one target: X (timepoints, voxels) is one
 * subject's run, y (timepoints,) a regressor of that run (a stimulus or task time course, a seed
 * region's mean signal). So X takes one subject's 4-D NIfTI (time on the 4th axis) as DESIGN §8
 * names images — the file itself, or a list file, directory or glob that names exactly one
 * image; more than one is exit 2 (correlating several subjects is a run per subject: joined in
 * time, a circular shift would wrap one subject's series into the next) — masked by {@code
 * --mask} or the default mask, or the (timepoints, voxels) {@code .npy} as before. y stays a 1-D
 * {@code .npy}: it is one number per time point, not an image, whatever form X takes, and must
 * have X's number of time points.
 */
@Command(sortOptions = false, name = "timeseries-correlation",
    description = "Each voxel's correlation with a target series, against surrogates of the"
        + " target.",
    customSynopsis = "nlspark timeseries-correlation --input X --target y.npy --output DIR"
        + " [--mask MASK.nii.gz] [options]",
    footer = {"Outputs: observed.npy p.npy, with FWER also p_fwer.npy null_max.npy;"
        + " summary.json. " + CoreCommand.SERIES_MAPS, CoreCommand.CPU_ONLY})
final class TimeSeriesCorrelationCommand extends CoreCommand {
  @Option(names = "--input", paramLabel = "X", order = 1,
      description = "(required) one subject's 4-D .nii/.nii.gz (time on the 4th axis), or a"
          + " list file, directory or glob naming exactly that one image; or one surface"
          + " series (GIFTI, MGH, CIFTI .dtseries.nii) with its mesh (--surface; CIFTI's"
          + " --surface-left/--surface-right); or an .npy"
          + " (n_timepoints, n_voxels) array")
  String input;

  @Option(names = "--target", paramLabel = "y.npy", order = 2,
      description = "(required) (n_timepoints,) series, whatever form --input takes")
  String target;

  @Option(names = "--mask", paramLabel = "MASK.nii.gz", order = 3,
      description = CoreCommand.SERIES_MASK)
  String mask;

  @Option(names = "--null", paramLabel = "circle-shift|phase-randomize", order = 10,
      description = "surrogates of y (default circle-shift); both keep y's autocorrelation,"
          + " unlike a permutation")
  String nullMethod;

  @Mixin PermutationOptions permutation;

  @Mixin SurfaceOptions meshes;

  private NlsparkOptions options;

  private SeriesInputs series;

  @Override
  public String name() {
    return "timeseries-correlation";
  }

  @Override
  String[] inputPaths() {
    java.util.List<String> all = new java.util.ArrayList<>(java.util.Arrays.asList(input,
        target));
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
    require("--target", target);
    StudyInputs.checkOptions(input, mask, null, null);
    SurrogateMethod m = SurrogateMethod.parse(nullMethod == null ? "circle-shift" : nullMethod,
        "--null");
    NlsparkOptions.Builder o = apiOptions()
        .nullMethod(nullMethod == null ? "circle-shift" : nullMethod)
        .replicates(count("--permutations", permutation.permutations,
            JobSpec.DEFAULT_PERMUTATIONS))
        .tail(permutation.tail()).fwer(permutation.fwer()).maskFile(mask);
    meshes.applyTo(o);
    options = o.build();
    options.toTimeSeriesOptions();
  }

  @Override
  RunReport execute(SparkSession spark) {
    series = Nlspark.resolveSeries(spark, input, "--input", options)
        .requireOneSubject(name());
    return Nlspark.timeseriesCorrelation(spark, series, target, options);
  }
}
