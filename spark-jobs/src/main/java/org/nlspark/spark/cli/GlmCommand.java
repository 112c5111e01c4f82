package org.nlspark.spark.cli;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendSupport;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.io.StudyInputs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nlspark glm}: general linear model permutation inference (DESIGN §9), the randomise /
 * PALM family. The permutation flags are declared here rather than through
 * {@link PermutationOptions} because t contrasts default to the upper tail, as randomise.
 */
@Command(sortOptions = false, name = "glm",
    description = "General linear model with permutation inference (Freedman-Lane): t and F"
        + " contrasts, nuisance covariates, exchangeability blocks.",
    customSynopsis = "nlspark glm --input X --design D --contrasts C --output DIR [options]",
    footer = {"Outputs per t contrast c: tstat{c} p_tstat{c}, with FWER also p_fwer_tstat{c}"
        + " null_max_tstat{c}; F contrasts likewise as fstat{f}; with --fwer-across-contrasts"
        + " also p_cfwer_*; each a .npy (and a .nii.gz map with NIfTI inputs), and"
        + " summary.json. Values are p (randomise writes 1 - p). No intercept is added: the"
        + " design says what it holds.",
        "With --tfce also, per contrast, tfce_tstat{c} p_tfce_tstat{c}, with FWER"
        + " p_fwer_tfce_tstat{c} null_max_tfce_tstat{c}; with --cluster-threshold"
        + " cluster_size_tstat{c}, with FWER p_fwer_cluster_tstat{c} null_max_cluster_tstat{c};"
        + " with --cluster-mass cluster_mass_tstat{c}, with FWER p_fwer_cluster_mass_tstat{c}"
        + " null_max_cluster_mass_tstat{c}"
        + " (fstat{f} likewise; each contrast's own maxima, p_cfwer_* stays voxelwise). Both"
        + " need a mask image (an .npy input has no grid: exit 2).",
        "With --variance-smoothing SIGMA_MM the same names hold the pseudo-t and its p-values"
        + " (summary.json says so)."})
final class GlmCommand extends AnalysisCommand {
  @Option(names = "--input", paramLabel = "X", order = 1,
      description = "(required) the samples, in the forms of the other commands: a 4-D"
          + " .nii/.nii.gz, a list file, directory or glob of 3-D images, a Parquet dataset, or"
          + " an .npy (n_samples, n_voxels) array")
  String input;

  @Option(names = "--mask", paramLabel = "MASK.nii.gz", order = 5,
      description = "3-D NIfTI, non-zero voxels analysed (NIfTI inputs; default: every"
          + " voxel finite in all samples and non-zero in one, written as mask.nii.gz); with"
          + " a mesh a GIFTI, MGH or CIFTI file of one value per vertex (default: every vertex)")
  String mask;

  @Option(names = "--design", paramLabel = "FILE", order = 2,
      description = "(required) design matrix, one row per sample: CSV/TSV with a header row,"
          + " or an FSL VEST file")
  String design;

  @Option(names = "--contrasts", paramLabel = "FILE", order = 3,
      description = "(required) t contrasts, one row each: CSV/TSV whose header names design"
          + " columns (matched by name, in any order; columns left out weigh 0), or an FSL VEST"
          + " file (one weight per design column, in order)")
  String contrasts;

  @Option(names = "--f-contrasts", paramLabel = "FILE", order = 4,
      description = "F contrasts over the t contrasts: CSV/TSV whose header names t contrasts,"
          + " with rows of 0/1 flags under them, or a VEST .fts (one 0/1 flag per t contrast)")
  String fContrasts;

  @Option(names = "--errors", paramLabel = "exchangeable|symmetric|both", order = 10,
      description = "permute rows, flip signs, or both (default exchangeable; symmetric for a"
          + " design of one constant column, and for a contrast no permutation can change)")
  String errors;

  @Option(names = "--exchangeability-blocks", paramLabel = "FILE", order = 11,
      description = "one integer block id per sample: permutations stay within blocks; or"
          + " PALM's multi-level blocks (-eb), one column per level, the sign of an id saying"
          + " whether its sub-blocks are shuffled as wholes (+) or stay in place (-)")
  String blocks;

  @Option(names = "--variance-groups", paramLabel = "FILE|auto", order = 13,
      description = "PALM's -vg: one group id per sample whose errors share a variance, or auto"
          + " (from the exchangeability blocks, as PALM); with more than one group t and F are"
          + " replaced by the Aspin-Welch v (vstat) and Welch's G (gstat)")
  String varianceGroups;

  @Option(names = "--whole-blocks", order = 12,
      description = "permute whole blocks (of equal size) instead of within blocks (one-column"
          + " blocks only)")
  boolean wholeBlocks;

  @Option(names = "--permutations", paramLabel = "P", order = 20,
      description = "number of permutations (default " + JobSpec.DEFAULT_PERMUTATIONS
          + "; all of them when fewer exist)")
  Long permutations;

  @Option(names = "--tail", paramLabel = "upper|lower|two", order = 21,
      description = "tail of t contrasts (default upper, as randomise; F is always upper)")
  String tail;

  @Option(names = "--fwer", order = 22,
      description = "max-statistic FWER p-values per contrast (the default)")
  boolean fwer;

  @Option(names = "--no-fwer", order = 23, description = "no FWER p-values")
  boolean noFwer;

  @Option(names = "--fwer-across-contrasts", order = 24,
      description = "also FWER over all contrasts (p_cfwer_*; statistics compared as z)")
  boolean fwerAcrossContrasts;

  @Option(names = "--demean", order = 13,
      description = "centre the data and every design column and remove the intercept, as"
          + " PALM's -demean (a contrast on the intercept is then refused)")
  boolean demean;

  @Option(names = "--fsl-names", order = 14,
      description = "also write randomise's maps under randomise's names, which hold 1 - p:"
          + " vox_p_tstat{c} vox_corrp_tstat{c} tfce_p_tstat{c} tfce_corrp_tstat{c}"
          + " clustere_corrp_tstat{c} clusterm_corrp_tstat{c} (fstat{f} likewise)")
  boolean fslNames;

  @Option(names = "--variance-smoothing", paramLabel = "SIGMA_MM", order = 15,
      description = "smooth each draw's residual variance by a Gaussian of standard deviation"
          + " SIGMA_MM mm inside the mask (edge-corrected) and test the pseudo-t, as randomise"
          + " -v: tstat{c} and every p, cluster and TFCE map are then of the pseudo-t (t"
          + " contrasts and image inputs only)")
  Double varianceSmoothing;

  @Mixin TfceOptions wholeMap;
  @Mixin SurfaceOptions meshes;
  @Mixin CommonOptions common;
  @Mixin PartitionsOption partitions;

  /** The run's options, built once the options are checked. */
  private NlsparkOptions runOptions;

  @Override
  public String name() {
    return "glm";
  }

  /** Every flag as API options; the files are read later, by {@link Nlspark#prepareGlm}. */
  NlsparkOptions options() {
    if (fwer && noFwer) {
      throw new InvalidInputException("--fwer and --no-fwer contradict each other; pass one");
    }
    NlsparkOptions.Builder o = common.optionsBuilder().partitions(partitions.partitions);
    if (permutations != null) {
      o.replicates(permutations);
    }
    if (tail != null) {
      o.tail(Tail.parse(tail));
    }
    if (errors != null) {
      GlmDraws.Errors.parse(errors);
      o.errors(errors);
    }
    o.maskFile(mask);
    meshes.applyTo(o);
    wholeMap.apply(o);
    return o.fwer(!noFwer).fwerAcrossContrasts(fwerAcrossContrasts).fContrasts(fContrasts)
        .exchangeabilityBlocks(blocks).wholeBlocks(wholeBlocks).varianceGroups(varianceGroups)
        .demean(demean)
        .fslNames(fslNames).varianceSmoothing(varianceSmoothing).build();
  }

  @Override
  public void validate() {
    NlsparkOptions o = options();
    BackendSupport.CPU_ONLY.check(name(), common.backend());
    Precision.parse(common.precision());
    require("--input", input);
    StudyInputs.checkOptions(input, mask, null, null);
    require("--design", design);
    require("--contrasts", contrasts);
    o.toGlmOptions(blocks == null ? null : new int[0][], blocks);
    common.output(name());
  }

  @Override
  NlsparkOptions settings() {
    return options();
  }

  @Override
  CommonOptions common() {
    return common;
  }

  @Override
  void beforeSession(String output) {
    runOptions = options();
    Summaries.printStartLine(err, common.quiet, "glm",
        permutations == null ? JobSpec.DEFAULT_PERMUTATIONS : permutations,
        input, mask, output, common.master);
  }

  @Override
  RunReport execute(SparkSession spark) {
    // The files are read and the model checked (exit 2) before any tile runs.
    return Nlspark.glm(spark, input, design, contrasts, runOptions,
        Summaries.progressWanted(common.quiet));
  }

  @Override
  String[] inputPaths() {
    java.util.List<String> all = new java.util.ArrayList<>(
        java.util.List.of(input, design, contrasts));
    if (fContrasts != null) {
      all.add(fContrasts);
    }
    if (blocks != null) {
      all.add(blocks);
    }
    all.addAll(meshes.paths());
    if (varianceGroups != null && !varianceGroups.equals("auto")) {
      all.add(varianceGroups);
    }
    if (mask != null) {
      all.add(mask);
    }
    return all.toArray(new String[0]);
  }
}
