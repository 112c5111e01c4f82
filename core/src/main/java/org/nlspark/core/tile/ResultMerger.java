package org.nlspark.core.tile;

import java.util.TreeMap;
import org.nlspark.core.accumulate.BootstrapSummary;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.result.Result;
import org.nlspark.core.result.TailApproximation;
import org.nlspark.core.stats.PValues;

/**
 * The driver-side merge. Partials may arrive in any order (threads, Spark partitions, retries);
 * counts, maxima and tails merge exactly, and bootstrap moments are folded per voxel block strictly
 * in window order (windows that arrive early wait), so the result is bit-identical for any
 * partitioning (DESIGN §5). Memory: the outputs plus windows waiting for their turn.
 */
public final class ResultMerger {
  private final boolean bootstrap;
  private final double confidence;
  private final CiMethod ci;
  private final Tail tail;
  private final boolean fwer;
  private final boolean enumerated;
  private final TilePlan plan;
  private final Grid grid;
  private final int voxels;
  private final TileLedger ledger;

  // permutation state
  private double[] observed;
  private long[] counts;
  private NullMaxAccumulator nullMax;
  private int undefined;
  /** Per voxel block, each voxel's largest null keys ({@code --tail-approximation}), or null. */
  private VoxelNullTails nullTails;

  // bootstrap state, per voxel block
  private TailAccumulator[] tails;
  private MomentAccumulator[] folded;
  private int[] nextWindow;
  private TreeMap<Integer, MomentAccumulator>[] waiting;
  private double[] samples;

  public ResultMerger(JobSpec spec, ResamplingPlan resampling, TilePlan plan) {
    this(spec.analysis() == Analysis.BOOTSTRAP, spec.confidence(), spec.ci(), spec.saveSamples(),
        spec.tail(), spec.fwer(), resampling.enumerated(), plan);
  }

  /** The merge of a bootstrap whose tiles send window moments, tails and (saved) samples. */
  public static ResultMerger forBootstrap(double confidence, CiMethod ci, boolean saveSamples,
      TilePlan plan) {
    return new ResultMerger(true, confidence, ci, saveSamples, Tail.TWO, false, false, plan);
  }

  @SuppressWarnings("unchecked")
  private ResultMerger(boolean bootstrap, double confidence, CiMethod ci, boolean saveSamples,
      Tail tail, boolean fwer, boolean enumerated, TilePlan plan) {
    this.bootstrap = bootstrap;
    this.confidence = confidence;
    this.ci = ci;
    this.tail = tail;
    this.fwer = fwer;
    this.enumerated = enumerated;
    this.plan = plan;
    this.ledger = TileLedger.of(plan, "tiles");
    this.grid = plan.grid();
    this.voxels = plan.voxels();
    int blocks = plan.blocks();
    if (bootstrap) {
      tails = new TailAccumulator[blocks];
      folded = new MomentAccumulator[blocks];
      nextWindow = new int[blocks];
      waiting = new TreeMap[blocks];
      for (int k = 0; k < blocks; k++) {
        int b = grid.blockEnd(k, voxels) - grid.blockStart(k);
        folded[k] = new MomentAccumulator(b);
        waiting[k] = new TreeMap<>();
        if (plan.tailSize() > 0) {
          tails[k] = new TailAccumulator(b, plan.tailSize());
        }
      }
      if (saveSamples) {
        long size = plan.replicates() * (long) voxels;
        if (size > Integer.MAX_VALUE - 16) {
          throw new org.nlspark.core.ResourceRefusedException("Cannot keep --save-samples: "
              + plan.replicates() + " x " + voxels + " values exceed one Java array; lower"
              + " --samples or drop --save-samples");
        }
        samples = new double[(int) size];
      }
    } else {
      observed = new double[voxels];
      counts = new long[voxels];
      nullMax = fwer ? new NullMaxAccumulator(0, (int) plan.replicates()) : null;
      if (plan.tailSize() > 0) {
        nullTails = VoxelNullTails.allocate(plan, plan.tailSize());
      }
    }
  }

  /** Adds one tile's partial; thread-safe; each tile exactly once. */
  public synchronized void add(PartialResult part) {
    ledger.record(part.tile.index(), part.flops, part.kernelNanos);
    int block = part.tile.block();
    int from = grid.blockStart(block);
    if (bootstrap) {
      if (tails[block] != null) {
        tails[block].merge(part.tails);
      }
      if (samples != null) {
        double[] values = part.samples.values();
        int b = part.samples.elements();
        long first = part.samples.firstReplicate();
        for (int r = 0; r < part.samples.rows(); r++) {
          System.arraycopy(values, r * b, samples, (int) ((first + r) * voxels + from), b);
        }
      }
      for (int k = 0; k < part.windowMoments.length; k++) {
        waiting[block].put(part.tile.firstWindow() + k, part.windowMoments[k]);
      }
      while (!waiting[block].isEmpty() && waiting[block].firstKey() == nextWindow[block]) {
        folded[block].append(waiting[block].pollFirstEntry().getValue());
        nextWindow[block]++;
      }
    } else {
      long[] c = part.counts.counts();
      for (int v = 0; v < c.length; v++) {
        counts[from + v] += c[v];
      }
      if (nullMax != null) {
        nullMax.merge(part.nullMax);
      }
      if (nullTails != null) {
        nullTails.merge(block, part.tails);
      }
      if (part.observed != null) {
        System.arraycopy(part.observed, 0, observed, from, part.observed.length);
        undefined += part.undefinedVoxels;
      }
    }
  }

  public synchronized int received() {
    return ledger.received();
  }

  /** GEMM floating-point operations of all merged tiles. */
  public synchronized long flops() {
    return ledger.flops();
  }

  /** Kernel time summed over tiles (CPU-seconds, not wall time). */
  public synchronized long kernelNanos() {
    return ledger.kernelNanos();
  }

  public synchronized Result finish() {
    ledger.checkComplete();
    return bootstrap ? finishBootstrap() : finishPermutation();
  }

  private Result finishPermutation() {
    double[] keys = new double[voxels];
    for (int v = 0; v < voxels; v++) {
      keys[v] = tail.key(observed[v]);
    }
    double[] p = PValues.fromCounts(counts, plan.replicates(), keys, enumerated);
    double[] pFwer = null;
    double[] maxima = null;
    if (fwer) {
      maxima = nullMax.maxima();
      pFwer = PValues.fwer(maxima, keys, enumerated);
    }
    PermutationResult result = new PermutationResult(observed, p, pFwer, maxima,
        plan.replicates(), enumerated, undefined);
    if (nullTails == null) {
      return result;
    }
    return TailApproximation.uncorrected(result, java.util.List.of(new TailApproximation
        .VoxelTarget("p", "observed", tail, nullTails::upperKeys, plan.replicates(),
            nullTails.retained(), enumerated)));
  }

  private Result finishBootstrap() {
    double[] mean = new double[voxels];
    double[] std = new double[voxels];
    double[] lower = new double[voxels];
    double[] upper = new double[voxels];
    double[] z = new double[voxels];
    double[] p = new double[voxels];
    int zeroSpread = 0;
    for (int k = 0; k < folded.length; k++) {
      if (!waiting[k].isEmpty() || folded[k].n() != plan.replicates()) {
        throw new IllegalStateException("[BUG] block " + k + " folded " + folded[k].n() + " of "
            + plan.replicates() + " replicates");
      }
      BootstrapSummary s = BootstrapSummary.of(folded[k], tails[k], confidence, ci);
      int from = grid.blockStart(k);
      int n = s.mean.length;
      System.arraycopy(s.mean, 0, mean, from, n);
      System.arraycopy(s.std, 0, std, from, n);
      System.arraycopy(s.lower, 0, lower, from, n);
      System.arraycopy(s.upper, 0, upper, from, n);
      System.arraycopy(s.z, 0, z, from, n);
      System.arraycopy(s.p, 0, p, from, n);
      zeroSpread += s.zeroSpread;
    }
    return new BootstrapResult(mean, std, lower, upper, z, p, samples, plan.replicates(),
        zeroSpread);
  }

  /** This merger fed with partial bytes; {@code finish} shapes the merged result. */
  public TileMerger asTileMerger(java.util.function.UnaryOperator<Result> finish) {
    ResultMerger merger = this;
    return new TileMerger() {
      @Override
      public void add(byte[] partial) {
        merger.add(PartialResult.fromBytes(partial));
      }

      @Override
      public Result finish() {
        return finish.apply(merger.finish());
      }

      @Override
      public long flops() {
        return merger.flops();
      }

      @Override
      public long kernelNanos() {
        return merger.kernelNanos();
      }
    };
  }
}
