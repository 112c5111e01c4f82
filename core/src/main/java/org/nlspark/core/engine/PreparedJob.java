package org.nlspark.core.engine;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.backend.AutoBackendSelector;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.BackendResolver;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.gpu.GpuTileExecutor;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.CpuWorkerPlanner;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.stats.ObservedStatistic;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.ResultMerger;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;

/**
 * A bootstrap or permutation test (bootstrap, one-sample, two-sample, correlation) prepared for
 * the pipeline: inputs validated, backend resolved (run-or-raise, and the size rule of DESIGN §3.2
 * for {@code auto}), budget measured, the bootstrap preflight passed, and the replicates fixed. A
 * refusal here leaves nothing computed and nothing written.
 */
public final class PreparedJob implements TileAnalysis {
  public final JobSpec spec;
  public final JobInputs inputs;
  public final Backend backend;
  public final MemoryBudget budget;
  public final ResamplingPlan resampling;
  public final Grid grid;
  public final double preflightGb;

  private PreparedJob(JobSpec spec, JobInputs inputs, Backend backend, MemoryBudget budget,
      ResamplingPlan resampling, Grid grid, double preflightGb) {
    this.spec = spec;
    this.inputs = inputs;
    this.backend = backend;
    this.budget = budget;
    this.resampling = resampling;
    this.grid = grid;
    this.preflightGb = preflightGb;
  }

  public static PreparedJob prepare(JobSpec spec, JobInputs inputs, int workers) {
    return prepare(spec, inputs, workers, Grid.DEFAULT, GpuProbes.system(), MemoryProbe.system());
  }

  public static PreparedJob prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid) {
    return prepare(spec, inputs, workers, grid, GpuProbes.system(), MemoryProbe.system());
  }

  /**
   * @param workers tiles that may hold a replicate window at once (sets the preflight's window)
   */
  public static PreparedJob prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      GpuProbe gpu, MemoryProbe memory) {
    inputs.validate(spec.analysis());
    Backend backend = resolveBackend(spec.backend(), inputs, spec.replicates(), gpu);
    if (backend.kind() == BackendKind.GPU && !spec.precisionExplicit()) {
      spec = spec.toBuilder().precision(Precision.FLOAT32).build(); // float32 by default on GPU
    }
    MemoryBudget budget = MemoryBudget.resolve(spec.memoryBudgetGb(), backend.kind(), memory,
        false);
    double required = 0;
    if (spec.analysis() == Analysis.BOOTSTRAP) {
      required = BootstrapMemory.preflight(inputs.voxels(), spec.replicates(), spec.confidence(),
          spec.saveSamples(), workers, budget);
    }
    return new PreparedJob(spec, inputs, backend, budget, ResamplingPlan.forJob(spec, inputs),
        grid == null ? Grid.DEFAULT : grid, required);
  }

  /**
   * DESIGN §3.1 and §3.2: {@code auto} goes through the size rule (small problems stay on the
   * CPU even when a GPU is present); any other request is resolved as given.
   */
  static Backend resolveBackend(String requested, JobInputs inputs, long replicates,
      GpuProbe gpu) {
    if ("auto".equals(requested)) {
      return AutoBackendSelector.select(inputs.samples(), inputs.voxels(), 1, gpu);
    }
    return BackendResolver.resolve(requested, gpu);
  }

  @Override
  public String command() {
    return spec.analysis().command();
  }

  @Override
  public Serializable data() {
    return inputs;
  }

  @Override
  public Backend backend() {
    return backend;
  }

  @Override
  public MemoryBudget budget() {
    return budget;
  }

  @Override
  public long replicates() {
    return resampling.replicates();
  }

  @Override
  public int workers(MemoryBudget processBudget, int ceiling) {
    // DESIGN §3.9: the thread ceiling, lowered when per-worker memory would not fit the budget.
    return spec.analysis() == Analysis.BOOTSTRAP
        ? CpuWorkerPlanner.bootstrapWorkers(inputs.bytes(), resampling.replicates(), budget,
            ceiling)
        : CpuWorkerPlanner.workers(inputs.bytes(), resampling.replicates(), budget, ceiling);
  }

  @Override
  public TilePlan plan(MemoryBudget perTile, int parallelism) {
    return TilePlanner.plan(spec, inputs, resampling, grid, perTile, parallelism);
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return new Runner(spec, resampling, plan, backend.kind());
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return merger(plan, null);
  }

  /**
   * As {@link #merger(TilePlan)}, with bootstrap's observed statistic given when the data are
   * not here (computed per voxel block where the blocks are); null computes it from the inputs.
   */
  public TileMerger merger(TilePlan plan, double[] observed) {
    return new ResultMerger(spec, resampling, plan).asTileMerger(result ->
        result instanceof BootstrapResult // observed.npy: the statistic on the full data
            ? ((BootstrapResult) result).withObserved(observed != null ? observed
                : ObservedStatistic.of(spec.statisticRow(), inputs.x()))
            : result);
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("parameters", spec.toMap());
    m.put("seed", spec.seed());
    m.put("backend", backendMap(spec.backend(), backend));
    m.put("precision", spec.precision().label());
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("samples", inputs.x().rows());
    if (inputs.y() != null) {
      input.put("samples2", inputs.y().rows());
    }
    input.put("voxels", inputs.voxels());
    m.put("input", input);
    m.put("resampling", resampling.toMap());
    if (preflightGb > 0) {
      m.put("bootstrap_retained_gb", preflightGb);
    }
    return m;
  }

  /** The backend section of summary.json, the same for every command. */
  public static Map<String, Object> backendMap(String requested, Backend used) {
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("requested", requested);
    b.put("used", used.kind().name().toLowerCase(Locale.ROOT));
    b.put("device", used.deviceName());
    b.put("reason", used.selectionReason());
    return b;
  }

  /** Runs tiles on the backend chosen once for the job: the CPU kernels or the GPU executor. */
  private static final class Runner implements TileRunner {
    private static final long serialVersionUID = 1L;
    private final JobSpec spec;
    private final ResamplingPlan resampling;
    private final TilePlan plan;
    private final BackendKind backend;

    Runner(JobSpec spec, ResamplingPlan resampling, TilePlan plan, BackendKind backend) {
      this.spec = spec;
      this.resampling = resampling;
      this.plan = plan;
      this.backend = backend;
    }

    @Override
    public byte[] run(Object data, TileSpec tile, int device) {
      JobInputs inputs = (JobInputs) data;
      PartialResult partial = backend == BackendKind.GPU
          ? GpuTileExecutor.execute(spec, inputs, resampling, plan, tile, device)
          : TileExecutor.execute(spec, inputs, resampling, plan, tile);
      return partial.toBytes();
    }
  }
}
