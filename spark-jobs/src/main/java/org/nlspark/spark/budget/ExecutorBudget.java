package org.nlspark.spark.budget;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.memory.BudgetResolver;
import org.nlspark.core.memory.MemoryBudget;

/**
 * The memory and task slots a Spark job's tiles may use, read on the driver before any task runs.
 *
 * <p>Precedence: core's one rule, through its one {@link BudgetResolver}: {@code --memory-budget-gb}
 * (explicit, &gt; 0, uncapped) &gt; what Spark will give each executor: its unified memory,
 * {@code (heap - 300 MB) * spark.memory.fraction}, and half of the user memory beside it
 * ({@link #USER_MEMORY_SHARE}; Spark's own structures keep the other half), less what the run
 * holds there beside the tiles ({@link #holding}). Tiles are user data structures, allocated
 * outside Spark's memory manager; a 1.2 GB glm --tfce study whose one tile the planner put at
 * 0.482 GB finished under a 620 MiB heap, so unified memory alone was too strict. The heap is
 * {@code spark.executor.memory} on a cluster and the driver heap in local mode, where the driver is
 * the executor. Either budget is shared by the tiles running at once in one executor, so a tile
 * must fit {@code budget / slotsPerExecutor}, with {@code slotsPerExecutor = cores per executor /
 * spark.task.cpus} ({@code local[N]}: N threads).
 *
 * @param executorHeapBytes heap of one executor (local: the driver's max heap)
 * @param memoryFraction {@code spark.memory.fraction}
 * @param slotsPerExecutor tasks one executor runs at once
 * @param executors executors the job may use (1 in local mode)
 * @param taskCpus {@code spark.task.cpus}
 * @param perExecutor the budget of one executor (explicit, or what Spark gives it)
 * @param executorMemory how Spark's figure was read, in words (for summary.json)
 * @param heldBytes what each executor holds beside the tiles (the broadcast inputs), already
 *     taken from a budget Spark gives ({@link #holding}); 0 for none
 */
public record ExecutorBudget(long executorHeapBytes, double memoryFraction, int slotsPerExecutor,
    int executors, int taskCpus, MemoryBudget perExecutor, String executorMemory,
    long heldBytes) {

  /**
   * Copies of a broadcast's inputs one executor holds: the value the tiles read and its
   * serialized pieces in the block manager (in local mode, the driver's inputs and the pieces).
   */
  public static final int BROADCAST_COPIES = 2;

  /**
   * This budget less {@code bytes} that every executor holds beside the tiles (what the tiles
   * may use is the rest); an explicit budget stays as given (it is what the tiles may use).
   */
  public ExecutorBudget holding(long bytes) {
    if (perExecutor.source() == org.nlspark.core.memory.BudgetSource.EXPLICIT || bytes <= 0) {
      return this;
    }
    MemoryBudget rest = new MemoryBudget(Math.max(0, perExecutor.bytes() - bytes) / 1e9,
        perExecutor.source(), false);
    return new ExecutorBudget(executorHeapBytes, memoryFraction, slotsPerExecutor, executors,
        taskCpus, rest, executorMemory, heldBytes + bytes);
  }

  /** Spark's reserved system memory per executor (not usable by tasks). */
  public static final long RESERVED_BYTES = 300L * 1024 * 1024;
  public static final double DEFAULT_MEMORY_FRACTION = 0.6;
  /** The share of Spark's user memory ({@code 1 - spark.memory.fraction}) the tiles may use. */
  public static final double USER_MEMORY_SHARE = 0.5;

  /** The share of {@code heap - 300 MB} the tiles may use: unified memory, half the rest. */
  static double tileShare(double memoryFraction) {
    return memoryFraction + (1 - memoryFraction) * USER_MEMORY_SHARE;
  }

  public static ExecutorBudget of(SparkContext sc, Double explicitGb) {
    SparkConf conf = sc.getConf();
    boolean local = sc.isLocal();
    int taskCpus = Math.max(1, conf.getInt("spark.task.cpus", 1));
    long heap;
    int cores;
    int executors;
    if (local) {
      heap = Runtime.getRuntime().maxMemory();
      cores = Math.max(1, sc.defaultParallelism());
      executors = 1;
    } else {
      heap = conf.getSizeAsBytes("spark.executor.memory", "1g");
      int registered = sc.getExecutorMemoryStatus().size() - 1; // minus the driver
      executors = Math.max(1, Math.max(registered, conf.getInt("spark.executor.instances", 1)));
      // spark.executor.cores is often unset where executors take every core of their worker
      // (standalone, Databricks); then the registered cores per executor, so each concurrent
      // tile is sized against its share of the executor's memory, not all of it.
      int perExecutorFromParallelism = Math.max(1, sc.defaultParallelism() / executors);
      cores = conf.contains("spark.executor.cores")
          ? Math.max(1, conf.getInt("spark.executor.cores", 1)) : perExecutorFromParallelism;
    }
    double fraction = conf.getDouble("spark.memory.fraction", DEFAULT_MEMORY_FRACTION);
    return compute(heap, fraction, cores, taskCpus, executors, local, explicitGb);
  }

  /** The rule itself, without Spark (what the tests pin). */
  public static ExecutorBudget compute(long heapBytes, double memoryFraction, int coresPerExecutor,
      int taskCpus, int executors, boolean local, Double explicitGb) {
    int slots = Math.max(1, coresPerExecutor / Math.max(1, taskCpus));
    long usable = (long) (Math.max(0, heapBytes - RESERVED_BYTES) * tileShare(memoryFraction));
    // Tiles are on-heap on the CPU whatever the backend; the executor's memory is never measured.
    MemoryBudget budget = BudgetResolver.onExecutor(usable).resolve(explicitGb, BackendKind.CPU);
    String memory = String.format(Locale.ROOT,
        "%s heap %.3g GB minus 300 MB reserved, x (spark.memory.fraction %s and half the"
            + " rest)", local ? "driver (local mode)" : "spark.executor.memory", heapBytes / 1e9,
        memoryFraction);
    return new ExecutorBudget(heapBytes, memoryFraction, slots, Math.max(1, executors),
        Math.max(1, taskCpus), budget, memory, 0);
  }

  /**
   * What would do for {@code tileBytes} of the budget (one sentence): the executor heap whose
   * budget holds them, or the explicit budget that would.
   */
  public String remedy(long tileBytes) {
    if (perExecutor.source() == org.nlspark.core.memory.BudgetSource.EXPLICIT) {
      return "Raise --memory-budget-gb to at least "
          + org.nlspark.core.memory.Gb.atLeast(tileBytes) + ".";
    }
    long heapMiB = (long) Math.ceil(((tileBytes + heldBytes) / tileShare(memoryFraction)
        + RESERVED_BYTES) / (1 << 20));
    return String.format(Locale.ROOT, "A heap of at least %d MiB would do (%s).", heapMiB,
        executorMemory.startsWith("driver")
            ? "NLSPARK_JAVA_OPTS=-Xmx" + heapMiB + "m bin/nlspark ..., or spark-submit"
                + " --driver-memory in local mode"
            : "spark.executor.memory");
  }

  /** Tasks that run at once over the whole job: executors x slots per executor. */
  public int taskSlots() {
    return executors * slotsPerExecutor;
  }

  /** What one tile may use: the executor's budget shared by its running tasks. */
  public MemoryBudget perTask() {
    return perExecutor.sharedBy(slotsPerExecutor);
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("executor_heap_bytes", executorHeapBytes);
    m.put("memory_fraction", memoryFraction);
    m.put("executors", executors);
    m.put("slots_per_executor", slotsPerExecutor);
    m.put("task_cpus", taskCpus);
    m.put("executor_budget_gb", perExecutor.gb());
    if (heldBytes > 0) {
      m.put("held_beside_tiles_bytes", heldBytes);
    }
    m.put("task_budget_gb", perTask().gb());
    m.put("budget_source", perExecutor.source().describe());
    m.put("executor_memory", executorMemory);
    return m;
  }
}
