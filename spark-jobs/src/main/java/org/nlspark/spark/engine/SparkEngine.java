package org.nlspark.spark.engine;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.spark.SparkContext;
import org.apache.spark.TaskContext;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.broadcast.Broadcast;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.engine.PreparedJob;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.BudgetSource;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.spark.NlsparkConf;
import org.nlspark.spark.budget.ExecutorBudget;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Runs a job's tiles as one Spark job (DESIGN §2, §5). The driver plans tiles with core's
 * {@link TilePlanner} from the executor budget ({@link ExecutorBudget}) and the task slots,
 * broadcasts the inputs, and runs one tile per partition (or groups the tiles into
 * {@code --partitions} partitions). Each task runs core's {@link TileExecutor} and returns
 * {@link PartialResult#toBytes()}; the driver feeds the partials, as they arrive, to one
 * {@link ResultMerger}, which makes the outputs bit-identical to core's LocalEngine for any
 * partitioning and any retry.
 *
 * <p>Broadcast limit: the inputs travel as one Java-serialized broadcast, so they may be at most
 * {@link NlsparkConf#BROADCAST_MAX_BYTES} (default 2 GB, the ceiling of one Java array); above
 * it the run is refused (exit 3) before any task starts.
 */
public final class SparkEngine {
  /** Local property that tags this engine's Spark jobs (the progress listener filters on it). */
  static final String RUN_ID_PROPERTY = "nlspark.run.id";

  private final SparkSession spark;
  private final Grid grid;
  private final Integer partitions;
  private final boolean progress;

  /**
   * @param partitions Spark partitions for the tiles, or null for one tile per partition
   * @param progress print a progress line on stderr (callers pass true only for a terminal)
   */
  public SparkEngine(SparkSession spark, Grid grid, Integer partitions, boolean progress) {
    this.spark = spark;
    this.grid = grid == null ? Grid.DEFAULT : grid;
    if (partitions != null && partitions < 1) {
      throw new InvalidInputException("--partitions must be at least 1, but was: " + partitions);
    }
    this.partitions = partitions;
    this.progress = progress;
  }

  /** Task slots of the session's cluster: what analyses prepare their preflight for. */
  public int parallelism() {
    return ExecutorBudget.of(spark.sparkContext(), null).taskSlots();
  }

  public RunReport run(JobSpec spec, JobInputs inputs) {
    return run(PreparedJob.prepare(spec, inputs, parallelism(), grid));
  }

  /** Runs any analysis of the pipeline as one Spark job. */
  public RunReport run(TileAnalysis analysis) {
    long start = System.nanoTime();
    SparkContext sc = spark.sparkContext();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    MemoryBudget explicit = analysis.budget();
    ExecutorBudget budget = ExecutorBudget.of(sc,
        explicit.source() == BudgetSource.EXPLICIT ? explicit.gb() : null);
    int slots = budget.taskSlots();
    TilePlan plan = analysis.plan(budget.perTask(), slots)
        .withBudget(budget.perTask().gb(), budget.perTaskSource());

    Serializable data = analysis.data();
    long broadcastBytes = estimateBytes(data);
    long broadcastMax = NlsparkConf.broadcastMaxBytes(spark);
    if (broadcastBytes > broadcastMax) {
      throw new ResourceRefusedException(String.format("Cannot broadcast the inputs: they hold"
          + " %.3g GB, more than the broadcast limit of %.3g GB (%s). Mask to fewer voxels or"
          + " split the voxels into several runs.", broadcastBytes / 1e9, broadcastMax / 1e9,
          NlsparkConf.BROADCAST_MAX_BYTES));
    }
    List<TileSpec> tiles = plan.tiles();
    // More partitions than tiles would only add empty tasks.
    int numPartitions = partitions == null ? tiles.size() : Math.min(partitions, tiles.size());
    int failOnce = NlsparkConf.failOnceTile(spark);
    TileRunner runner = analysis.runner(plan);
    TileMerger merger = analysis.merger(plan);
    Broadcast<Serializable> shared = jsc.broadcast(data);
    String runId = UUID.randomUUID().toString();
    ProgressListener listener = new ProgressListener(runId, tiles.size(), analysis.replicates(),
        numPartitions, progress);
    sc.addSparkListener(listener);
    String oldRunId = sc.getLocalProperty(RUN_ID_PROPERTY);
    sc.setLocalProperty(RUN_ID_PROPERTY, runId);
    String oldDescription = sc.getLocalProperty("spark.job.description");
    sc.setJobDescription("nlspark " + analysis.command() + " (" + tiles.size() + " tiles)");
    MergeHandler handler = new MergeHandler(merger);
    long jobStart = System.nanoTime();
    try {
      JavaRDD<TileSpec> rdd = jsc.parallelize(tiles, numPartitions);
      ClassTag<TaskOutcome> tag = ClassTag$.MODULE$.apply(TaskOutcome.class);
      sc.runJob(rdd.rdd(), new TileTask(runner, shared, failOnce,
          NlsparkConf.holdTileMillis(spark)), handler, tag);
    } catch (RuntimeException e) {
      throw unwrap(e);
    } finally {
      sc.setLocalProperty(RUN_ID_PROPERTY, oldRunId);
      sc.setJobDescription(oldDescription); // the caller's own description (a notebook's)
      sc.removeSparkListener(listener);
      listener.finish();
      shared.destroy();
    }
    long jobEnd = System.nanoTime();
    org.nlspark.core.result.Result result = merger.finish();
    long end = System.nanoTime();

    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("master", sc.master());
    facts.put("spark_version", sc.version());
    facts.put("partitions", numPartitions);
    facts.put("tiles", tiles.size());
    facts.put("executors", budget.executors());
    facts.put("task_slots", slots);
    facts.put("budget", budget.toMap());
    facts.put("broadcast_bytes", broadcastBytes);
    Map<String, Object> timing = new LinkedHashMap<>();
    timing.put("task_seconds", handler.taskNanos / 1e9);
    timing.put("broadcast_read_seconds", handler.broadcastNanos / 1e9);
    timing.put("driver_merge_seconds", (handler.mergeNanos + (end - jobEnd)) / 1e9);
    // Spark's own cost: job time not spent inside tasks, spread over the slots that ran them.
    timing.put("spark_overhead_seconds", Math.max(0, (jobEnd - jobStart) / 1e9
        - handler.taskNanos / 1e9 / Math.max(1, Math.min(slots, numPartitions))));
    timing.put("tasks", handler.outcomes);
    facts.put("spark_timings", timing);
    return new RunReport(analysis, plan, result, "spark", slots, (jobStart - start) / 1e9,
        (jobEnd - jobStart) / 1e9, (end - jobEnd) / 1e9, merger.kernelNanos() / 1e9,
        merger.flops(), facts);
  }

  /** Serialized size of the inputs, counted without holding a second copy of them. */
  static long estimateBytes(Serializable data) {
    if (data instanceof JobInputs) {
      return ((JobInputs) data).bytes();
    }
    CountingStream counter = new CountingStream();
    try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(counter)) {
      out.writeObject(data);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("[BUG] cannot serialize the inputs: " + e, e);
    }
    return counter.count;
  }

  private static final class CountingStream extends java.io.OutputStream {
    long count;

    @Override
    public void write(int b) {
      count++;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      count += len;
    }
  }

  /**
   * Spark wraps a task's exception in a SparkException; give API users and the CLI the core
   * exception a LocalEngine run would have thrown (its class decides the exit code).
   */
  public static RuntimeException unwrap(RuntimeException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidInputException || t instanceof ResourceRefusedException) {
        return (RuntimeException) t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return e;
  }

  /** What one task returns: its tiles' partials and how long it took on the executor. */
  static final class TaskOutcome implements Serializable {
    private static final long serialVersionUID = 1L;
    final byte[][] partials;
    final long taskNanos;
    final long broadcastNanos;

    TaskOutcome(byte[][] partials, long taskNanos, long broadcastNanos) {
      this.partials = partials;
      this.taskNanos = taskNanos;
      this.broadcastNanos = broadcastNanos;
    }
  }

  /** The executor side: runs the partition's tiles with the analysis' runner. */
  static final class TileTask extends AbstractFunction2<TaskContext, Iterator<TileSpec>,
      TaskOutcome> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TileRunner runner;
    private final Broadcast<Serializable> inputs;
    private final int failOnceTile;
    private final long holdMillis;

    TileTask(TileRunner runner, Broadcast<Serializable> inputs, int failOnceTile,
        long holdMillis) {
      this.runner = runner;
      this.inputs = inputs;
      this.failOnceTile = failOnceTile;
      this.holdMillis = holdMillis;
    }

    @Override
    public TaskOutcome apply(TaskContext context, Iterator<TileSpec> tiles) {
      long start = System.nanoTime();
      Object data = inputs.value();
      long fetched = System.nanoTime();
      List<byte[]> out = new ArrayList<>();
      while (tiles.hasNext()) {
        TileSpec tile = tiles.next();
        if (tile.index() == failOnceTile && context.attemptNumber() == 0) {
          throw new IllegalStateException("Injected failure of tile " + tile.index()
              + " on its first attempt (" + NlsparkConf.TEST_FAIL_ONCE_TILE + ")");
        }
        if (holdMillis > 0 && tile.index() == 0 && context.attemptNumber() == 0) {
          holdForTest(context);
        }
        out.add(runner.run(data, tile, gpuDevice(context)));
      }
      return new TaskOutcome(out.toArray(new byte[0][]), System.nanoTime() - start,
          fetched - start);
    }

    /**
     * Test hook for the killed-executor check: the first attempt of tile 0 says which executor
     * runs it (a marker line on stderr, which the worker writes to that executor's log) and waits,
     * so a script can kill exactly that executor while the task is running.
     */
    private void holdForTest(TaskContext context) {
      System.err.println("NLSPARK_HOLDING_TILE_0 pid=" + ProcessHandle.current().pid()
          + " stage=" + context.stageId());
      System.err.flush();
      try {
        Thread.sleep(holdMillis);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }

  /** The GPU Spark assigned to this task (task resource "gpu"), or device 0 (local mode). */
  static int gpuDevice(TaskContext context) {
    scala.Option<org.apache.spark.resource.ResourceInformation> gpu =
        context.resources().get("gpu");
    if (gpu.isDefined() && gpu.get().addresses().length > 0) {
      try {
        return Integer.parseInt(gpu.get().addresses()[0].trim());
      } catch (NumberFormatException e) {
        throw new IllegalStateException("Cannot use the task's GPU: Spark assigned address '"
            + gpu.get().addresses()[0] + "', which is not a device index", e);
      }
    }
    return 0;
  }

  /** The driver side: merges each task's partials as its result arrives (any order). */
  static final class MergeHandler extends AbstractFunction2<Object, TaskOutcome, BoxedUnit>
      implements Serializable {
    private static final long serialVersionUID = 1L;
    private final transient TileMerger merger;
    long taskNanos;
    long broadcastNanos;
    long mergeNanos;
    int outcomes;

    MergeHandler(TileMerger merger) {
      this.merger = merger;
    }

    @Override
    public synchronized BoxedUnit apply(Object partition, TaskOutcome outcome) {
      long start = System.nanoTime();
      for (byte[] bytes : outcome.partials) {
        merger.add(bytes);
      }
      taskNanos += outcome.taskNanos;
      broadcastNanos += outcome.broadcastNanos;
      outcomes++;
      mergeNanos += System.nanoTime() - start;
      return BoxedUnit.UNIT;
    }
  }
}
