package org.nlspark.core.tile;

import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.SampleStore;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.accumulate.TailSeeds;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.job.Tail;

/**
 * Runs one tile on the CPU: for each window, the kernel fills a (window x block) buffer of
 * replicate statistics, which is folded at once into the tile's accumulators and reused — no
 * replicates x voxels array outlives a window. A pure function of (spec, inputs, plan, tile):
 * re-running a tile (a Spark retry) gives identical bytes.
 */
public final class TileExecutor {
  private TileExecutor() {}

  /**
   * Seeded bootstrap tails ({@link TailSeeds}); {@code -Dnlspark.seeded-tails=false} gives the
   * unseeded update (the same bytes; for A/B timing and tests).
   */
  static boolean seededTails = Boolean.parseBoolean(
      System.getProperty("nlspark.seeded-tails", "true"));

  /** Voxels whose seeded tails were short and were recomputed unseeded (for tests). */
  static final java.util.concurrent.atomic.AtomicLong RECOMPUTED_VOXELS =
      new java.util.concurrent.atomic.AtomicLong();

  /**
   * Ends the seeding: the voxels a bound left short are computed again into an unseeded
   * accumulator of their columns alone and adopted, so the tails are those of an unseeded pass,
   * bit for bit.
   */
  private static void endSeeding(BlockStatistic kernel, TilePlan plan, TileSpec tile,
      TailAccumulator tails, double[] buf) {
    int[] shortOnes = tails.shortElements();
    if (shortOnes.length > 0) {
      int b = kernel.width();
      int s = shortOnes.length;
      TailAccumulator exact = new TailAccumulator(s, plan.tailSize());
      double[] columns = new double[plan.grid().window() * s];
      for (int k = 0; k < tile.windowCount(); k++) {
        int window = tile.firstWindow() + k;
        int rows = plan.windowRows(window);
        kernel.compute(plan.windowStart(window), rows, buf);
        for (int r = 0; r < rows; r++) {
          for (int j = 0; j < s; j++) {
            columns[r * s + j] = buf[r * b + shortOnes[j]];
          }
        }
        exact.update(columns, 0, rows, s);
      }
      for (int j = 0; j < s; j++) {
        tails.adopt(shortOnes[j], exact, j);
      }
      RECOMPUTED_VOXELS.addAndGet(s);
    }
    tails.endSeeding();
  }

  /** Runs a tile on the CPU. */
  public static PartialResult execute(JobSpec spec, JobInputs inputs, ResamplingPlan resampling,
      TilePlan plan, TileSpec tile) {
    long start = System.nanoTime();
    BlockStatistic kernel = Kernels.create(spec, inputs, resampling, plan.grid().blockStart(tile.block()),
        plan.grid().blockEnd(tile.block(), inputs.voxels()), plan.grid().window());
    int b = kernel.width();
    int w = plan.grid().window();
    long firstReplicate = plan.windowStart(tile.firstWindow());
    int lastWindow = tile.firstWindow() + tile.windowCount();
    int rowsInTile = (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow))
        - firstReplicate);

    if (spec.analysis() == Analysis.BOOTSTRAP) {
      double[] buf = new double[w * b];
      TailAccumulator tails = plan.tailSize() > 0 ? new TailAccumulator(b, plan.tailSize()) : null;
      SampleStore samples = spec.saveSamples() ? new SampleStore(firstReplicate, rowsInTile, b)
          : null;
      MomentAccumulator[] moments = new MomentAccumulator[tile.windowCount()];
      boolean seeded = tails != null && seededTails
          && TailSeeds.seed(kernel, tails, plan.tailSize(), rowsInTile);
      for (int k = 0; k < tile.windowCount(); k++) {
        int window = tile.firstWindow() + k;
        int rows = plan.windowRows(window);
        long first = plan.windowStart(window);
        kernel.compute(first, rows, buf);
        moments[k] = MomentAccumulator.ofWindow(buf, 0, rows, b);
        if (tails != null) {
          tails.update(buf, 0, rows, b);
        }
        if (samples != null) {
          for (int r = 0; r < rows; r++) {
            samples.put(first + r, buf, r * b, b);
          }
        }
      }
      if (seeded) {
        endSeeding(kernel, plan, tile, tails, buf);
      }
      return new PartialResult(tile, null, null, null, tails, samples, moments, kernel.flops(),
          System.nanoTime() - start, kernel.undefinedVoxels());
    }

    Tail tail = spec.tail();
    double[] observed = new double[b];
    kernel.observed(observed);
    double[] thresholds = PermutationFold.thresholds(observed, tail);
    int[] windowCounts = new int[b];
    double[] rowMax = new double[w];
    double[] buf = null; // only kernels without a fused fold need the window's statistics
    ExceedanceCounter counts = new ExceedanceCounter(b);
    NullMaxAccumulator nullMax = spec.fwer()
        ? new NullMaxAccumulator(firstReplicate, rowsInTile) : null;
    // --tail-approximation: each voxel's largest null keys
    TailAccumulator nullTails = plan.tailSize() > 0
        ? TailAccumulator.upperOnly(b, plan.tailSize()) : null;
    for (int k = 0; k < tile.windowCount(); k++) {
      int window = tile.firstWindow() + k;
      int rows = plan.windowRows(window);
      long first = plan.windowStart(window);
      java.util.Arrays.fill(windowCounts, 0);
      boolean computed = false;
      if (!kernel.foldWindow(first, rows, tail, windowCounts, rowMax)) {
        if (buf == null) {
          buf = new double[w * b];
        }
        kernel.compute(first, rows, buf);
        computed = true;
        PermutationFold.fold(buf, rows, b, tail, thresholds, windowCounts, rowMax);
      }
      if (nullTails != null) { // the counts above stay those of a run without the tails
        if (buf == null) {
          buf = new double[w * b];
        }
        if (!computed) {
          kernel.compute(first, rows, buf);
        }
        for (int i = 0; i < rows * b; i++) {
          buf[i] = tail.key(buf[i]);
        }
        nullTails.update(buf, 0, rows, b);
      }
      counts.addCounts(windowCounts, rows);
      if (nullMax != null) {
        nullMax.updateRowMaxima(rowMax, rows, first);
      }
    }
    return new PartialResult(tile, tile.firstWindow() == 0 ? observed : null, counts, nullMax,
        nullTails, null, null, kernel.flops(), System.nanoTime() - start, kernel.undefinedVoxels());
  }
}
