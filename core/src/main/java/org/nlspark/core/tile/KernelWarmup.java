package org.nlspark.core.tile;

import java.util.SplittableRandom;
import java.util.logging.Logger;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;

/**
 * Runs a job's CPU kernel on a synthetic tile (one voxel block of {@value #VOXELS} voxels,
 * {@value #WINDOWS} replicate windows), again and again up to {@value #MAX_TILES} times or until
 * {@link #stop()} (the engine calls it as the job starts), in a background thread while the JVM
 * is still starting Spark, so that the JIT has compiled the hot folds with C2 before the first
 * real tile runs.
 *
 * <p>Why: a fresh JVM runs the Vector API folds in the interpreter and in C1's profiling code
 * first, where every vector operation is an object and a call (hundreds of times slower than
 * C2's code); on a cold job every task thread paid that until C2 was done (docs/performance.md,
 * "The cold job"). Spark's start-up leaves a core idle for seconds, which this uses.
 *
 * <p>Nothing it computes is kept: its data, plan and accumulators are its own, so no output bit
 * depends on whether, or how far, it ran. A failure is logged once and otherwise ignored (the
 * job then runs as it would have without the warm-up).
 */
public final class KernelWarmup {
  private static final Logger LOG = Logger.getLogger(KernelWarmup.class.getName());

  /** Voxels of the synthetic tile: one block of the default grid, so C2 sees the real loops. */
  static final int VOXELS = 1024;
  /** Windows of the synthetic tile: about 750 fold calls per kernel, past C2's thresholds. */
  static final int WINDOWS = 6;
  /** System property that turns the warm-up off ({@code -Dnlspark.kernel-warmup=false}), to
   *  measure a job without it. */
  public static final String ENABLED_PROPERTY = "nlspark.kernel-warmup";

  /** Samples of the synthetic data (two groups of 16 for two-sample). */
  static final int SAMPLES = 32;

  /** Most synthetic tiles one warm-up runs: one reaches C1 code only; repeated while Spark still
   *  starts, the folds reach C2 (each tile is a few ms once they have). */
  static final int MAX_TILES = 32;

  /** Set by {@link #stop()}: the real job starts, the warm-up ends after its current tile. */
  private static volatile boolean stopped;

  /** Synthetic tiles run by all warm-ups of this JVM (for tests). */
  static final java.util.concurrent.atomic.AtomicLong TILES_RUN =
      new java.util.concurrent.atomic.AtomicLong();

  private KernelWarmup() {}

  /** Ends the running warm-ups after their current tile (the job's own tiles start now). */
  public static void stop() {
    stopped = true;
  }

  /**
   * Starts warming the kernel of {@code spec} in a daemon thread, or returns null where there is
   * nothing to warm (a GPU backend requested, or {@value #ENABLED_PROPERTY} set to false).
   */
  public static Thread start(JobSpec spec) {
    if ((spec.backend() != null && spec.backend().equals("gpu"))
        || System.getProperty(ENABLED_PROPERTY, "true").equals("false")) {
      return null;
    }
    stopped = false;
    Thread t = new Thread(() -> {
      try {
        int i = 0;
        do {
          run(spec);
          TILES_RUN.incrementAndGet();
        } while (++i < MAX_TILES && !stopped);
      } catch (RuntimeException | LinkageError e) {
        LOG.warning("nlspark kernel warm-up skipped: " + e);
      }
    }, "nlspark-kernel-warmup");
    t.setDaemon(true);
    t.setPriority(Thread.MIN_PRIORITY);
    t.start();
    return t;
  }

  /** Runs the synthetic tile in the calling thread; returns its partial result. */
  static PartialResult run(JobSpec spec) {
    Grid grid = Grid.DEFAULT;
    JobInputs inputs = inputs(spec.analysis());
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    long replicates = resampling.replicates();
    int windows = Math.min(WINDOWS, grid.windows(replicates));
    TilePlan plan = new TilePlan(grid, VOXELS, replicates, windows, 1, 0,
        TilePlanner.tailSize(spec, replicates), 0.0, "kernel warm-up");
    return TileExecutor.execute(spec, inputs, resampling, plan, new TileSpec(0, 0, 0, windows));
  }

  private static JobInputs inputs(Analysis analysis) {
    return switch (analysis) {
      case TWO_SAMPLE -> JobInputs.twoGroups(data(SAMPLES / 2, 1), data(SAMPLES / 2, 2));
      case CORRELATION -> JobInputs.withTarget(data(SAMPLES, 3), column(SAMPLES, 4));
      default -> JobInputs.of(data(SAMPLES, 5));
    };
  }

  private static DataMatrix data(int n, long seed) {
    return DataMatrix.of(n, VOXELS, column(n * VOXELS, seed), "kernel warm-up");
  }

  /** Uniform values in [-1, 1) plus a small offset, from a seeded stream. */
  private static double[] column(int length, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] x = new double[length];
    for (int i = 0; i < length; i++) {
      x[i] = 2 * rng.nextDouble() - 0.9;
    }
    return x;
  }
}
