package org.nlspark.core.job;

import java.util.ArrayList;
import java.util.List;
import org.nlspark.core.InvalidInputException;

/**
 * The statistic table (DESIGN §6): every statistic an analysis accepts, its command-line name
 * and the kernel family that computes it. The CPU kernels ({@code stats/Kernels}), the GPU
 * blocks and the observed value all go through the one {@link #dispatch} on this table, so a
 * statistic is added in one place and no side can accept a name the other lacks.
 */
public enum Statistic {
  BOOTSTRAP_MEAN(Analysis.BOOTSTRAP, "mean", Kernel.BOOTSTRAP_LINEAR),
  BOOTSTRAP_MEDIAN(Analysis.BOOTSTRAP, "median", Kernel.BOOTSTRAP_ORDER),
  BOOTSTRAP_STD(Analysis.BOOTSTRAP, "std", Kernel.BOOTSTRAP_LINEAR),
  BOOTSTRAP_SUM(Analysis.BOOTSTRAP, "sum", Kernel.BOOTSTRAP_LINEAR),
  BOOTSTRAP_MIN(Analysis.BOOTSTRAP, "min", Kernel.BOOTSTRAP_ORDER),
  BOOTSTRAP_MAX(Analysis.BOOTSTRAP, "max", Kernel.BOOTSTRAP_ORDER),
  SIGN_FLIP_MEAN(Analysis.ONE_SAMPLE, "mean", Kernel.SIGN_FLIP),
  SIGN_FLIP_T(Analysis.ONE_SAMPLE, "t", Kernel.SIGN_FLIP),
  MEAN_DIFFERENCE(Analysis.TWO_SAMPLE, "mean-diff", Kernel.TWO_SAMPLE),
  WELCH_T(Analysis.TWO_SAMPLE, "welch-t", Kernel.TWO_SAMPLE),
  PEARSON(Analysis.CORRELATION, "pearson", Kernel.CORRELATION),
  SPEARMAN(Analysis.CORRELATION, "spearman", Kernel.CORRELATION);

  /** How a statistic is computed: one CPU kernel class and one GPU block kind per family. */
  public enum Kernel {
    /** Draw-count matrix times the data (GEMM), then a per-voxel epilogue. */
    BOOTSTRAP_LINEAR,
    /** Order statistics of each draw (no GEMM). */
    BOOTSTRAP_ORDER,
    /** Sign-flip matrix times the data. */
    SIGN_FLIP,
    /** Label permutations times the stacked groups. */
    TWO_SAMPLE,
    /** Target permutations times the standardised data (ranks for Spearman). */
    CORRELATION
  }

  /** The linear bootstrap statistics: a weighted sum of each draw, then an epilogue. */
  public enum Reduction { SUM, MEAN, STD }

  /** The order bootstrap statistics of each draw. */
  public enum Order { MEDIAN, MIN, MAX }

  /**
   * What one side (CPU kernels, GPU blocks, the observed value) builds for each kernel family,
   * given the row's variant; {@link #dispatch} picks the method.
   */
  public interface Dispatch<R> {
    R bootstrapLinear(Reduction reduction);

    R bootstrapOrder(Order order);

    /** @param tStatistic the t statistic, else the mean */
    R signFlip(boolean tStatistic);

    /** @param welch Welch's t, else the mean difference */
    R twoSample(boolean welch);

    /** @param spearman Spearman's rank correlation, else Pearson's */
    R correlation(boolean spearman);
  }

  private final Analysis analysis;
  private final String statisticName;
  private final Kernel kernel;

  Statistic(Analysis analysis, String statisticName, Kernel kernel) {
    this.analysis = analysis;
    this.statisticName = statisticName;
    this.kernel = kernel;
  }

  public Analysis analysis() {
    return analysis;
  }

  /** The name users give with {@code --stat} / {@code --method}. */
  public String statisticName() {
    return statisticName;
  }

  public Kernel kernel() {
    return kernel;
  }

  /** The one dispatch on the table: {@code d}'s method for this row's family and variant. */
  public <R> R dispatch(Dispatch<R> d) {
    switch (this) {
      case BOOTSTRAP_SUM:
        return d.bootstrapLinear(Reduction.SUM);
      case BOOTSTRAP_MEAN:
        return d.bootstrapLinear(Reduction.MEAN);
      case BOOTSTRAP_STD:
        return d.bootstrapLinear(Reduction.STD);
      case BOOTSTRAP_MEDIAN:
        return d.bootstrapOrder(Order.MEDIAN);
      case BOOTSTRAP_MIN:
        return d.bootstrapOrder(Order.MIN);
      case BOOTSTRAP_MAX:
        return d.bootstrapOrder(Order.MAX);
      case SIGN_FLIP_MEAN:
      case SIGN_FLIP_T:
        return d.signFlip(this == SIGN_FLIP_T);
      case MEAN_DIFFERENCE:
      case WELCH_T:
        return d.twoSample(this == WELCH_T);
      case PEARSON:
      case SPEARMAN:
        return d.correlation(this == SPEARMAN);
      default:
        throw new IllegalStateException("[BUG] no kernel family for " + this);
    }
  }

  /** "one-sample t": the command and the name, for messages and tables. */
  public String label() {
    return analysis.command() + " " + statisticName;
  }

  /** The names {@code analysis} accepts, in table order. */
  public static List<String> names(Analysis analysis) {
    List<String> names = new ArrayList<>();
    for (Statistic s : values()) {
      if (s.analysis == analysis) {
        names.add(s.statisticName);
      }
    }
    return List.copyOf(names);
  }

  /** The row of {@code analysis} named {@code name}; exit 2 for a name it does not accept. */
  public static Statistic of(Analysis analysis, String name) {
    for (Statistic s : values()) {
      if (s.analysis == analysis && s.statisticName.equals(name)) {
        return s;
      }
    }
    throw new InvalidInputException("--stat must be one of " + names(analysis) + " for "
        + analysis.command() + ", but was: " + name);
  }
}
