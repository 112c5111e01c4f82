package org.nlspark.core.resample;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;

/**
 * Which replicates a run draws: the scheme, how many, and whether they are an exact enumeration.
 * Sign flips are enumerated exactly when all 2^n distinct flips fit in the requested P; draw 0 is
 * then the identity and p-values are count / 2^n (the observed data is one of the draws).
 */
public final class ResamplingPlan implements Serializable {
  private static final long serialVersionUID = 1L;

  /** How replicate r is drawn. */
  public enum Scheme {
    BOOTSTRAP_ROWS("bootstrap of rows (with replacement)"),
    SIGN_FLIPS("random sign flips"),
    SIGN_FLIPS_ENUMERATED("all 2^n sign flips, enumerated exactly"),
    LABEL_PERMUTATION("permutations of group labels"),
    TARGET_PERMUTATION("permutations of the target");

    private final String description;

    Scheme(String description) {
      this.description = description;
    }

    public String description() {
      return description;
    }
  }

  private final Scheme scheme;
  private final long replicates;
  private final long requested;
  private final long seed;
  private final int samples;

  private ResamplingPlan(Scheme scheme, long replicates, long requested, long seed, int samples) {
    this.scheme = scheme;
    this.replicates = replicates;
    this.requested = requested;
    this.seed = seed;
    this.samples = samples;
  }

  public static ResamplingPlan forJob(JobSpec spec, JobInputs inputs) {
    int n = inputs.samples();
    long p = spec.replicates();
    Analysis a = spec.analysis();
    switch (a) {
      case BOOTSTRAP:
        return new ResamplingPlan(Scheme.BOOTSTRAP_ROWS, p, p, spec.seed(), n);
      case ONE_SAMPLE:
        if (Draws.enumerateSignFlips(n, p)) {
          return new ResamplingPlan(Scheme.SIGN_FLIPS_ENUMERATED, 1L << n, p, spec.seed(), n);
        }
        return new ResamplingPlan(Scheme.SIGN_FLIPS, p, p, spec.seed(), n);
      case TWO_SAMPLE:
        return new ResamplingPlan(Scheme.LABEL_PERMUTATION, p, p, spec.seed(), n);
      case CORRELATION:
        return new ResamplingPlan(Scheme.TARGET_PERMUTATION, p, p, spec.seed(), n);
      default:
        throw new IllegalStateException("[BUG] unknown analysis " + a);
    }
  }

  public Scheme scheme() {
    return scheme;
  }

  /** Replicates actually drawn (2^n when enumerated). */
  public long replicates() {
    return replicates;
  }

  /** Replicates the user asked for. */
  public long requested() {
    return requested;
  }

  public boolean enumerated() {
    return scheme == Scheme.SIGN_FLIPS_ENUMERATED;
  }

  public long seed() {
    return seed;
  }

  public int samples() {
    return samples;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("scheme", scheme.description());
    m.put("replicates_drawn", replicates);
    m.put("replicates_requested", requested);
    m.put("exact_enumeration", enumerated());
    return m;
  }
}
