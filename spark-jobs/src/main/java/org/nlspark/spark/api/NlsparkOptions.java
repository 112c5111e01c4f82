package org.nlspark.spark.api;

import org.nlspark.core.backend.BackendSupport;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.tfce.ClusterExtent;
import org.nlspark.core.timeseries.SurrogateMethod;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * Options of one programmatic run: the settings of core's {@link JobSpec.Builder} (unset ones keep
 * its defaults) plus Spark-side options (partitions, grid). The analysis comes from the
 * {@link Nlspark} method called, so one options object can serve several analyses.
 */
public final class NlsparkOptions implements Serializable {
  private static final long serialVersionUID = 1L;

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
  private String maskSource;
  private String column;
  private String orderBy;

  public static NlsparkOptions defaults() {
    return new NlsparkOptions();
  }

  public NlsparkOptions statistic(String s) { this.statistic = s; return this; }
  /** B for bootstrap ({@code --samples}), P for permutation tests ({@code --permutations}). */
  public NlsparkOptions replicates(long r) { this.replicates = r; return this; }
  public NlsparkOptions seed(long s) { this.seed = s; return this; }
  public NlsparkOptions tail(Tail t) { this.tail = t; return this; }
  public NlsparkOptions fwer(boolean f) { this.fwer = f; return this; }
  public NlsparkOptions confidence(double c) { this.confidence = c; return this; }
  public NlsparkOptions ci(CiMethod c) { this.ci = c; return this; }
  public NlsparkOptions saveSamples(boolean s) { this.saveSamples = s; return this; }
  public NlsparkOptions precision(Precision p) { this.precision = p; return this; }
  public NlsparkOptions backend(String b) { this.backend = b; return this; }
  public NlsparkOptions memoryBudgetGb(Double g) { this.memoryBudgetGb = g; return this; }

  /** isc: {@code pairwise} (default) or {@code leave-one-out}. */
  public NlsparkOptions iscSummary(String s) { this.iscSummary = s; return this; }
  /** isc: {@code median} (default) or {@code mean} (Fisher z). */
  public NlsparkOptions iscMetric(String m) { this.iscMetric = m; return this; }
  /**
   * The null: isc {@code bootstrap} (default), {@code circle-shift} or {@code phase-randomize};
   * timeseries-correlation {@code circle-shift} (default) or {@code phase-randomize}.
   */
  public NlsparkOptions nullMethod(String n) { this.nullMethod = n; return this; }
  /** ridge-bootstrap: the ridge penalty (default 1.0). */
  public NlsparkOptions alpha(double a) { this.alpha = a; return this; }

  /** Spark partitions for the tiles; null (default) = one tile per partition. */
  public NlsparkOptions partitions(Integer n) {
    if (n != null && n < 1) {
      throw new InvalidInputException("--partitions must be at least 1, but was: " + n);
    }
    this.partitions = n;
    return this;
  }

  /** The logical grid (changes the computation, so it is recorded); default {@link Grid#DEFAULT}. */
  public NlsparkOptions grid(Grid g) { this.grid = g == null ? Grid.DEFAULT : g; return this; }

  /** The grid and mask of image inputs (null for .npy); set by the image readers. */
  public NlsparkOptions mask(NiftiMask mask) { this.mask = mask; return this; }
  public NiftiMask mask() { return mask; }

  /** The mask image of NIfTI inputs ({@code --mask}); null computes the default mask. */
  public NlsparkOptions maskFile(String uri) { this.maskFile = uri; return this; }
  public String maskFile() { return maskFile; }

  /** Where {@link #mask()} came from: a mask file, "computed", or null; set with the mask. */
  public NlsparkOptions maskSource(String source) { this.maskSource = source; return this; }
  public String maskSource() { return maskSource; }

  /** Parquet inputs: the array column of voxel values ({@code --column}, default voxels). */
  public NlsparkOptions column(String name) { this.column = name; return this; }
  public String column() { return column; }

  /** Parquet inputs: the column giving the sample order ({@code --order-by}); null = file order. */
  public NlsparkOptions orderBy(String name) { this.orderBy = name; return this; }
  public String orderBy() { return orderBy; }

  /** An independent copy (the entry points set the mask on a copy, never on the caller's). */
  public NlsparkOptions copy() {
    try {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(bytes)) {
        out.writeObject(this);
      }
      try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
          new java.io.ByteArrayInputStream(bytes.toByteArray()))) {
        return (NlsparkOptions) in.readObject();
      }
    } catch (java.io.IOException | ClassNotFoundException e) {
      throw new IllegalStateException("[BUG] cannot copy options: " + e, e);
    }
  }

  public Integer partitions() {
    return partitions;
  }

  public Grid grid() {
    return grid;
  }

  public Double memoryBudgetGb() {
    return memoryBudgetGb;
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

  // glm (DESIGN §9): the files are Hadoop URIs, read by Nlspark.glm.
  private String fContrasts;
  private String errors;
  private String exchangeabilityBlocks;
  private Boolean wholeBlocks;
  private Boolean fwerAcrossContrasts;

  /** glm: F contrasts over the t contrasts (CSV/TSV or VEST design.fts), or null. */
  public NlsparkOptions fContrasts(String path) { this.fContrasts = path; return this; }
  /** glm: {@code exchangeable}, {@code symmetric} or {@code both} (default: by the design). */
  public NlsparkOptions errors(String e) { this.errors = e; return this; }
  /** glm: one exchangeability block id per sample (CSV or VEST design.grp), or null. */
  public NlsparkOptions exchangeabilityBlocks(String path) {
    this.exchangeabilityBlocks = path;
    return this;
  }
  /** glm: permute whole blocks (of equal size) instead of within blocks. */
  public NlsparkOptions wholeBlocks(boolean w) { this.wholeBlocks = w; return this; }
  /** glm: also FWER over all contrasts ({@code p_cfwer_*}); implies FWER. */
  public NlsparkOptions fwerAcrossContrasts(boolean f) {
    this.fwerAcrossContrasts = f;
    return this;
  }

  public String fContrasts() {
    return fContrasts;
  }

  /** The backend asked for (null: the default, cpu). */
  public String backendRequested() {
    return backend;
  }

  public String exchangeabilityBlocks() {
    return exchangeabilityBlocks;
  }

  /**
   * The options of a glm run (errors null: chosen from the design). t contrasts are upper-tailed
   * unless a tail is set; F is always upper.
   */
  public org.nlspark.core.glm.GlmRun.Options toGlmOptions(int[] blocks, String blocksSource) {
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
    // their FWER maps from null_max* after the merge, in Nlspark.withFdr)
    if (tailApproximation && !wholeMapInference()) b.tailApproximation(true);
    return b.build();
  }


  private boolean tfce;
  private Double clusterThreshold;

  /**
   * one-sample, two-sample, correlation: threshold-free cluster enhancement of every replicate's
   * whole map (DESIGN §9; needs {@link #mask(NiftiMask)}).
   */
  public NlsparkOptions tfce(boolean t) { this.tfce = t; return this; }

  /**
   * one-sample, two-sample, correlation: cluster-extent inference at cluster-forming height
   * {@code t} on the tail's side (finite and &gt; 0; null = off; needs {@link #mask(NiftiMask)}).
   */
  public NlsparkOptions clusterThreshold(Double t) {
    this.clusterThreshold = t == null ? null : ClusterExtent.checkThreshold(t);
    return this;
  }

  /** Whether TFCE is on ({@code --tfce} or {@code --tfce-2d}). */
  public boolean tfce() {
    return tfce || tfce2d;
  }

  public Double clusterThreshold() {
    return clusterThreshold;
  }

  private Double clusterMass;
  private Integer connectivity;

  /**
   * Cluster mass at height {@code t} on the tail's side ({@code --cluster-mass}; finite and &gt;
   * 0; null = off; needs {@link #mask(NiftiMask)}): Σ of the statistic over each cluster.
   */
  public NlsparkOptions clusterMass(Double t) {
    this.clusterMass = t == null ? null : ClusterExtent.checkThreshold(t, "--cluster-mass");
    return this;
  }

  public Double clusterMass() {
    return clusterMass;
  }

  /** The clusters' neighbours, 6, 18 or 26 ({@code --connectivity}; null: 26, as randomise). */
  public NlsparkOptions connectivity(Integer c) { this.connectivity = c; return this; }

  private Double tfceE;
  private Double tfceH;
  private Integer tfceConnectivity;
  private boolean tfce2d;

  /** TFCE extent exponent E ({@code --tfce-e}; null: 0.5, or 1 with {@link #tfce2d}). */
  public NlsparkOptions tfceE(Double e) { this.tfceE = e; return this; }

  /** TFCE height exponent H ({@code --tfce-h}; null: 2). */
  public NlsparkOptions tfceH(Double h) { this.tfceH = h; return this; }

  /** TFCE connectivity 6, 18 or 26 ({@code --tfce-connectivity}; null: 6, or 26 with 2-D). */
  public NlsparkOptions tfceConnectivity(Integer c) { this.tfceConnectivity = c; return this; }

  /**
   * FSL's {@code --T2} preset for 2-D data ({@code --tfce-2d}): TFCE with H = 2, E = 1, 26
   * neighbours; the explicit {@link #tfceE}, {@link #tfceH}, {@link #tfceConnectivity} win.
   */
  public NlsparkOptions tfce2d(boolean t) { this.tfce2d = t; return this; }

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
    org.nlspark.core.tfce.WholeMapSettings s =
        org.nlspark.core.tfce.WholeMapSettings.of(enhance, clusterThreshold)
            .withClusterMass(clusterMass).withClusterConnectivity(connectivity);
    if (tfce2d) {
      s = s.withTfce2d();
    }
    return s.withTfce(tfceE, tfceH, tfceConnectivity);
  }

  private Double varianceSmoothingMm;

  /**
   * glm: smooth each draw's residual variance by a Gaussian of standard deviation {@code
   * sigmaMm} mm inside the mask and test the pseudo-t ({@code --variance-smoothing}, randomise's
   * {@code -v}; finite and &gt; 0; null = off; t contrasts and image inputs only).
   */
  public NlsparkOptions varianceSmoothing(Double sigmaMm) {
    this.varianceSmoothingMm = sigmaMm == null ? null
        : org.nlspark.core.tfce.VarianceSmoothing.checkSigma(sigmaMm);
    return this;
  }

  /** Null when off. */
  public Double varianceSmoothing() {
    return varianceSmoothingMm;
  }

  private boolean demean;

  /**
   * glm: centre the data and every design column and remove the intercept ({@code --demean},
   * PALM's {@code -demean}).
   */
  public NlsparkOptions demean(boolean d) { this.demean = d; return this; }

  public boolean demean() {
    return demean;
  }

  private boolean tailApproximation;

  /**
   * Refine the voxelwise FWER p below 0.1 by a generalised Pareto tail of the max-statistic null
   * ({@code --tail-approximation}, PALM's {@code -accel tail}).
   */
  public NlsparkOptions tailApproximation(boolean t) { this.tailApproximation = t; return this; }

  public boolean tailApproximation() {
    return tailApproximation;
  }

  private boolean fslNames;

  /**
   * glm: also write randomise's maps under randomise's names, holding 1 − p ({@code
   * vox_corrp_tstat1}, {@code tfce_corrp_tstat1}, ...; {@code --fsl-names}).
   */
  public NlsparkOptions fslNames(boolean f) { this.fslNames = f; return this; }

  public boolean fslNames() {
    return fslNames;
  }

  private boolean fdr;

  /**
   * one-sample, two-sample, correlation, glm: a Benjamini–Hochberg q map after each uncorrected
   * p map ({@code q}, {@code q_tstat1}, ...; {@code --fdr}).
   */
  public NlsparkOptions fdr(boolean f) { this.fdr = f; return this; }

  public boolean fdr() {
    return fdr;
  }

  /** Whether the run needs whole maps (TFCE or cluster extent). */
  public boolean wholeMapInference() {
    return tfce() || clusterThreshold != null || clusterMass != null;
  }
}
