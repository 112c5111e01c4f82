package org.nlspark.core.gpu;

import java.util.Arrays;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Statistic;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockTransforms;
import org.nlspark.core.stats.Ranks;
import org.nlspark.core.tile.Grid;

/**
 * The host side of one voxel block on the GPU: the transformed data blocks the GEMMs read, the
 * per-voxel constants the epilogues read, which voxels are constant or undefined, and each
 * replicate's draw. It ports the constructors and {@code fillDraw} methods of the CPU kernels in
 * {@code org.nlspark.core.stats} (same formulas, same summation order, same {@link Draws}), so
 * the GPU sees exactly the data and replicates the CPU sees.
 */
final class GpuBlock {
  enum Kind { SIGN_FLIP, TWO_SAMPLE, CORRELATION, BOOTSTRAP_LINEAR, BOOTSTRAP_ORDER }

  /** Bootstrap linear statistics, as the kernel's kind codes. */
  static final int SUM = 0;
  static final int MEAN = 1;
  static final int STD = 2;
  /** Bootstrap order statistics, as the kernel's kind codes. */
  static final int MEDIAN = 0;
  static final int MIN = 1;
  static final int MAX = 2;

  final Kind kind;
  final int n;
  final int b;
  final long seed;
  /** GEMM operand(s): row-major n x b; data2 null when one GEMM suffices. */
  double[] data;
  double[] data2;
  /**
   * Per-voxel constants: n * sum(x^2), +Infinity where t is undefined (sign flip); column totals
   * and totals of squares (two-sample); Spearman's denominators (correlation; null for Pearson).
   */
  double[] perVoxel;
  double[] perVoxel2;
  /** Columns whose statistic is undefined: NaN in every row (after the epilogue). */
  int[] undefined = new int[0];
  /** Bootstrap: constant columns and their exact statistic (set inside the epilogue). */
  int[] constant = new int[0];
  double[] constantValue = new double[0];
  boolean tStat;
  boolean enumerated;
  boolean welch;
  int n1;
  int n2;
  int statCode;
  double[] target;
  /** Bootstrap order: sorted column values and their rows, voxel-major (v * n + j). */
  double[] sortedValues;
  int[] sortedRows;

  private final int[] scratch;

  private GpuBlock(Kind kind, int n, int b, long seed) {
    this.kind = kind;
    this.n = n;
    this.b = b;
    this.seed = seed;
    this.scratch = new int[n];
  }

  boolean usesGemm() {
    return kind != Kind.BOOTSTRAP_ORDER;
  }

  static GpuBlock create(JobSpec spec, JobInputs inputs, ResamplingPlan plan, Grid grid,
      int block) {
    DataMatrix x = inputs.x();
    int from = grid.blockStart(block);
    int to = grid.blockEnd(block, x.cols());
    int b = to - from;
    int n = x.rows();
    double[] xb = x.copyColumns(from, to);
    return spec.statisticRow().dispatch(new Statistic.Dispatch<GpuBlock>() {
      @Override
      public GpuBlock bootstrapLinear(Statistic.Reduction reduction) {
        return GpuBlock.bootstrapLinear(xb, n, b, code(reduction), plan.seed());
      }

      @Override
      public GpuBlock bootstrapOrder(Statistic.Order order) {
        return GpuBlock.bootstrapOrder(xb, n, b, code(order), plan.seed());
      }

      @Override
      public GpuBlock signFlip(boolean tStatistic) {
        return GpuBlock.signFlip(xb, n, b, tStatistic, plan.enumerated(), plan.seed());
      }

      @Override
      public GpuBlock twoSample(boolean welch) {
        DataMatrix y = inputs.y();
        return GpuBlock.twoSample(xb, n, y.copyColumns(from, to), y.rows(), b, welch,
            plan.seed());
      }

      @Override
      public GpuBlock correlation(boolean spearman) {
        return GpuBlock.correlation(xb, n, b, inputs.target(), spearman, plan.seed());
      }
    });
  }

  /** The kernel's code of a linear statistic. */
  static int code(Statistic.Reduction reduction) {
    switch (reduction) {
      case SUM:
        return SUM;
      case MEAN:
        return MEAN;
      default:
        return STD;
    }
  }

  /** The kernel's code of an order statistic. */
  static int code(Statistic.Order order) {
    switch (order) {
      case MEDIAN:
        return MEDIAN;
      case MIN:
        return MIN;
      default:
        return MAX;
    }
  }

  static GpuBlock signFlip(double[] x, int n, int b, boolean tStat, boolean enumerated,
      long seed) {
    GpuBlock g = new GpuBlock(Kind.SIGN_FLIP, n, b, seed);
    g.data = x;
    g.tStat = tStat;
    g.enumerated = enumerated;
    g.undefined = tStat ? constantColumns(x, n, b) : new int[0];
    // SignFlipStatistic's scale: an undefined voxel's +Infinity makes its ratio 0 and its
    // thresholds +Infinity, so it never counts and never raises a maximum.
    g.perVoxel = BlockTransforms.columnSumSquares(x, n, b);
    for (int v = 0; v < b; v++) {
      g.perVoxel[v] *= n;
    }
    for (int v : g.undefined) {
      g.perVoxel[v] = Double.POSITIVE_INFINITY;
    }
    return g;
  }

  static GpuBlock twoSample(double[] x, int n1, double[] y, int n2, int b, boolean welch,
      long seed) {
    int n = n1 + n2;
    GpuBlock g = new GpuBlock(Kind.TWO_SAMPLE, n, b, seed);
    // As TwoSampleStatistic: Welch on centred data; the mean difference on data shifted by the
    // pooled mean rounded to an integer, so integer data stay integers and equal sums stay equal.
    double[] z = welch ? BlockTransforms.stackAndCentre(x, n1, y, n2, b)
        : BlockTransforms.stackAndShift(x, n1, y, n2, b);
    double[] squares = welch ? BlockTransforms.squares(z) : null;
    if (welch) {
      g.undefined = BlockTransforms.constantInBoth(x, n1, y, n2, b);
    }
    g.data = z;
    g.data2 = squares;
    g.welch = welch;
    g.n1 = n1;
    g.n2 = n2;
    g.perVoxel = new double[b];
    g.perVoxel2 = new double[b];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < b; v++) {
        double c = z[i * b + v];
        g.perVoxel[v] += c;
        g.perVoxel2[v] += c * c;
      }
    }
    return g;
  }

  static GpuBlock correlation(double[] x, int n, int b, double[] y, boolean spearman, long seed) {
    GpuBlock g = new GpuBlock(Kind.CORRELATION, n, b, seed);
    g.undefined = constantColumns(x, n, b);
    if (!spearman) {
      g.data = BlockTransforms.standardiseColumns(x, n, b);
      g.target = BlockTransforms.standardise(y.clone());
      return g;
    }
    // As CorrelationStatistic: exact integer rank sums over a per-voxel denominator, so rank
    // ties stay ties.
    BlockTransforms.SpearmanRanks ranks = BlockTransforms.spearmanRanks(x, n, b, y);
    g.data = ranks.columns();
    g.target = ranks.target();
    g.perVoxel = ranks.denominator();
    return g;
  }

  static GpuBlock bootstrapLinear(double[] x, int n, int b, int statCode, long seed) {
    GpuBlock g = new GpuBlock(Kind.BOOTSTRAP_LINEAR, n, b, seed);
    g.statCode = statCode;
    g.constant = constantColumns(x, n, b);
    g.constantValue = new double[g.constant.length];
    for (int k = 0; k < g.constant.length; k++) {
      double c = x[g.constant[k]];
      g.constantValue[k] = statCode == MEAN ? c : statCode == SUM ? c * n : 0.0;
    }
    if (statCode != STD) {
      g.data = x;
      return g;
    }
    double[] xc = BlockTransforms.centreColumns(x, n, b);
    double[] sq = BlockTransforms.squares(xc);
    g.data = xc;
    g.data2 = sq;
    return g;
  }

  static GpuBlock bootstrapOrder(double[] x, int n, int b, int statCode, long seed) {
    GpuBlock g = new GpuBlock(Kind.BOOTSTRAP_ORDER, n, b, seed);
    g.statCode = statCode;
    g.sortedValues = new double[n * b];
    g.sortedRows = new int[n * b];
    Integer[] order = new Integer[n];
    for (int v = 0; v < b; v++) {
      final int col = v;
      for (int i = 0; i < n; i++) {
        order[i] = i;
      }
      Arrays.sort(order, (p, q) -> Double.compare(x[p * b + col], x[q * b + col]));
      for (int j = 0; j < n; j++) {
        g.sortedRows[v * n + j] = order[j];
        g.sortedValues[v * n + j] = x[order[j] * b + v];
      }
    }
    return g;
  }

  /** Replicate {@code replicate}'s row of D at {@code offset} (GEMM statistics). */
  void fillDraw(long replicate, double[] d, int offset) {
    switch (kind) {
      case SIGN_FLIP:
        if (enumerated) {
          Draws.enumeratedSignFlips(replicate, n, d, offset);
        } else {
          Draws.signFlips(seed, replicate, n, d, offset);
        }
        break;
      case TWO_SAMPLE:
        Draws.permutation(seed, replicate, n, scratch);
        Arrays.fill(d, offset, offset + n, 0.0);
        for (int j = 0; j < n1; j++) {
          d[offset + scratch[j]] = 1.0;
        }
        break;
      case CORRELATION:
        Draws.permutation(seed, replicate, n, scratch);
        for (int i = 0; i < n; i++) {
          d[offset + i] = target[scratch[i]];
        }
        break;
      case BOOTSTRAP_LINEAR:
        Draws.bootstrapCounts(seed, replicate, n, scratch);
        for (int i = 0; i < n; i++) {
          d[offset + i] = scratch[i];
        }
        break;
      default:
        throw new IllegalStateException("[BUG] " + kind + " has no GEMM draw");
    }
  }

  /** The identity (observed) row of D at {@code offset}. */
  void fillIdentity(double[] d, int offset) {
    switch (kind) {
      case SIGN_FLIP:
      case BOOTSTRAP_LINEAR:
        Arrays.fill(d, offset, offset + n, 1.0);
        break;
      case TWO_SAMPLE:
        Arrays.fill(d, offset, offset + n1, 1.0);
        Arrays.fill(d, offset + n1, offset + n, 0.0);
        break;
      case CORRELATION:
        System.arraycopy(target, 0, d, offset, n);
        break;
      default:
        throw new IllegalStateException("[BUG] " + kind + " has no observed statistic");
    }
  }

  /** Replicate {@code replicate}'s draw counts at {@code offset} (bootstrap order statistics). */
  void fillCounts(long replicate, int[] counts, int offset) {
    Draws.bootstrapCounts(seed, replicate, n, scratch);
    System.arraycopy(scratch, 0, counts, offset, n);
  }

  static int[] constantColumns(double[] x, int n, int b) {
    return BlockTransforms.constantColumns(x, n, b);
  }

}
