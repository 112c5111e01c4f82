package org.nlspark.core.job;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;

/**
 * Everything that defines one resampling run apart from its data. Immutable and serializable, so
 * the same spec travels to executors; two runs with equal specs and data give bit-identical
 * outputs (DESIGN §5).
 */
public final class JobSpec implements Serializable {
  private static final long serialVersionUID = 1L;

  public static final long DEFAULT_BOOTSTRAP_SAMPLES = 5000;
  public static final long DEFAULT_PERMUTATIONS = 5000;
  public static final double DEFAULT_CONFIDENCE = 0.95;

  private final Analysis analysis;
  private final String statistic;
  private final long replicates;
  private final long seed;
  private final Tail tail;
  private final boolean fwer;
  private final double confidence;
  private final CiMethod ci;
  private final boolean saveSamples;
  private final Precision precision;
  private final boolean precisionExplicit;
  private final String backend;
  private final Double memoryBudgetGb;
  private final boolean tailApproximation;

  private JobSpec(Builder b) {
    this.analysis = b.analysis;
    this.statistic = b.statistic == null ? b.analysis.defaultStatistic() : b.statistic;
    this.replicates = b.replicates != null ? b.replicates
        : (b.analysis == Analysis.BOOTSTRAP ? DEFAULT_BOOTSTRAP_SAMPLES : DEFAULT_PERMUTATIONS);
    this.seed = b.seed;
    this.tail = b.tail;
    this.fwer = b.fwer;
    this.confidence = b.confidence;
    this.ci = b.ci;
    this.saveSamples = b.saveSamples;
    this.precision = b.precision == null ? Precision.FLOAT64 : b.precision;
    this.precisionExplicit = b.precision != null;
    this.backend = b.backend;
    this.memoryBudgetGb = b.memoryBudgetGb;
    this.tailApproximation = b.tailApproximation;
    validate();
  }

  private void validate() {
    Statistic.of(analysis, statistic); // exit 2 for a name the analysis does not accept
    String what = analysis == Analysis.BOOTSTRAP ? "--samples" : "--permutations";
    if (replicates < 1) {
      throw new InvalidInputException(what + " must be at least 1, but was: " + replicates);
    }
    if (replicates > Integer.MAX_VALUE - 1024) {
      throw new InvalidInputException(what + " must be at most " + (Integer.MAX_VALUE - 1024)
          + ", but was: " + replicates);
    }
    if (!(confidence > 0 && confidence < 1)) {
      throw new InvalidInputException(
          "--confidence must be in (0, 1), but was: " + confidence);
    }
    // --memory-budget-gb is checked by MemoryBudget.checkExplicit where a run is prepared (job
    // sits below memory in the package graph).
  }

  public static Builder builder(Analysis analysis) {
    return new Builder(analysis);
  }

  public Builder toBuilder() {
    Builder b = new Builder(analysis);
    b.statistic = statistic;
    b.replicates = replicates;
    b.seed = seed;
    b.tail = tail;
    b.fwer = fwer;
    b.confidence = confidence;
    b.ci = ci;
    b.saveSamples = saveSamples;
    b.precision = precisionExplicit ? precision : null;
    b.backend = backend;
    b.memoryBudgetGb = memoryBudgetGb;
    b.tailApproximation = tailApproximation;
    return b;
  }

  public Analysis analysis() {
    return analysis;
  }

  public String statistic() {
    return statistic;
  }

  /** The statistic's row of the table: which kernel computes it. */
  public Statistic statisticRow() {
    return Statistic.of(analysis, statistic);
  }

  /** B for a bootstrap, P for a permutation test (as requested; exact enumeration may use fewer). */
  public long replicates() {
    return replicates;
  }

  public long seed() {
    return seed;
  }

  public Tail tail() {
    return tail;
  }

  public boolean fwer() {
    return fwer;
  }

  public double confidence() {
    return confidence;
  }

  public CiMethod ci() {
    return ci;
  }

  public boolean saveSamples() {
    return saveSamples;
  }

  public Precision precision() {
    return precision;
  }

  /** False when the precision was left to the backend's default (float32 on GPU, float64 on CPU). */
  public boolean precisionExplicit() {
    return precisionExplicit;
  }

  /** The backend as requested: "cpu", "gpu" or "auto" (resolved by BackendResolver). */
  public String backend() {
    return backend;
  }

  /** Explicit memory budget in GB, or null to measure. */
  public Double memoryBudgetGb() {
    return memoryBudgetGb;
  }

  /**
   * Whether the tiles of a permutation test keep each voxel's largest null keys for the tail
   * approximation of its uncorrected p ({@code --tail-approximation}; DESIGN §4).
   */
  public boolean tailApproximation() {
    return tailApproximation;
  }

  /** The parameters as they appear in summary.json. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("statistic", statistic);
    if (analysis == Analysis.BOOTSTRAP) {
      m.put("samples", replicates);
      m.put("confidence", confidence);
      m.put("ci", ci.label());
      m.put("save_samples", saveSamples);
    } else {
      m.put("permutations", replicates);
      m.put("tail", tail.name().toLowerCase(java.util.Locale.ROOT));
      m.put("fwer", fwer);
      if (tailApproximation) { // absent otherwise: summaries of other runs are unchanged
        m.put("tail_approximation", true);
      }
    }
    m.put("seed", seed);
    m.put("precision", precision.label());
    m.put("backend_requested", backend);
    m.put("memory_budget_gb", memoryBudgetGb);
    return m;
  }

  /** Builder with the defaults of DESIGN §6. */
  public static final class Builder {
    private final Analysis analysis;
    private String statistic;
    private Long replicates;
    private long seed = 0;
    private Tail tail = Tail.TWO;
    private boolean fwer = true;
    private double confidence = DEFAULT_CONFIDENCE;
    private CiMethod ci = CiMethod.PERCENTILE;
    private boolean saveSamples;
    private Precision precision; // null: the backend's default
    private String backend = "cpu";
    private Double memoryBudgetGb;
    private boolean tailApproximation;

    private Builder(Analysis analysis) {
      this.analysis = analysis;
    }

    public Builder statistic(String s) { this.statistic = s; return this; }
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
    public Builder tailApproximation(boolean t) { this.tailApproximation = t; return this; }

    public JobSpec build() {
      return new JobSpec(this);
    }
  }
}
