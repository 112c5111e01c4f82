package org.nlspark.spark.api;

import java.io.Serializable;
import java.util.Objects;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendSupport;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.tfce.ClusterExtent;
import org.nlspark.core.timeseries.SurrogateMethod;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;
import org.nlspark.core.tile.Grid;

/**
 * Options of one programmatic run, an immutable value: the settings of core's {@link
 * JobSpec.Builder} plus Spark-side options (partitions, grid). Unset settings are null and take
 * {@link JobSpec}'s defaults for the analysis run ({@link JobSpec#DEFAULT_PERMUTATIONS}, {@link
 * JobSpec#DEFAULT_BOOTSTRAP_SAMPLES}, {@link JobSpec#DEFAULT_CONFIDENCE}, ...), so one value
 * serves several analyses. Build one with {@link #builder()} ({@code
 * NlsparkOptions.builder().statistic("t").replicates(10_000).seed(1).build()}); derive a changed
 * one with {@link #toBuilder()}. The analysis comes from the {@link Nlspark} method called, and a
 * run never changes the value it is given.
 */
public final class NlsparkOptions implements Serializable {
  private static final long serialVersionUID = 2L;

  private static final NlsparkOptions DEFAULTS = new Builder().build();

  // every setting, in the order of the Builder's fields (the round trip test checks each)
  private final String statistic;
  private final Long replicates;
  private final Long seed;
  private final Tail tail;
  private final Boolean fwer;
  private final Double confidence;
  private final CiMethod ci;
  private final Boolean saveSamples;
  private final Precision precision;
  private final String backend;
  private final Double memoryBudgetGb;
  private final Integer partitions;
  private final Grid grid;
  private final String iscSummary;
  private final String iscMetric;
  private final String nullMethod;
  private final Double alpha;
  private final NiftiMask mask;
  private final String maskFile;
  /** The mesh of surface data ({@code --surface}), or null. */
  private final String surfaceFile;
  /** The cortex meshes of CIFTI data ({@code --surface-left}, {@code --surface-right}), or null. */
  private final String surfaceLeftFile;
  private final String surfaceRightFile;
  private final String vertexAreaFile;
  private final String maskSource;
  private final String column;
  private final String orderBy;
  private final String fContrasts;
  private final String errors;
  private final String exchangeabilityBlocks;
  private final Boolean wholeBlocks;
  private final String varianceGroups;
  private final Boolean fwerAcrossContrasts;
  private final boolean tfce;
  private final Double clusterThreshold;
  private final Double clusterMass;
  private final Integer connectivity;
  private final ClusterExtent.Rule clusterRule;
  private final Double tfceE;
  private final Double tfceH;
  private final Integer tfceConnectivity;
  private final boolean tfce2d;
  private final Double varianceSmoothing;
  private final boolean demean;
  private final boolean tailApproximation;
  private final boolean fslNames;
  private final boolean fdr;

  private NlsparkOptions(Builder b) {
    this.statistic = b.statistic;
    this.replicates = b.replicates;
    this.seed = b.seed;
    this.tail = b.tail;
    this.fwer = b.fwer;
    this.confidence = b.confidence;
    this.ci = b.ci;
    this.saveSamples = b.saveSamples;
    this.precision = b.precision;
    this.backend = b.backend;
    this.memoryBudgetGb = b.memoryBudgetGb;
    this.partitions = b.partitions;
    this.grid = b.grid;
    this.iscSummary = b.iscSummary;
    this.iscMetric = b.iscMetric;
    this.nullMethod = b.nullMethod;
    this.alpha = b.alpha;
    this.mask = b.mask;
    this.maskFile = b.maskFile;
    this.surfaceFile = b.surfaceFile;
    this.surfaceLeftFile = b.surfaceLeftFile;
    this.surfaceRightFile = b.surfaceRightFile;
    this.vertexAreaFile = b.vertexAreaFile;
    this.maskSource = b.maskSource;
    this.column = b.column;
    this.orderBy = b.orderBy;
    this.fContrasts = b.fContrasts;
    this.errors = b.errors;
    this.exchangeabilityBlocks = b.exchangeabilityBlocks;
    this.wholeBlocks = b.wholeBlocks;
    this.varianceGroups = b.varianceGroups;
    this.fwerAcrossContrasts = b.fwerAcrossContrasts;
    this.tfce = b.tfce;
    this.clusterThreshold = b.clusterThreshold;
    this.clusterMass = b.clusterMass;
    this.connectivity = b.connectivity;
    this.clusterRule = b.clusterRule;
    this.tfceE = b.tfceE;
    this.tfceH = b.tfceH;
    this.tfceConnectivity = b.tfceConnectivity;
    this.tfce2d = b.tfce2d;
    this.varianceSmoothing = b.varianceSmoothing;
    this.demean = b.demean;
    this.tailApproximation = b.tailApproximation;
    this.fslNames = b.fslNames;
    this.fdr = b.fdr;
  }

  /** The defaults: every setting unset (JobSpec's defaults), {@link Grid#DEFAULT}. */
  public static NlsparkOptions defaults() {
    return DEFAULTS;
  }

  /** {@code options}, or {@link #defaults()} where a caller passed none. */
  public static NlsparkOptions orDefaults(NlsparkOptions options) {
    return options == null ? DEFAULTS : options;
  }

  /** A builder starting from {@link #defaults()}. */
  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this value's settings, for a value that differs in some. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.statistic = statistic;
    b.replicates = replicates;
    b.seed = seed;
    b.tail = tail;
    b.fwer = fwer;
    b.confidence = confidence;
    b.ci = ci;
    b.saveSamples = saveSamples;
    b.precision = precision;
    b.backend = backend;
    b.memoryBudgetGb = memoryBudgetGb;
    b.partitions = partitions;
    b.grid = grid;
    b.iscSummary = iscSummary;
    b.iscMetric = iscMetric;
    b.nullMethod = nullMethod;
    b.alpha = alpha;
    b.mask = mask;
    b.maskFile = maskFile;
    b.surfaceFile = surfaceFile;
    b.surfaceLeftFile = surfaceLeftFile;
    b.surfaceRightFile = surfaceRightFile;
    b.vertexAreaFile = vertexAreaFile;
    b.maskSource = maskSource;
    b.column = column;
    b.orderBy = orderBy;
    b.fContrasts = fContrasts;
    b.errors = errors;
    b.exchangeabilityBlocks = exchangeabilityBlocks;
    b.wholeBlocks = wholeBlocks;
    b.varianceGroups = varianceGroups;
    b.fwerAcrossContrasts = fwerAcrossContrasts;
    b.tfce = tfce;
    b.clusterThreshold = clusterThreshold;
    b.clusterMass = clusterMass;
    b.connectivity = connectivity;
    b.clusterRule = clusterRule;
    b.tfceE = tfceE;
    b.tfceH = tfceH;
    b.tfceConnectivity = tfceConnectivity;
    b.tfce2d = tfce2d;
    b.varianceSmoothing = varianceSmoothing;
    b.demean = demean;
    b.tailApproximation = tailApproximation;
    b.fslNames = fslNames;
    b.fdr = fdr;
    return b;
  }

  /** The grid and mask of image inputs given in code (null for .npy and files read by a run). */
  public NiftiMask mask() {
    return mask;
  }

  /** The mesh of surface data ({@code --surface}), or null. */
  public String surfaceFile() {
    return surfaceFile;
  }

  /** The left cortex mesh of CIFTI data ({@code --surface-left}), or null. */
  public String surfaceLeftFile() {
    return surfaceLeftFile;
  }

  /** The right cortex mesh of CIFTI data ({@code --surface-right}), or null. */
  public String surfaceRightFile() {
    return surfaceRightFile;
  }

  /** The mesh files of surface data (the meshes and vertex areas), or null without a mesh. */
  public org.nlspark.spark.io.StudyInputs.MeshFiles meshFiles() {
    return org.nlspark.spark.io.StudyInputs.MeshFiles.of(surfaceFile, vertexAreaFile,
        surfaceLeftFile, surfaceRightFile);
  }

  /** The mesh a surface study names ({@code --surface} or a CIFTI cortex mesh), or null. */
  private String anyMesh() {
    return surfaceFile != null ? surfaceFile
        : surfaceLeftFile != null ? surfaceLeftFile : surfaceRightFile;
  }

  /**
   * Each vertex's area ({@code --vertex-area}: a GIFTI or MGH of one value per vertex of the
   * mesh), or null for a third of each vertex's triangles (PALM's {@code palm_calcarea}).
   */
  public String vertexAreaFile() {
    return vertexAreaFile;
  }

  /** The mask image of NIfTI inputs ({@code --mask}); null computes the default mask. */
  public String maskFile() {
    return maskFile;
  }

  /** Where {@link #mask()} came from: a mask file, "computed", or null. */
  public String maskSource() {
    return maskSource;
  }

  /** Parquet inputs: the array column of voxel values ({@code --column}, default voxels). */
  public String column() {
    return column;
  }

  /** Parquet inputs: the column giving the sample order ({@code --order-by}); null = file order. */
  public String orderBy() {
    return orderBy;
  }

  /** Spark partitions for the tiles; null (default) = {@code TilePlanner.tasks}. */
  public Integer partitions() {
    return partitions;
  }

  /** The logical grid (it changes the computation, so it is recorded); default Grid.DEFAULT. */
  public Grid grid() {
    return grid;
  }

  public Double memoryBudgetGb() {
    return memoryBudgetGb;
  }

  /** glm: F contrasts over the t contrasts (CSV/TSV or VEST design.fts), or null. */
  public String fContrasts() {
    return fContrasts;
  }

  /** The backend asked for (null: the default, cpu). */
  public String backendRequested() {
    return backend;
  }

  /** glm: one exchangeability block id per sample (CSV or VEST design.grp), or null. */
  public String exchangeabilityBlocks() {
    return exchangeabilityBlocks;
  }

  /** glm: variance groups, a file of one group id per sample or {@code auto}; or null. */
  public String varianceGroups() {
    return varianceGroups;
  }

  /** Whether TFCE is on ({@code --tfce} or {@code --tfce-2d}). */
  public boolean tfce() {
    return tfce || tfce2d;
  }

  public Double clusterThreshold() {
    return clusterThreshold;
  }

  public Double clusterMass() {
    return clusterMass;
  }

  /** How clusters form: the rule asked for, else randomise's. */
  public ClusterExtent.Rule clusterRule() {
    return clusterRule == null ? ClusterExtent.Rule.RANDOMISE : clusterRule;
  }

  /** glm: the variance smoothing sigma in mm; null when off. */
  public Double varianceSmoothing() {
    return varianceSmoothing;
  }

  public boolean demean() {
    return demean;
  }

  public boolean tailApproximation() {
    return tailApproximation;
  }

  public boolean fslNames() {
    return fslNames;
  }

  public boolean fdr() {
    return fdr;
  }

  /** Whether the run needs whole maps (TFCE or cluster extent). */
  public boolean wholeMapInference() {
    return tfce() || clusterThreshold != null || clusterMass != null;
  }

  /** The options of an isc run; replicates are B (bootstrap null) or the surrogates drawn. */
  public Isc.Options toIscOptions() {
    BackendSupport.CPU_ONLY.check("isc", backend);
    IscNull nul = IscNull.parse(nullMethod == null ? "bootstrap" : nullMethod);
    return new Isc.Options(IscSummary.parse(iscSummary == null ? "pairwise" : iscSummary),
        IscMetric.parse(iscMetric == null ? "median" : iscMetric), nul,
        replicates != null ? replicates : nul == IscNull.BOOTSTRAP
            ? JobSpec.DEFAULT_BOOTSTRAP_SAMPLES : JobSpec.DEFAULT_PERMUTATIONS,
        confidence == null ? JobSpec.DEFAULT_CONFIDENCE : confidence,
        tail == null ? Tail.TWO : tail, fwer == null || fwer, seed == null ? 0 : seed,
        saveSamples != null && saveSamples, grid);
  }

  /** The options of a timeseries-correlation run. */
  public TimeSeriesCorrelation.Options toTimeSeriesOptions() {
    BackendSupport.CPU_ONLY.check("timeseries-correlation", backend);
    return new TimeSeriesCorrelation.Options(
        SurrogateMethod.parse(nullMethod == null ? "circle-shift" : nullMethod, "--null"),
        replicates == null ? JobSpec.DEFAULT_PERMUTATIONS : replicates,
        tail == null ? Tail.TWO : tail,
        fwer == null || fwer, seed == null ? 0 : seed, grid);
  }

  /** The options of a ridge-bootstrap run (budget: explicit, else resolved by the engine). */
  public RidgeBootstrap.Options toRidgeOptions() {
    BackendSupport.CPU_ONLY.check("ridge-bootstrap", backend);
    return new RidgeBootstrap.Options(alpha == null ? 1.0 : alpha,
        replicates == null ? JobSpec.DEFAULT_BOOTSTRAP_SAMPLES : replicates,
        confidence == null ? JobSpec.DEFAULT_CONFIDENCE : confidence,
        seed == null ? 0 : seed, saveSamples != null && saveSamples,
        memoryBudgetGb);
  }

  /**
   * The options of a glm run (errors null: chosen from the design). t contrasts are upper-tailed
   * unless a tail is set; F is always upper.
   */
  public org.nlspark.core.glm.GlmRun.Options toGlmOptions(int[][] blocks,
      String blocksSource) {
    boolean whole = wholeBlocks != null && wholeBlocks;
    if (whole && blocks == null) {
      throw new InvalidInputException("Cannot permute whole blocks: --whole-blocks needs"
          + " --exchangeability-blocks FILE");
    }
    long p = replicates == null ? JobSpec.DEFAULT_PERMUTATIONS : replicates;
    if (p < 1) {
      throw new InvalidInputException("--permutations must be >= 1, but was: " + p);
    }
    boolean across = fwerAcrossContrasts != null && fwerAcrossContrasts;
    if (across && fwer != null && !fwer) {
      throw new InvalidInputException("--fwer-across-contrasts and --no-fwer contradict each"
          + " other; pass one");
    }
    return new org.nlspark.core.glm.GlmRun.Options(errors == null ? null
        : org.nlspark.core.resample.GlmDraws.Errors.parse(errors), blocks,
        blocksSource == null ? "" : blocksSource, whole, p, seed == null ? 0 : seed,
        tail == null ? Tail.UPPER : tail, fwer == null || fwer, false, grid,
        precision == null ? Precision.FLOAT64 : precision).withFwerAcrossContrasts(across);
  }

  /**
   * The request of a glm run ({@link org.nlspark.core.glm.GlmRequest}): {@link #toGlmOptions},
   * the backend, the budget and {@code --demean}.
   */
  public org.nlspark.core.glm.GlmRequest toGlmRequest(int[][] blocks,
      String blocksSource) {
    return toGlmRequest(blocks, blocksSource, null);
  }

  /** The same with the variance groups read ({@code auto} needs no file; null: none). */
  public org.nlspark.core.glm.GlmRequest toGlmRequest(int[][] blocks, String blocksSource,
      org.nlspark.core.glm.VarianceGroups groups) {
    org.nlspark.core.glm.VarianceGroups g = groups != null ? groups
        : "auto".equals(varianceGroups) ? org.nlspark.core.glm.VarianceGroups.auto() : null;
    return new org.nlspark.core.glm.GlmRequest(toGlmOptions(blocks, blocksSource)
        .withVarianceGroups(g), backendRequested(), memoryBudgetGb(), demean());
  }

  /** The core spec for {@code analysis}; invalid settings throw InvalidInputException. */
  public JobSpec toSpec(Analysis analysis) {
    MemoryBudget.checkExplicit(memoryBudgetGb); // exit 2 before any Spark work
    JobSpec.Builder b = JobSpec.builder(analysis);
    if (statistic != null) b.statistic(statistic);
    if (replicates != null) b.replicates(replicates);
    if (seed != null) b.seed(seed);
    if (tail != null) b.tail(tail);
    if (fwer != null) b.fwer(fwer);
    if (confidence != null) b.confidence(confidence);
    if (ci != null) b.ci(ci);
    if (saveSamples != null) b.saveSamples(saveSamples);
    if (precision != null) b.precision(precision);
    if (backend != null) b.backend(backend);
    if (memoryBudgetGb != null) b.memoryBudgetGb(memoryBudgetGb);
    // per-voxel null tails for the uncorrected p: voxelwise runs only (whole-map runs refine
    // their FWER maps from null_max* after the merge, in ResultSteps.applied)
    if (tailApproximation && !wholeMapInference()) b.tailApproximation(true);
    return b.build();
  }

  /**
   * The whole-map settings these options ask for (checked: exit 2 for a bad value, or for a TFCE
   * parameter without TFCE).
   */
  public org.nlspark.core.tfce.WholeMapSettings wholeMapSettings() {
    boolean enhance = tfce || tfce2d;
    if (!enhance && (tfceE != null || tfceH != null || tfceConnectivity != null)) {
      throw new InvalidInputException((tfceE != null ? "--tfce-e" : tfceH != null ? "--tfce-h"
          : "--tfce-connectivity") + " sets a TFCE parameter, but TFCE is off; add --tfce (or"
          + " --tfce-2d)");
    }
    if (connectivity != null && clusterThreshold == null && clusterMass == null) {
      throw new InvalidInputException("--connectivity sets how clusters join, but there are no"
          + " clusters; add --cluster-threshold T or --cluster-mass T (TFCE's neighbours are"
          + " --tfce-connectivity)");
    }
    if (clusterRule != null && clusterThreshold == null && clusterMass == null) {
      throw new InvalidInputException("--cluster-rule sets how clusters form, but there are no"
          + " clusters; add --cluster-threshold T or --cluster-mass T");
    }
    // CIFTI's subcortical voxels are a grid: --connectivity sets how their clusters join (the
    // cortex joins through its triangles' edges); their TFCE is PALM's volume TFCE on faces.
    if (surfaceFile != null && (connectivity != null || tfceConnectivity != null)) {
      String flag = connectivity != null ? "--connectivity" : "--tfce-connectivity";
      throw new InvalidInputException(flag + " sets how voxels of a grid join, but on the"
          + " surface " + surfaceFile + " vertices join through the edges of its triangles;"
          + " drop it");
    }
    if (anyMesh() != null && tfceConnectivity != null) {
      throw new InvalidInputException("--tfce-connectivity sets how voxels of a grid join in"
          + " TFCE, but CIFTI data joins its cortex's vertices through the edges of their"
          + " triangles and its subcortical voxels as PALM does on a volume (face neighbours);"
          + " drop it (--connectivity sets the voxels' clusters)");
    }
    org.nlspark.core.tfce.WholeMapSettings s =
        org.nlspark.core.tfce.WholeMapSettings.of(enhance, clusterThreshold)
            .withClusterMass(clusterMass).withClusterConnectivity(connectivity)
            .withClusterRule(clusterRule);
    if (tfce2d) {
      s = s.withTfce2d();
    }
    // On a surface TFCE's extent exponent defaults to PALM's -tfce2D (E = 1), as volumes
    // default to FSL's -T (E = 0.5).
    Double e = tfceE == null && anyMesh() != null && !tfce2d
        ? Double.valueOf(org.nlspark.core.tfce.WholeMapSettings.TWO_D_EXTENT_EXPONENT) : tfceE;
    return s.withTfce(e, tfceH, tfceConnectivity);
  }

  /**
   * {@link #wholeMapSettings()} for the maps of {@code grid}: a CIFTI study's {@code
   * --connectivity} sets its subcortical voxels' cluster neighbours, so it is refused (exit 2)
   * where the data with its mask keeps none.
   */
  public org.nlspark.core.tfce.WholeMapSettings wholeMapSettings(
      org.nlspark.core.tfce.Adjacency grid) {
    org.nlspark.core.tfce.WholeMapSettings s = wholeMapSettings();
    if (connectivity != null && grid instanceof org.nlspark.core.tfce.MeshAdjacency mesh
        && mesh.voxelCount() == 0) {
      throw new InvalidInputException("Cannot run --connectivity " + connectivity + ": it sets"
          + " how CIFTI's subcortical voxels join in clusters, but the data (with its mask)"
          + " keeps none, and the cortex joins through the edges of its triangles; drop it");
    }
    return s;
  }

  /** Equal when every setting is (the mask compares by identity, as {@link NiftiMask} does). */
  @Override
  public boolean equals(Object other) {
    if (this == other) {
      return true;
    }
    if (!(other instanceof NlsparkOptions o)) {
      return false;
    }
    return Objects.equals(statistic, o.statistic) && Objects.equals(replicates, o.replicates) &&
        Objects.equals(seed, o.seed) && Objects.equals(tail, o.tail) &&
        Objects.equals(fwer, o.fwer) && Objects.equals(confidence, o.confidence) &&
        Objects.equals(ci, o.ci) && Objects.equals(saveSamples, o.saveSamples) &&
        Objects.equals(precision, o.precision) && Objects.equals(backend, o.backend) &&
        Objects.equals(memoryBudgetGb, o.memoryBudgetGb) &&
        Objects.equals(partitions, o.partitions) && Objects.equals(grid, o.grid) &&
        Objects.equals(iscSummary, o.iscSummary) && Objects.equals(iscMetric, o.iscMetric) &&
        Objects.equals(nullMethod, o.nullMethod) && Objects.equals(alpha, o.alpha) &&
        Objects.equals(mask, o.mask) && Objects.equals(maskFile, o.maskFile) &&
        Objects.equals(surfaceFile, o.surfaceFile) &&
        Objects.equals(surfaceLeftFile, o.surfaceLeftFile) &&
        Objects.equals(surfaceRightFile, o.surfaceRightFile) &&
        Objects.equals(vertexAreaFile, o.vertexAreaFile) &&
        Objects.equals(maskSource, o.maskSource) && Objects.equals(column, o.column) &&
        Objects.equals(orderBy, o.orderBy) && Objects.equals(fContrasts, o.fContrasts) &&
        Objects.equals(errors, o.errors) &&
        Objects.equals(exchangeabilityBlocks, o.exchangeabilityBlocks) &&
        Objects.equals(wholeBlocks, o.wholeBlocks) &&
        Objects.equals(varianceGroups, o.varianceGroups) &&
        Objects.equals(fwerAcrossContrasts, o.fwerAcrossContrasts) && tfce == o.tfce &&
        Objects.equals(clusterThreshold, o.clusterThreshold) &&
        Objects.equals(clusterMass, o.clusterMass) &&
        Objects.equals(connectivity, o.connectivity) && clusterRule == o.clusterRule &&
        Objects.equals(tfceE, o.tfceE) &&
        Objects.equals(tfceH, o.tfceH) && Objects.equals(tfceConnectivity, o.tfceConnectivity) &&
        tfce2d == o.tfce2d && Objects.equals(varianceSmoothing, o.varianceSmoothing) &&
        demean == o.demean && tailApproximation == o.tailApproximation && fslNames == o.fslNames &&
        fdr == o.fdr;
  }

  @Override
  public int hashCode() {
    return Objects.hash(statistic, replicates, seed, tail, fwer, confidence, ci, saveSamples,
        precision, backend, memoryBudgetGb, partitions, grid, iscSummary, iscMetric, nullMethod,
        alpha, mask, maskFile, surfaceFile, surfaceLeftFile, surfaceRightFile, vertexAreaFile,
        maskSource, column, orderBy, fContrasts, errors,
        exchangeabilityBlocks, wholeBlocks, varianceGroups, fwerAcrossContrasts, tfce,
        clusterThreshold, clusterMass, connectivity, clusterRule, tfceE, tfceH, tfceConnectivity,
        tfce2d, varianceSmoothing, demean, tailApproximation, fslNames, fdr);
  }

  /**
   * The mutable builder of {@link NlsparkOptions}: each setter sets one option (checking it where
   * a bad value is known at once) and returns this; {@link #build()} takes a snapshot, so the
   * builder can go on to build other values. Unset options keep JobSpec's defaults.
   */
  public static final class Builder {
    private String statistic;
    private Long replicates;
    private Long seed;
    private Tail tail;
    private Boolean fwer;
    private Double confidence;
    private CiMethod ci;
    private Boolean saveSamples;
    private Precision precision;
    private String backend;
    private Double memoryBudgetGb;
    private Integer partitions;
    private Grid grid = Grid.DEFAULT;
    private String iscSummary;
    private String iscMetric;
    private String nullMethod;
    private Double alpha;
    private NiftiMask mask;
    private String maskFile;
    private String surfaceFile;
    private String surfaceLeftFile;
    private String surfaceRightFile;
    private String vertexAreaFile;
    private String maskSource;
    private String column;
    private String orderBy;
    private String fContrasts;
    private String errors;
    private String exchangeabilityBlocks;
    private Boolean wholeBlocks;
    private String varianceGroups;
    private Boolean fwerAcrossContrasts;
    private boolean tfce;
    private Double clusterThreshold;
    private Double clusterMass;
    private Integer connectivity;
    private ClusterExtent.Rule clusterRule;
    private Double tfceE;
    private Double tfceH;
    private Integer tfceConnectivity;
    private boolean tfce2d;
    private Double varianceSmoothing;
    private boolean demean;
    private boolean tailApproximation;
    private boolean fslNames;
    private boolean fdr;

    private Builder() {}

    /** The value of the options set so far. */
    public NlsparkOptions build() {
      return new NlsparkOptions(this);
    }

    public Builder statistic(String s) { this.statistic = s; return this; }
    /** B for bootstrap ({@code --samples}), P for permutation tests ({@code --permutations}). */
    public Builder replicates(long r) { this.replicates = r; return this; }
    public Builder seed(long s) { this.seed = s; return this; }
    public Builder tail(Tail t) { this.tail = t; return this; }
    public Builder fwer(boolean f) { this.fwer = f; return this; }
    public Builder confidence(double c) { this.confidence = c; return this; }
    public Builder ci(CiMethod c) { this.ci = c; return this; }
    public Builder saveSamples(boolean s) { this.saveSamples = s; return this; }
    public Builder precision(Precision p) { this.precision = p; return this; }
    public Builder backend(String b) { this.backend = b; return this; }
    public Builder memoryBudgetGb(Double g) { this.memoryBudgetGb = g; return this; }

    /** Spark partitions for the tiles; null (default) = {@code TilePlanner.tasks}. */
    public Builder partitions(Integer n) {
      if (n != null && n < 1) {
        throw new InvalidInputException("--partitions must be at least 1, but was: " + n);
      }
      this.partitions = n;
      return this;
    }

    /** The logical grid (it changes the computation, so it is recorded); default Grid.DEFAULT. */
    public Builder grid(Grid g) { this.grid = g == null ? Grid.DEFAULT : g; return this; }

    /** isc: {@code pairwise} (default) or {@code leave-one-out}. */
    public Builder iscSummary(String s) { this.iscSummary = s; return this; }
    /** isc: {@code median} (default) or {@code mean} (Fisher z). */
    public Builder iscMetric(String m) { this.iscMetric = m; return this; }
    /**
     * The null: isc {@code bootstrap} (default), {@code circle-shift} or {@code phase-randomize};
     * timeseries-correlation {@code circle-shift} (default) or {@code phase-randomize}.
     */
    public Builder nullMethod(String n) { this.nullMethod = n; return this; }
    /** ridge-bootstrap: the ridge penalty (default 1.0). */
    public Builder alpha(double a) { this.alpha = a; return this; }

    /** The grid and mask of image inputs given in code, for data already masked (else null). */
    public Builder mask(NiftiMask m) { this.mask = m; return this; }
    /** The mask image of NIfTI inputs ({@code --mask}); null computes the default mask. */
    public Builder maskFile(String uri) { this.maskFile = uri; return this; }

    /** The mesh of surface data (a {@code .surf.gii} or FreeSurfer surface), {@code --surface}. */
    public Builder surfaceFile(String uri) { this.surfaceFile = uri; return this; }
    /** The left cortex mesh of CIFTI data, {@code --surface-left}. */
    public Builder surfaceLeftFile(String uri) { this.surfaceLeftFile = uri; return this; }
    /** The right cortex mesh of CIFTI data, {@code --surface-right}. */
    public Builder surfaceRightFile(String uri) { this.surfaceRightFile = uri; return this; }
    /** Each vertex's area (a GIFTI or MGH per vertex), {@code --vertex-area}; needs the mesh. */
    public Builder vertexAreaFile(String uri) { this.vertexAreaFile = uri; return this; }
    /** Where {@link #mask(NiftiMask)} came from: a mask file, "computed", or null. */
    public Builder maskSource(String source) { this.maskSource = source; return this; }
    /** Parquet inputs: the array column of voxel values ({@code --column}, default voxels). */
    public Builder column(String name) { this.column = name; return this; }
    /** Parquet inputs: the column giving the sample order ({@code --order-by}); null: by file. */
    public Builder orderBy(String name) { this.orderBy = name; return this; }

    // glm (DESIGN §9): the files are Hadoop URIs, read by Nlspark.glm.
    /** glm: F contrasts over the t contrasts (CSV/TSV or VEST design.fts), or null. */
    public Builder fContrasts(String path) { this.fContrasts = path; return this; }
    /** glm: {@code exchangeable}, {@code symmetric} or {@code both} (default: by the design). */
    public Builder errors(String e) { this.errors = e; return this; }
    /** glm: one exchangeability block id per sample (CSV or VEST design.grp), or null. */
    public Builder exchangeabilityBlocks(String path) {
      this.exchangeabilityBlocks = path;
      return this;
    }
    /** glm: permute whole blocks (of equal size) instead of within blocks. */
    public Builder wholeBlocks(boolean w) { this.wholeBlocks = w; return this; }
    /**
     * glm: variance groups (PALM's -vg): a file of one group id per sample, or {@code auto}
     * (from the exchangeability blocks); with more than one group, v and G replace t and F.
     */
    public Builder varianceGroups(String pathOrAuto) {
      this.varianceGroups = pathOrAuto;
      return this;
    }
    /** glm: also FWER over all contrasts ({@code p_cfwer_*}); implies FWER. */
    public Builder fwerAcrossContrasts(boolean f) {
      this.fwerAcrossContrasts = f;
      return this;
    }

    /**
     * one-sample, two-sample, correlation: threshold-free cluster enhancement of every
     * replicate's whole map (DESIGN §9; needs a mask: {@link #mask(NiftiMask)} or image inputs).
     */
    public Builder tfce(boolean t) { this.tfce = t; return this; }

    /**
     * one-sample, two-sample, correlation: cluster-extent inference at cluster-forming height
     * {@code t} on the tail's side (finite and &gt; 0; null = off; needs a mask).
     */
    public Builder clusterThreshold(Double t) {
      this.clusterThreshold = t == null ? null : ClusterExtent.checkThreshold(t);
      return this;
    }

    /**
     * Cluster mass at height {@code t} on the tail's side ({@code --cluster-mass}; finite and
     * &gt; 0; null = off; needs a mask): Σ of the statistic over each cluster.
     */
    public Builder clusterMass(Double t) {
      this.clusterMass = t == null ? null : ClusterExtent.checkThreshold(t, "--cluster-mass");
      return this;
    }

    /** The clusters' neighbours, 6, 18 or 26 ({@code --connectivity}; null: 26, as randomise). */
    public Builder connectivity(Integer c) { this.connectivity = c; return this; }

    /**
     * How clusters form and what their mass sums ({@code --cluster-rule}; null: randomise's, ≥ T
     * and Σ stat; nilearn's is &gt; T and Σ(|stat| − T)).
     */
    public Builder clusterRule(ClusterExtent.Rule r) { this.clusterRule = r; return this; }

    /** TFCE extent exponent E ({@code --tfce-e}; null: 0.5, or 1 with {@link #tfce2d}). */
    public Builder tfceE(Double e) { this.tfceE = e; return this; }

    /** TFCE height exponent H ({@code --tfce-h}; null: 2). */
    public Builder tfceH(Double h) { this.tfceH = h; return this; }

    /** TFCE connectivity 6, 18 or 26 ({@code --tfce-connectivity}; null: 6, or 26 with 2-D). */
    public Builder tfceConnectivity(Integer c) { this.tfceConnectivity = c; return this; }

    /**
     * FSL's {@code --T2} preset for 2-D data ({@code --tfce-2d}): TFCE with H = 2, E = 1, 26
     * neighbours; the explicit {@link #tfceE}, {@link #tfceH}, {@link #tfceConnectivity} win.
     */
    public Builder tfce2d(boolean t) { this.tfce2d = t; return this; }

    /**
     * glm: smooth each draw's residual variance by a Gaussian of standard deviation {@code
     * sigmaMm} mm inside the mask and test the pseudo-t ({@code --variance-smoothing},
     * randomise's {@code -v}; finite and &gt; 0; null = off; t contrasts and image inputs only).
     */
    public Builder varianceSmoothing(Double sigmaMm) {
      this.varianceSmoothing = sigmaMm == null ? null
          : org.nlspark.core.tfce.VarianceSmoothing.checkSigma(sigmaMm);
      return this;
    }

    /**
     * glm: centre the data and every design column and remove the intercept ({@code --demean},
     * PALM's {@code -demean}).
     */
    public Builder demean(boolean d) { this.demean = d; return this; }

    /**
     * Refine the voxelwise FWER p below 0.1 by a generalised Pareto tail of the max-statistic
     * null ({@code --tail-approximation}, PALM's {@code -accel tail}).
     */
    public Builder tailApproximation(boolean t) { this.tailApproximation = t; return this; }

    /**
     * glm: also write randomise's maps under randomise's names, holding 1 − p ({@code
     * vox_corrp_tstat1}, {@code tfce_corrp_tstat1}, ...; {@code --fsl-names}).
     */
    public Builder fslNames(boolean f) { this.fslNames = f; return this; }

    /**
     * one-sample, two-sample, correlation, glm: a Benjamini–Hochberg q map after each
     * uncorrected p map ({@code q}, {@code q_tstat1}, ...; {@code --fdr}).
     */
    public Builder fdr(boolean f) { this.fdr = f; return this; }
  }
}
