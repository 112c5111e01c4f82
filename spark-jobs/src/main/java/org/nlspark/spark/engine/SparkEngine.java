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
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Statistic;
import org.nlspark.core.stats.ObservedStatistic;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.KernelWarmup;
import org.nlspark.core.tile.SlicedTileRunner;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.spark.budget.ExecutorBudget;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.conf.SparkLine;
import org.nlspark.spark.conf.TestHooks;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.data.VoxelBlock;
import org.nlspark.spark.data.VoxelBlocks;
import org.nlspark.spark.errors.TaskFailures;
import org.nlspark.spark.io.HadoopOpener;
import scala.Tuple2;
import scala.collection.Iterator;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;
import scala.runtime.AbstractFunction2;
import scala.runtime.BoxedUnit;

/**
 * Runs a job's tiles as one Spark job (DESIGN §2, §5). The driver plans tiles with core's
 * {@link TilePlanner} from the executor budget ({@link ExecutorBudget}) and the task slots,
 * broadcasts the inputs, and groups consecutive tiles into {@link TilePlanner#tasks} partitions
 * (or {@code --partitions} partitions). Each task runs core's {@link TileExecutor} and returns
 * {@link PartialResult#toBytes()}; the driver feeds the partials, as they arrive, to one
 * {@link ResultMerger}, which makes the outputs bit-identical to core's LocalEngine for any
 * partitioning and any retry.
 *
 * <p>Broadcast limit: the inputs travel as one Java-serialized broadcast, so they may be at most
 * {@link NlsparkConf#BROADCAST_MAX_BYTES} (default 2 GB, the ceiling of one Java array); above
 * it the run is refused (exit 3) before any task starts.
 *
 * <p>Data plane (DESIGN §8): {@link #run(JobSpec, DistributedInputs)} takes inputs described,
 * not read. Large ones ({@link NlsparkConf#INGEST}) never pass through the driver: executors
 * read their splits, one shuffle assembles each voxel block where its tiles run, the blocks stay
 * persisted for all replicate windows, and each task runs every tile of its blocks. Small ones
 * are read on the driver and broadcast as before; both give the same bytes.
 *
 * <p>Whole-map tiles on voxel blocks (TFCE, clusters: a {@link SlicedTileRunner}) run in two
 * stages: each block task computes its slice of every tile's statistic maps, one shuffle keyed
 * by tile brings a tile's slices to one task (one tile per partition), which assembles the whole
 * maps and returns the tile's partial to the same merge.
 */
public final class SparkEngine {
  /** In the description of the jobs that read the inputs into voxel blocks (for the progress). */
  public static final String INGEST_JOB_MARK = ": read samples into ";

  /** Local property that tags this engine's Spark jobs (the progress listener filters on it). */
  static final String RUN_ID_PROPERTY = "nlspark.run.id";

  /** Largest voxel-block bytes one partition holds by default (DESIGN §8 block path). */
  static final long BLOCK_PARTITION_BYTES = 64L << 20;

  private final SparkSession spark;
  private final Grid grid;
  private final Integer partitions;
  private final boolean progress;

  /**
   * @param partitions Spark partitions for the tiles, or null for TilePlanner.tasks
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

  /**
   * The run's budget (DESIGN §3.5), resolved once here by core's one rule: the analysis'
   * {@code --memory-budget-gb}, else what Spark gives each executor; then the analysis'
   * preflight against one executor's budget (in local mode, the driver's). Tiles are planned
   * against one task's share of it ({@link ExecutorBudget#perTask()}).
   */
  private ExecutorBudget budget(TileAnalysis analysis) {
    ExecutorBudget budget = ExecutorBudget.of(spark.sparkContext(), analysis.requestedBudgetGb());
    try {
      analysis.preflight(budget.perExecutor());
    } catch (org.nlspark.core.memory.BudgetExceededException e) {
      throw budget.perExecutor().source() == org.nlspark.core.memory.BudgetSource.EXPLICIT ? e
          : e.withRemedy(e.remedy() + " " + budget.remedy(e.bytesNeeded()));
    }
    org.nlspark.core.memory.DriverMemory.check(analysis.command(), analysis.driverMemory());
    return budget;
  }

  /**
   * The one plan of a Spark run: tiles sized against one executor's budget shared by its task
   * slots; where a tile fits the executor but not a slot's share, fewer tiles at once ({@link
   * TileGate}); refused only when one tile alone exceeds the executor's budget, naming the heap
   * that would do.
   */
  private static TilePlan plan(TileAnalysis analysis, ExecutorBudget budget) {
    try {
      return TilePlanner.plan(analysis, budget.perExecutor(), budget.slotsPerExecutor(),
          budget.taskSlots());
    } catch (org.nlspark.core.memory.BudgetExceededException e) {
      throw e.withRemedy(budget.remedy(e.bytesNeeded())
          + " So would a mask of fewer voxels.");
    }
  }

  /** Task slots of the session's cluster: what analyses prepare their preflight for. */
  public int parallelism() {
    return ExecutorBudget.of(spark.sparkContext(), null).taskSlots();
  }

  public RunReport run(JobSpec spec, JobInputs inputs) {
    return run(VoxelwiseAnalysis.prepare(spec, inputs, parallelism(), grid));
  }

  /**
   * Runs a resampling job on described inputs: through voxel blocks read by executors, or, for
   * inputs below {@link NlsparkConf#INGEST_BLOCKS_MIN_BYTES}, read here and broadcast (chosen by
   * {@link NlsparkConf#INGEST}; recorded in summary.json as engine.ingest).
   */
  public RunReport run(JobSpec spec, DistributedInputs inputs) {
    Ingest ingest = Ingest.of(spark, inputs);
    HadoopOpener files = new HadoopOpener(spark.sparkContext().hadoopConfiguration());
    RunReport report;
    if (ingest.onExecutors()) {
      VoxelwiseAnalysis job = VoxelwiseAnalysis.prepare(spec, inputs.shape(), parallelism(), grid);
      report = runBlocks(job, job.inputs, inputs, files, ingest);
    } else {
      JobInputs loaded = ingest.readHere(() -> inputs.load(files));
      report = run(VoxelwiseAnalysis.prepare(spec, loaded, parallelism(), grid));
    }
    report.engineFacts.put("ingest", ingest.facts());
    return report;
  }

  /**
   * Runs an analysis prepared from the shape of {@code inputs} alone (glm's
   * {@code prepareOnExecutors}, a whole-map test on {@link DistributedInputs#shape()}) on the
   * voxel blocks executors read (DESIGN §8): each tile's runner gets its block as {@link
   * JobInputs} (a column window); the driver holds the plan and the merge state only. {@code
   * ingest} is the run's {@link Ingest}, reported as engine.ingest.
   */
  public RunReport runOnBlocks(TileAnalysis analysis, DistributedInputs inputs, Ingest ingest) {
    if (analysis.data() != null
        && !(analysis.data() instanceof JobInputs shape && shape.onExecutors())) {
      throw new IllegalStateException("[BUG] " + analysis.command() + " holds its samples;"
          + " voxel blocks are for analyses prepared from the shape of the inputs");
    }
    HadoopOpener files = new HadoopOpener(spark.sparkContext().hadoopConfiguration());
    RunReport report = runBlocks(analysis, inputs.shape(), inputs, files, ingest);
    report.engineFacts.put("ingest", ingest.facts());
    return report;
  }

  /**
   * Runs a job whose samples executors read into persisted voxel blocks (DESIGN §8); {@code
   * shape} is the inputs' shape, each block's tiles get it with their block's values.
   */
  private RunReport runBlocks(TileAnalysis job, JobInputs shape, DistributedInputs inputs,
      SampleSource.Opener files, Ingest ingest) {
    long start = System.nanoTime();
    SparkContext sc = spark.sparkContext();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    ExecutorBudget budget = budget(job);
    int slots = budget.taskSlots();
    TilePlan plan = plan(job, budget);
    List<TileSpec> tiles = plan.tiles();
    int blocks = grid.blocks(shape.voxels());
    // Tasks are block partitions (a block's tiles run where the block is). By default about
    // TILES_PER_SLOT per slot, more when that would put over BLOCK_PARTITION_BYTES of blocks in
    // one partition (a partition is cached or spilled whole); a task costs tens of ms, so one
    // per block would cost more than small blocks' work.
    long heldBytes = shape.blockBytes(shape.voxels());
    int numPartitions = partitions != null ? Math.min(partitions, blocks)
        : (int) Math.min(blocks, Math.max((long) TilePlanner.TILES_PER_SLOT * slots,
            (heldBytes + BLOCK_PARTITION_BYTES - 1) / BLOCK_PARTITION_BYTES));
    TileSpec[][] tilesByBlock = tilesByBlock(tiles, blocks);
    TestHooks hooks = TestHooks.of(spark);
    TileRunner runner = job.runner(plan);
    String runId = UUID.randomUUID().toString();
    TileGate gate = TileGate.of(runId, plan, budget);
    String oldRunId = sc.getLocalProperty(RUN_ID_PROPERTY);
    String oldDescription = sc.getLocalProperty("spark.job.description");
    org.apache.spark.util.LongAccumulator readNanos = sc.longAccumulator("nlspark.read.nanos");
    VoxelBlocks.requireOneSamplePerTask(inputs, budget.executorHeapBytes(),
        ExecutorBudget.RESERVED_BYTES, budget.slotsPerExecutor(), sc.isLocal()
            ? "NLSPARK_JAVA_OPTS=-Xmx<size> for bin/nlspark, --driver-memory in local mode"
            : "spark.executor.memory");
    BlockStorage storage = BlockStorage.choose(heldBytes, numPartitions, budget, plan);
    ingest.put("block_storage", storage.level());
    ingest.put("block_storage_reason", storage.reason());
    JavaPairRDD<Integer, VoxelBlock> blockRdd = VoxelBlocks.build(jsc, inputs, grid,
        numPartitions, files, readNanos, storage.storageLevel());
    ProgressListener listener = new ProgressListener(runId, tiles.size(), job.replicates(),
        numPartitions, progress);
    MergeHandler handler;
    long ingestStart;
    long jobStart;
    long jobEnd;
    TileMerger merger;
    try {
      // the progress line first follows the reading of the inputs into blocks, then the tiles
      sc.addSparkListener(listener);
      sc.setLocalProperty(RUN_ID_PROPERTY, runId);
      sc.setJobDescription("nlspark " + job.command() + INGEST_JOB_MARK + blocks
          + " voxel blocks");
      ingestStart = System.nanoTime();
      // One action reads the files and fills the persisted blocks, so ingest is timed alone.
      long held = blockRdd.map(t -> t._2().bytes()).fold(0L, Long::sum);
      long ingestEnd = System.nanoTime();
      ingest.put("ingest_seconds", (ingestEnd - ingestStart) / 1e9);
      // Task time spent reading files and cutting samples into blocks (before the shuffle).
      ingest.put("read_task_seconds", readNanos.value() / 1e9);
      ingest.put("blocks", blocks);
      ingest.put("block_partitions", numPartitions);
      ingest.put("held_block_bytes", held);
      if (job instanceof VoxelwiseAnalysis prepared) {
        double[] observed = null;
        if (prepared.spec.analysis() == Analysis.BOOTSTRAP) {
          observed = observed(blockRdd, prepared.spec.statisticRow(), shape.voxels());
        }
        merger = prepared.merger(plan, observed);
      } else {
        merger = job.merger(plan);
      }
      sc.setJobDescription("nlspark " + job.command() + " (" + tiles.size() + " tiles on "
          + blocks + " voxel blocks)");
      handler = new MergeHandler(merger);
      jobStart = System.nanoTime();
      KernelWarmup.stop(); // its tiles would now take the cores the job's tiles want
      ClassTag<TaskOutcome> tag = ClassTag$.MODULE$.apply(TaskOutcome.class);
      if (runner instanceof SlicedTileRunner sliced) {
        // Whole maps: every block's slice of every tile, regrouped by tile (one per partition).
        TileSpec[] all = tiles.toArray(new TileSpec[0]);
        JavaPairRDD<Integer, byte[]> byTile = blockRdd
            .flatMapToPair(t -> slices(sliced, t._2().inputs(shape), t._1(), all))
            .partitionBy(new TilePartitioner(all.length));
        ingest.put("map_slice_partitions", all.length);
        sc.runJob(byTile.rdd(), new AssembleTask(sliced, all, blocks, hooks, gate), handler,
            tag);
      } else {
        sc.runJob(blockRdd.rdd(), new BlockTileTask(runner, shape, tilesByBlock, hooks, gate),
            handler, tag);
      }
      jobEnd = System.nanoTime();
    } catch (Exception e) { // Spark throws its (checked) SparkException undeclared
      throw TaskFailures.unwrapAny(e);
    } finally {
      sc.setLocalProperty(RUN_ID_PROPERTY, oldRunId);
      sc.setJobDescription(oldDescription);
      sc.removeSparkListener(listener);
      listener.finish();
      blockRdd.unpersist(false);
      TileGate.close(runId);
    }
    org.nlspark.core.result.Result result = merger.finish();
    long end = System.nanoTime();

    Map<String, Object> facts = facts(tiles.size(), numPartitions, budget, 0L, handler,
        "ingest_seconds", (jobStart - ingestStart) / 1e9, jobStart, jobEnd, end);
    return new RunReport(job, plan, result, "spark", slots, (jobStart - start) / 1e9,
        (jobEnd - jobStart) / 1e9, (end - jobEnd) / 1e9, merger.kernelNanos() / 1e9,
        merger.flops(), facts);
  }

  /** The tiles of each block, in tile order. */
  static TileSpec[][] tilesByBlock(List<TileSpec> tiles, int blocks) {
    int[] counts = new int[blocks];
    for (TileSpec t : tiles) {
      counts[t.block()]++;
    }
    TileSpec[][] out = new TileSpec[blocks][];
    for (int b = 0; b < blocks; b++) {
      out[b] = new TileSpec[counts[b]];
      counts[b] = 0;
    }
    for (TileSpec t : tiles) {
      out[t.block()][counts[t.block()]++] = t;
    }
    return out;
  }

  /** Bootstrap's statistic on the full data, computed per block where the blocks are. */
  private double[] observed(JavaPairRDD<Integer, VoxelBlock> blockRdd, Statistic statistic,
      int voxels) {
    List<Tuple2<Integer, double[]>> parts = blockRdd
        .mapToPair(t -> new Tuple2<>(t._1(), ObservedStatistic.of(statistic, t._2().whole(0))))
        .collect();
    double[] out = new double[voxels];
    for (Tuple2<Integer, double[]> p : parts) {
      System.arraycopy(p._2(), 0, out, grid.blockStart(p._1()), p._2().length);
    }
    return out;
  }

  /**
   * Runs any analysis of the pipeline as one Spark job; a {@link DescribedAnalysis} on the voxel
   * blocks of its inputs, or (inputs read on the driver) broadcast, with engine.ingest.
   */
  public RunReport run(TileAnalysis analysis) {
    if (analysis instanceof DescribedAnalysis described) {
      if (described.inputs() != null) {
        return runOnBlocks(described.analysis(), described.inputs(), described.ingest());
      }
      RunReport report = run(described.analysis());
      report.engineFacts.put("ingest", described.ingest().facts());
      return report;
    }
    long start = System.nanoTime();
    SparkContext sc = spark.sparkContext();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(sc);
    Serializable data = analysis.data();
    long broadcastBytes = estimateBytes(data);
    long broadcastMax = NlsparkConf.broadcastMaxBytes(spark);
    if (broadcastBytes > broadcastMax) {
      throw new ResourceRefusedException(String.format("Cannot broadcast the inputs: they hold"
          + " %.3g GB, more than the broadcast limit of %.3g GB (%s). Mask to fewer voxels or"
          + " split the voxels into several runs.", broadcastBytes / 1e9, broadcastMax / 1e9,
          NlsparkConf.BROADCAST_MAX_BYTES));
    }
    // every executor holds the broadcast inputs beside its tiles
    ExecutorBudget budget = budget(analysis)
        .holding(ExecutorBudget.BROADCAST_COPIES * broadcastBytes);
    int slots = budget.taskSlots();
    TilePlan plan = plan(analysis, budget);
    List<TileSpec> tiles = plan.tiles();
    // By default TilePlanner.tasks: each task a run of consecutive tiles, one per slot for a
    // short run of small partials, else TILES_PER_SLOT per slot. A task costs Spark tens of ms
    // (more in a fresh JVM), so one task per tile spent a third of a cold job's time scheduling
    // (docs/performance.md, "The cold job"). Any count gives the same bytes.
    int numPartitions = partitions == null
        ? TilePlanner.tasks(tiles.size(), slots, analysis.smallPartialWork())
        : Math.min(partitions, tiles.size()); // more than tiles would only add empty tasks
    TestHooks hooks = TestHooks.of(spark);
    TileRunner runner = analysis.runner(plan);
    TileMerger merger = analysis.merger(plan);
    Broadcast<Serializable> shared = jsc.broadcast(data);
    String runId = UUID.randomUUID().toString();
    TileGate gate = TileGate.of(runId, plan, budget);
    ProgressListener listener = new ProgressListener(runId, tiles.size(), analysis.replicates(),
        numPartitions, progress);
    sc.addSparkListener(listener);
    String oldRunId = sc.getLocalProperty(RUN_ID_PROPERTY);
    sc.setLocalProperty(RUN_ID_PROPERTY, runId);
    String oldDescription = sc.getLocalProperty("spark.job.description");
    sc.setJobDescription("nlspark " + analysis.command() + " (" + tiles.size() + " tiles)");
    MergeHandler handler = new MergeHandler(merger);
    long jobStart = System.nanoTime();
    KernelWarmup.stop(); // its tiles would now take the cores the job's tiles want
    try {
      JavaRDD<TileSpec> rdd = jsc.parallelize(tiles, numPartitions);
      ClassTag<TaskOutcome> tag = ClassTag$.MODULE$.apply(TaskOutcome.class);
      sc.runJob(rdd.rdd(), new TileTask(runner, shared, hooks, gate), handler, tag);
    } catch (Exception e) { // Spark throws its (checked) SparkException undeclared
      throw TaskFailures.unwrapAny(e);
    } finally {
      sc.setLocalProperty(RUN_ID_PROPERTY, oldRunId);
      sc.setJobDescription(oldDescription); // the caller's own description (a notebook's)
      sc.removeSparkListener(listener);
      listener.finish();
      shared.destroy();
      TileGate.close(runId);
    }
    long jobEnd = System.nanoTime();
    org.nlspark.core.result.Result result = merger.finish();
    long end = System.nanoTime();

    Map<String, Object> facts = facts(tiles.size(), numPartitions, budget, broadcastBytes,
        handler, "broadcast_read_seconds", handler.broadcastNanos / 1e9, jobStart, jobEnd, end);
    return new RunReport(analysis, plan, result, "spark", slots, (jobStart - start) / 1e9,
        (jobEnd - jobStart) / 1e9, (end - jobEnd) / 1e9, merger.kernelNanos() / 1e9,
        merger.flops(), facts);
  }

  /**
   * The engine facts of summary.json, the same for both ways the inputs travel (voxel blocks or
   * one broadcast); {@code inputKey} names how long the inputs took to reach the tasks.
   */
  private Map<String, Object> facts(int tiles, int numPartitions, ExecutorBudget budget,
      long broadcastBytes, MergeHandler handler, String inputKey, double inputSeconds,
      long jobStart, long jobEnd, long end) {
    int slots = budget.taskSlots();
    SparkContext sc = spark.sparkContext();
    Map<String, Object> facts = new LinkedHashMap<>();
    facts.put("master", sc.master());
    facts.put("spark_version", sc.version());
    facts.put("artifact", SparkLine.built().artifact);
    facts.put("partitions", numPartitions);
    facts.put("tiles", tiles);
    facts.put("executors", budget.executors());
    facts.put("task_slots", slots);
    facts.put("budget", budget.toMap());
    facts.put("broadcast_bytes", broadcastBytes);
    Map<String, Object> timing = new LinkedHashMap<>();
    timing.put("task_seconds", handler.taskNanos / 1e9);
    timing.put("task_cpu_seconds", handler.taskCpuNanos / 1e9);
    timing.put(inputKey, inputSeconds);
    timing.put("driver_merge_seconds", (handler.mergeNanos + (end - jobEnd)) / 1e9);
    // Spark's own cost: job time not spent inside tasks, spread over the slots that ran them.
    timing.put("spark_overhead_seconds", Math.max(0, (jobEnd - jobStart) / 1e9
        - handler.taskNanos / 1e9 / Math.max(1, Math.min(slots, numPartitions))));
    timing.put("tasks", handler.outcomes);
    facts.put("spark_timings", timing);
    facts.put("memory", handler.memoryMap());
    return facts;
  }

  /**
   * Peak heap use of this JVM since it started: the sum of the heap pools' peaks (an upper
   * bound of the true peak, as pools peak at different times).
   */
  static long peakHeapBytes() {
    long sum = 0;
    for (java.lang.management.MemoryPoolMXBean pool
        : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }

  /** CPU time of the calling thread, or 0 where the JVM does not measure it. */
  static long threadCpuNanos() {
    java.lang.management.ThreadMXBean threads =
        java.lang.management.ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0L;
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

  /** What one task returns: its tiles' partials and how long it took on the executor. */
  static final class TaskOutcome implements Serializable {
    private static final long serialVersionUID = 1L;
    final byte[][] partials;
    final long taskNanos;
    /** CPU time of the task's thread (the tiles' kernels; JIT compiler threads not counted). */
    final long taskCpuNanos;
    final long broadcastNanos;
    final String executorId;
    final long executorPeakHeap;

    TaskOutcome(byte[][] partials, long taskNanos, long taskCpuNanos, long broadcastNanos) {
      this.partials = partials;
      this.taskNanos = taskNanos;
      this.taskCpuNanos = taskCpuNanos;
      this.broadcastNanos = broadcastNanos;
      org.apache.spark.SparkEnv env = org.apache.spark.SparkEnv.get();
      this.executorId = env == null ? "?" : env.executorId();
      this.executorPeakHeap = peakHeapBytes();
    }
  }

  /** The executor side: runs the partition's tiles with the analysis' runner. */
  static final class TileTask extends AbstractFunction2<TaskContext, Iterator<TileSpec>,
      TaskOutcome> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TileRunner runner;
    private final Broadcast<Serializable> inputs;
    private final TestHooks hooks;
    private final TileGate gate;

    TileTask(TileRunner runner, Broadcast<Serializable> inputs, TestHooks hooks, TileGate gate) {
      this.runner = runner;
      this.inputs = inputs;
      this.hooks = hooks;
      this.gate = gate;
    }

    @Override
    public TaskOutcome apply(TaskContext context, Iterator<TileSpec> tiles) {
      long start = System.nanoTime();
      long cpuStart = threadCpuNanos();
      Object data = inputs.value();
      long fetched = System.nanoTime();
      List<byte[]> out = new ArrayList<>();
      while (tiles.hasNext()) {
        TileSpec tile = tiles.next();
        hooks.beforeTile(tile.index(), context.attemptNumber(), context.stageId());
        out.add(gate.through(() -> runner.run(data, tile, gpuDevice(context))));
      }
      return new TaskOutcome(out.toArray(new byte[0][]), System.nanoTime() - start,
          threadCpuNanos() - cpuStart, fetched - start);
    }
  }

  /** The executor side of the block path: runs every tile of each block of the partition. */
  static final class BlockTileTask extends AbstractFunction2<TaskContext,
      Iterator<Tuple2<Integer, VoxelBlock>>, TaskOutcome> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final TileRunner runner;
    private final JobInputs shape;
    private final TileSpec[][] tilesByBlock;
    private final TestHooks hooks;
    private final TileGate gate;

    BlockTileTask(TileRunner runner, JobInputs shape, TileSpec[][] tilesByBlock,
        TestHooks hooks, TileGate gate) {
      this.runner = runner;
      this.shape = shape;
      this.tilesByBlock = tilesByBlock;
      this.hooks = hooks;
      this.gate = gate;
    }

    @Override
    public TaskOutcome apply(TaskContext context, Iterator<Tuple2<Integer, VoxelBlock>> blocks) {
      long start = System.nanoTime();
      long cpuStart = threadCpuNanos();
      long fetchNanos = 0;
      List<byte[]> out = new ArrayList<>();
      while (blocks.hasNext()) {
        long fetch = System.nanoTime();
        Tuple2<Integer, VoxelBlock> next = blocks.next();
        JobInputs block = next._2().inputs(shape);
        fetchNanos += System.nanoTime() - fetch;
        for (TileSpec tile : tilesByBlock[next._1()]) {
          hooks.beforeTile(tile.index(), context.attemptNumber(), context.stageId());
          out.add(gate.through(() -> runner.run(block, tile, gpuDevice(context))));
        }
      }
      return new TaskOutcome(out.toArray(new byte[0][]), System.nanoTime() - start,
          threadCpuNanos() - cpuStart, fetchNanos);
    }
  }

  /** One block's slice of each tile, each computed when the shuffle asks for it. */
  static java.util.Iterator<Tuple2<Integer, byte[]>> slices(SlicedTileRunner runner,
      JobInputs block, int blockIndex, TileSpec[] tiles) {
    TaskContext context = TaskContext.get(); // the block's task, which computes the slices
    int device = context == null ? 0 : gpuDevice(context);
    return new java.util.Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < tiles.length;
      }

      @Override
      public Tuple2<Integer, byte[]> next() {
        if (next >= tiles.length) {
          throw new java.util.NoSuchElementException();
        }
        int at = next++; // the tile's position in the plan is its key and partition
        return new Tuple2<>(at, runner.slice(block, blockIndex, tiles[at], device));
      }
    };
  }

  /** The slices of the plan's i-th tile to partition i. */
  static final class TilePartitioner extends org.apache.spark.Partitioner {
    private static final long serialVersionUID = 1L;
    private final int tiles;

    TilePartitioner(int tiles) {
      this.tiles = Math.max(1, tiles);
    }

    @Override
    public int numPartitions() {
      return tiles;
    }

    @Override
    public int getPartition(Object key) {
      return (Integer) key;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof TilePartitioner p && p.tiles == tiles;
    }

    @Override
    public int hashCode() {
      return tiles;
    }
  }

  /** The executor side of whole maps on blocks: assembles the partition's tile from its slices. */
  static final class AssembleTask extends AbstractFunction2<TaskContext,
      Iterator<Tuple2<Integer, byte[]>>, TaskOutcome> implements Serializable {
    private static final long serialVersionUID = 1L;
    private final SlicedTileRunner runner;
    private final TileSpec[] tiles;
    private final int blocks;
    private final TestHooks hooks;
    private final TileGate gate;

    AssembleTask(SlicedTileRunner runner, TileSpec[] tiles, int blocks, TestHooks hooks,
        TileGate gate) {
      this.runner = runner;
      this.tiles = tiles;
      this.blocks = blocks;
      this.hooks = hooks;
      this.gate = gate;
    }

    @Override
    public TaskOutcome apply(TaskContext context, Iterator<Tuple2<Integer, byte[]>> slices) {
      long start = System.nanoTime();
      long cpuStart = threadCpuNanos();
      TileSpec tile = tiles[context.partitionId()];
      hooks.beforeTile(tile.index(), context.attemptNumber(), context.stageId());
      java.util.Iterator<byte[]> values = new java.util.Iterator<>() {
        @Override
        public boolean hasNext() {
          return slices.hasNext();
        }

        @Override
        public byte[] next() {
          return slices.next()._2();
        }
      };
      byte[] partial = gate.through(() -> runner.assemble(tile, blocks, values));
      return new TaskOutcome(new byte[][] {partial}, System.nanoTime() - start,
          threadCpuNanos() - cpuStart, 0);
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
    long taskCpuNanos;
    long broadcastNanos;
    long mergeNanos;
    int outcomes;
    final Map<String, Long> executorPeakHeap = new java.util.TreeMap<>();

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
      taskCpuNanos += outcome.taskCpuNanos;
      broadcastNanos += outcome.broadcastNanos;
      outcomes++;
      executorPeakHeap.merge(outcome.executorId, outcome.executorPeakHeap, Math::max);
      mergeNanos += System.nanoTime() - start;
      return BoxedUnit.UNIT;
    }

    /** Peak heap of the driver and of each executor that ran a task (JVM memory pools). */
    synchronized Map<String, Object> memoryMap() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("driver_peak_heap_bytes", peakHeapBytes());
      m.put("driver_max_heap_bytes", Runtime.getRuntime().maxMemory());
      m.put("executor_peak_heap_bytes", executorPeakHeap.values().stream()
          .mapToLong(Long::longValue).max().orElse(0));
      m.put("executors_peak_heap_bytes", new LinkedHashMap<>(executorPeakHeap));
      return m;
    }
  }
}
