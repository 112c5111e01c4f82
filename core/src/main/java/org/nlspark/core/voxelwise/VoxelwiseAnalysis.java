package org.nlspark.core.voxelwise;

import java.io.Serializable;
import java.util.LinkedHashMap;
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
import org.nlspark.core.memory.DriverMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.Gb;
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
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileSpec;

/**
 * A bootstrap or permutation test (bootstrap, one-sample, two-sample, correlation) prepared for
 * the pipeline: inputs validated, backend resolved (run-or-raise, and the size rule of DESIGN §3.2
 * for {@code auto}) and the replicates fixed. A refusal here leaves nothing computed and nothing
 * written; the scheduler then resolves the budget, runs the bootstrap preflight
 * ({@link #preflight}) and plans the tiles, before any tile runs.
 */
public final class VoxelwiseAnalysis implements TileAnalysis {
  public final JobSpec spec;
  public final JobInputs inputs;
  public final Backend backend;
  public final ResamplingPlan resampling;
  public final Grid grid;
  /** Tiles that may hold a replicate window at once (sets the preflight's window). */
  private final int workers;

  private VoxelwiseAnalysis(JobSpec spec, JobInputs inputs, Backend backend, ResamplingPlan resampling,
      Grid grid, int workers) {
    this.spec = spec;
    this.inputs = inputs;
    this.backend = backend;
    this.resampling = resampling;
    this.grid = grid;
    this.workers = workers;
  }

  public static VoxelwiseAnalysis prepare(JobSpec spec, JobInputs inputs, int workers) {
    return prepare(spec, inputs, workers, Grid.DEFAULT, GpuProbes.system());
  }

  public static VoxelwiseAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid) {
    return prepare(spec, inputs, workers, grid, GpuProbes.system());
  }

  /**
   * @param workers tiles that may hold a replicate window at once (sets the preflight's window)
   */
  public static VoxelwiseAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      GpuProbe gpu) {
    return prepare(spec, inputs, workers, grid, gpu, null);
  }

  /**
   * The same, where {@code autoOnCpu} (when not null) is why {@code --backend auto} stays on the
   * CPU for this run: recorded as the reason, with "auto" still the backend requested.
   */
  public static VoxelwiseAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      GpuProbe gpu, String autoOnCpu) {
    inputs.validate(spec.analysis());
    MemoryBudget.checkExplicit(spec.memoryBudgetGb());
    boolean nullTails = spec.tailApproximation() && spec.analysis() != Analysis.BOOTSTRAP;
    if (autoOnCpu == null && nullTails) {
      autoOnCpu = "the per-voxel null tails of --tail-approximation are kept by the CPU tiles";
    }
    // auto stays on the CPU where it must (and says why); an explicit gpu is refused
    Backend backend = autoOnCpu != null && "auto".equals(spec.backend())
        ? Backend.cpu("auto: CPU, as " + autoOnCpu)
        : resolveBackend(spec.backend(), inputs, spec.replicates(), gpu);
    if (backend.kind() == BackendKind.GPU && nullTails) {
      throw new org.nlspark.core.InvalidInputException("Cannot run --tail-approximation on the"
          + " GPU backend: the per-voxel null tails of the uncorrected p are kept by the CPU"
          + " tiles only; use --backend cpu");
    }
    if (backend.kind() == BackendKind.GPU && !spec.precisionExplicit()) {
      spec = spec.toBuilder().precision(Precision.FLOAT32).build(); // float32 by default on GPU
    }
    return new VoxelwiseAnalysis(spec, inputs, backend, ResamplingPlan.forJob(spec, inputs),
        grid == null ? Grid.DEFAULT : grid, workers);
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
  public Double requestedBudgetGb() {
    return spec.memoryBudgetGb();
  }

  /** DESIGN §3.8: a bootstrap's retained output must fit the budget before any replicate. */
  @Override
  public void preflight(MemoryBudget budget) {
    if (spec.analysis() == Analysis.BOOTSTRAP) {
      BootstrapMemory.preflight(inputs.voxels(), spec.replicates(), spec.confidence(),
          spec.saveSamples(), workers, budget);
    }
  }

  /** A bootstrap's saved samples, or a permutation test's null distribution (with FWER). */
  @Override
  public DriverMemory.Need driverMemory() {
    if (spec.analysis() == Analysis.BOOTSTRAP) {
      return spec.saveSamples() ? DriverMemory.savedSamples(replicates(), inputs.voxels())
          : DriverMemory.Need.NONE;
    }
    return DriverMemory.nullDistributions(replicates(), spec.fwer() ? 1 : 0);
  }

  /** The GB a bootstrap retains (what {@link #preflight} checks); 0 for a permutation test. */
  public double retainedGb() {
    return spec.analysis() != Analysis.BOOTSTRAP ? 0 : Gb.fromBytes(BootstrapMemory.requiredBytes(
        inputs.voxels(), spec.replicates(), spec.confidence(), spec.saveSamples(), workers));
  }

  @Override
  public long replicates() {
    return resampling.replicates();
  }

  @Override
  public int workers(MemoryBudget processBudget, int ceiling) {
    // DESIGN §3.9: the thread ceiling, lowered when per-worker memory would not fit the budget.
    return spec.analysis() == Analysis.BOOTSTRAP
        ? CpuWorkerPlanner.bootstrapWorkers(inputs.bytes(), resampling.replicates(),
            processBudget, ceiling)
        : CpuWorkerPlanner.workers(inputs.bytes(), resampling.replicates(), processBudget,
            ceiling);
  }

  @Override
  public TileShape shape(MemoryBudget budget) {
    return TileShape.windows(grid, inputs.voxels(), resampling.replicates(), tailSize());
  }

  @Override
  public long bytesPerTile(int windowsPerTile) {
    return TilePlanner.bytesPerTile(spec, inputs, grid, windowsPerTile, tailSize());
  }

  @Override
  public long smallPartialWork() {
    // a permutation run without retained null tails returns counts and maxima per tile
    return spec.analysis() == Analysis.BOOTSTRAP || tailSize() > 0 ? 0
        : (long) inputs.samples() * inputs.voxels() * resampling.replicates();
  }

  private int tailSize() {
    return TilePlanner.tailSize(spec, resampling.replicates());
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
    m.put("backend", backend.toMap(spec.backend()));
    m.put("precision", spec.precision().label());
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("samples", inputs.x().rows());
    if (inputs.y() != null) {
      input.put("samples2", inputs.y().rows());
    }
    input.put("voxels", inputs.voxels());
    m.put("input", input);
    m.put("resampling", resampling.toMap());
    double retained = retainedGb();
    if (retained > 0) {
      m.put("bootstrap_retained_gb", retained);
    }
    return m;
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
