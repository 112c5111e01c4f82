package org.nlspark.spark.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.apache.spark.SparkContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.spark.conf.TestHooks;
import scala.reflect.ClassTag$;

/**
 * Runs one tiny Spark job through the path of the real one (a broadcast, {@link
 * SparkEngine.TileTask} over parallelized tile specs, {@link SparkEngine.TaskOutcome} results of
 * byte arrays, {@link SparkEngine.MergeHandler}) in a background thread right after a local
 * SparkContext starts, while the driver builds the SQL session on it and reads the inputs
 * ({@code cli.SparkSessions.open}), so that Spark's scheduler, task serialization and result path
 * are loaded and partly compiled before the measured job, and its tasks have left the task slots
 * before the job's first ones want them.
 *
 * <p>Why: in a fresh JVM the first job pays Spark's cold scheduling code, about a third of a
 * short job's compute time (docs/performance.md, "The cold job").
 *
 * <p>Nothing of it reaches the outputs: its broadcast, tiles and results are its own and are
 * discarded, and it carries no run id, so no progress line or run fact counts it. A failure is
 * logged and otherwise ignored. {@code -Dnlspark.spark-warmup=false} turns it off.
 */
public final class SparkJobWarmup {
  private static final Logger LOG = Logger.getLogger(SparkJobWarmup.class.getName());

  /** System property that turns the warm-up job off ({@code -Dnlspark.spark-warmup=false}). */
  public static final String ENABLED_PROPERTY = "nlspark.spark-warmup";

  /** {@value #ENABLED_PROPERTY} for tests: every warm-up task throws (the job must not care). */
  static final String FAIL = "fail";

  /** Job description of the warm-up job (Spark's UI and event log show it). */
  static final String DESCRIPTION = "nlspark warm-up (no outputs)";

  /** Bytes of each warm-up partial: of the order of a one-sample tile's counts and maxima. */
  static final int PARTIAL_BYTES = 48 << 10;

  /** Warm-up tasks per task slot: the second on each slot runs on warmer code. */
  static final int TASKS_PER_SLOT = 2;
  /** The longest {@link #await} waits for the warm-up job (it takes about a second cold). */
  static final long AWAIT_MILLIS = 30_000;

  private SparkJobWarmup() {}

  /**
   * Starts the warm-up job in a daemon thread, or returns null where it is off ({@value
   * #ENABLED_PROPERTY}=false) or the context is not local (executors of a cluster are other
   * JVMs: warming this one's scheduler would cost their cores for little).
   */
  public static Thread start(SparkContext sc) {
    String mode = System.getProperty(ENABLED_PROPERTY, "true");
    if (mode.equals("false") || !sc.isLocal()) {
      return null;
    }
    Thread t = new Thread(() -> {
      try {
        run(sc, mode.equals(FAIL));
      } catch (Exception | LinkageError e) { // Spark throws its SparkException undeclared
        LOG.log(Level.FINE, "nlspark Spark warm-up job skipped", e);
      }
    }, "nlspark-spark-warmup");
    t.setDaemon(true);
    t.start();
    return t;
  }

  /**
   * Waits for the warm-up job of {@link #start} (null: none) to end, at most {@value
   * #AWAIT_MILLIS} ms, so that the context is never stopped under it: a command that fails
   * before its job (a bad input) would otherwise stop Spark mid warm-up, and Spark would log the
   * warm-up's broken job or broadcast beside nlspark's one sentence. The job is a few small
   * tasks; a run's own job takes longer, so only a fast failure waits.
   */
  public static void await(Thread warmup) {
    if (warmup == null) {
      return;
    }
    try {
      warmup.join(AWAIT_MILLIS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  /**
   * Runs the warm-up job in the calling thread (its local properties restored after) and returns
   * the partials it received; {@code fail}: every task throws.
   */
  public static int run(SparkContext sc, boolean fail) {
    String oldRunId = sc.getLocalProperty(SparkEngine.RUN_ID_PROPERTY);
    String oldDescription = sc.getLocalProperty("spark.job.description");
    // local properties are inherited by threads: the warm-up job is no run of nlspark's
    sc.setLocalProperty(SparkEngine.RUN_ID_PROPERTY, null);
    sc.setJobDescription(DESCRIPTION);
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    int tasks = TASKS_PER_SLOT * Math.max(1, sc.defaultParallelism());
    List<TileSpec> tiles = new ArrayList<>();
    for (int i = 0; i < 2 * tasks; i++) {
      tiles.add(new TileSpec(i, 0, 0, 1));
    }
    Discard merger = new Discard();
    SparkEngine.MergeHandler handler = new SparkEngine.MergeHandler(merger);
    Broadcast<Serializable> shared = jsc.broadcast(new double[PARTIAL_BYTES / Double.BYTES]);
    try {
      JavaRDD<TileSpec> rdd = jsc.parallelize(tiles, tasks);
      sc.runJob(rdd.rdd(), new SparkEngine.TileTask(new Echo(fail), shared, TestHooks.NONE,
          TileGate.OPEN),
          handler, ClassTag$.MODULE$.apply(SparkEngine.TaskOutcome.class));
    } finally {
      // blocking: an asynchronous removal still in flight when a failed command stops the
      // context is logged by Spark as a warning with a stack trace (DESIGN §6: one sentence)
      shared.destroy(true);
      sc.setLocalProperty(SparkEngine.RUN_ID_PROPERTY, oldRunId);
      sc.setJobDescription(oldDescription);
    }
    return merger.partials();
  }

  /** The warm-up tiles' runner: the broadcast's bytes as a partial, as a kernel's would be. */
  static final class Echo implements TileRunner {
    private static final long serialVersionUID = 1L;
    private final boolean fail;

    Echo(boolean fail) {
      this.fail = fail;
    }

    @Override
    public byte[] run(Object data, TileSpec tile, int device) {
      if (fail) {
        throw new IllegalStateException("warm-up tile " + tile.index() + " fails (" + FAIL
            + ", a test setting)");
      }
      double[] values = (double[]) data;
      byte[] out = new byte[values.length * Double.BYTES];
      out[0] = (byte) tile.index();
      return out;
    }
  }

  /** Counts the partials and keeps nothing. */
  static final class Discard implements TileMerger {
    private int partials;

    @Override
    public synchronized void add(byte[] partial) {
      partials++;
    }

    synchronized int partials() {
      return partials;
    }

    @Override
    public Result finish() {
      throw new UnsupportedOperationException("the warm-up job has no result");
    }

    @Override
    public long flops() {
      return 0;
    }

    @Override
    public long kernelNanos() {
      return 0;
    }
  }
}
