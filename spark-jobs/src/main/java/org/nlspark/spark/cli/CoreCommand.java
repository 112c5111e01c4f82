package org.nlspark.spark.cli;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendSupport;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Mixin;

/**
 * What the isc, timeseries-correlation and ridge-bootstrap commands share: the common options of
 * DESIGN §6 and their CPU-only kernels; the run sequence is {@link AnalysisCommand}'s. Like every
 * command they run through the {@link Nlspark} API as Spark tasks ({@code --partitions}); each
 * subclass computes in one method, {@link #execute}.
 */
abstract class CoreCommand extends AnalysisCommand {
  static final String CPU_ONLY = "Runs CPU kernels in float64: --backend gpu and --precision"
      + " float32 are refused.";

  /** --mask of the commands that take one 4-D NIfTI per subject. */
  static final String SERIES_MASK = "3-D NIfTI, non-zero voxels analysed (default: every voxel"
      + " finite in every volume of every subject and non-zero in one, written as mask.nii.gz);"
      + " for surface series a GIFTI, MGH or CIFTI of one value per vertex (default: every"
      + " vertex)";

  /** The outputs with NIfTI inputs, for the help footers. */
  static final String SERIES_MAPS = "With NIfTI inputs every per-voxel output is also written"
      + " as NAME.nii.gz on the mask's grid (0 outside the mask, 1 for p-values); with surface"
      + " series on every vertex of the mesh in the input's format.";

  @Mixin CommonOptions common;

  @Mixin PartitionsOption partitionsOption;

  /** Checks every option before Spark starts; throws exit-2 errors. */
  abstract void checkOptions();

  Integer partitions() {
    return partitionsOption.partitions;
  }

  /** The common options on a builder of API options (seed, backend, budget, partitions). */
  final NlsparkOptions.Builder apiOptions() {
    return NlsparkOptions.builder().seed(seed()).backend(common.backend())
        .memoryBudgetGb(common.memoryBudgetGb).partitions(partitions());
  }

  @Override
  final CommonOptions common() {
    return common;
  }

  @Override
  public final void validate() {
    backendAndPrecision();
    checkOptions();
    common.output(name());
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
    double v = value == null ? JobSpec.DEFAULT_CONFIDENCE : value;
    if (!(v > 0 && v < 1)) {
      throw new InvalidInputException("--confidence must be in (0, 1), but was: " + v);
    }
    return v;
  }

  /** These kernels run on CPU in float64; anything else is refused, not silently replaced. */
  private void backendAndPrecision() {
    BackendSupport.CPU_ONLY.check(name(), common.backend());
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
