package org.nlspark.core.tfce;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;
import org.nlspark.core.gpu.GpuTileExecutor;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.DriverMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.result.Result;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.SlicedTileRunner;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileLedger;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;

/**
 * A permutation test (one-sample sign flips, two-sample, correlation) with whole-map inference:
 * TFCE ({@code --tfce}) and cluster extent ({@code --cluster-threshold}) of DESIGN §9.
 *
 * <p><b>Layout: whole maps per replicate window.</b> TFCE does not split by voxel blocks: each
 * replicate's whole map must be seen at once. The inputs are already on every executor (the
 * engine ships {@link #data()} once per executor), so each tile holds ALL voxels for a run of
 * replicate windows: it computes the statistic maps of its replicates block by block with the
 * job's own kernels on the fixed logical grid (the same GEMM per (block, window) cell as the
 * voxelwise test, so the statistics have the same bits; the CPU kernels, or with {@code --backend
 * gpu} the GPU ones, see {@link StatisticMaps}), then enhances each map on the executor CPU and
 * streams
 * exceedance counts and per-replicate maxima as partial bytes. The driver holds O(voxels +
 * replicates). The budget decides only how many windows a tile holds (its maps are replicates ×
 * voxels doubles) and how many tiles run at once; no output bit depends on it.
 *
 * <p><b>Samples held by executors</b> (voxel blocks, DESIGN §8): the same tiles run in two
 * stages ({@link SlicedTileRunner}): where each block is held, the job's kernels (CPU, or with
 * {@code --backend gpu} the GPU ones on the task's device) compute the block's columns of the
 * observed map and of the tile's replicate maps ({@link MapSlice}); one shuffle brings a tile's
 * slices to one task, which folds the whole maps as above on the executor CPU.
 *
 * <p>Every tile computes the observed map and its TFCE itself (one map: cheap), so exceedance
 * counts need nothing from the driver. The plan, the fold and the merge are {@link
 * WholeMapInference} and {@link WholeMapMerge}, which {@code glm} shares (one statistic per
 * contrast).
 */
public final class TfceAnalysis implements TileAnalysis {
  private final VoxelwiseAnalysis job;
  private final WholeMapInference wholeMap;

  private TfceAnalysis(VoxelwiseAnalysis job, WholeMapInference wholeMap) {
    this.job = job;
    this.wholeMap = wholeMap;
  }

  /**
   * Validates the whole-map settings ({@link WholeMapInference#of}), then prepares the
   * permutation test as {@link VoxelwiseAnalysis} does, with the system's GPU probe. The
   * statistic maps come from the CPU kernels, or with {@code --backend gpu} from the GPU kernels
   * ({@link StatisticMaps#GPU}; TFCE and clusters then still run on the executor CPU); {@code
   * --backend auto} runs on the CPU. {@link WholeMapSettings#of} gives TFCE and/or a cluster
   * threshold with the default exponents.
   *
   * @param mask the grid of the input's voxels; null (an .npy input) is refused (exit 2)
   */
  public static TfceAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      Adjacency mask, WholeMapSettings settings) {
    return prepare(spec, inputs, workers, grid, mask, settings, GpuProbes.system());
  }

  /** The same with every whole-map setting and the GPU probe given. */
  public static TfceAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      Adjacency mask, WholeMapSettings settings, GpuProbe gpu) {
    Analysis analysis = spec.analysis();
    if (analysis != Analysis.ONE_SAMPLE && analysis != Analysis.TWO_SAMPLE
        && analysis != Analysis.CORRELATION) {
      throw new InvalidInputException("Cannot run " + analysis.command() + " with "
          + settings.flags() + ": TFCE and cluster inference are"
          + " for one-sample, two-sample, correlation and glm");
    }
    WholeMapInference wholeMap = WholeMapInference.of(mask, settings, inputs.voxels());
    if (mask != null && mask.onSurface()) {
      wholeMap = onSurface(wholeMap, spec, inputs, settings);
    }
    // auto stays on the CPU: the size rule of the voxelwise tests does not weigh the maps that
    // come back from the device for TFCE. An explicit gpu is resolved (and refused, exit 3,
    // without a usable GPU) as for every command.
    VoxelwiseAnalysis job = VoxelwiseAnalysis.prepare(spec, inputs, workers, grid, gpu,
        "the size rule does not weigh the whole maps that TFCE and clusters bring back");
    return new TfceAnalysis(job, wholeMap);
  }

  /**
   * On a surface TFCE and clusters see z (PALM): of the one-sample t with n − 1 degrees of
   * freedom, of a correlation's r through its t with n − 2. The other statistics have no fixed
   * t distribution and are refused there (exit 2).
   */
  private static WholeMapInference onSurface(WholeMapInference wholeMap, JobSpec spec,
      JobInputs inputs, WholeMapSettings s) {
    if (spec.analysis() == Analysis.ONE_SAMPLE && spec.statistic().equals("t")) {
      return wholeMap.onZ(inputs.samples() - 1);
    }
    if (spec.analysis() == Analysis.CORRELATION && inputs.samples() > 2) {
      return wholeMap.onZOfCorrelation(inputs.samples() - 2);
    }
    String instead = spec.analysis() == Analysis.TWO_SAMPLE
        ? "; compare two groups with glm and a group column (PALM's pooled t)"
        : spec.analysis() == Analysis.ONE_SAMPLE ? "; use --stat t" : "";
    throw new InvalidInputException(s.flags() + " on a surface runs on z of a t statistic (as"
        + " PALM), and " + spec.analysis().command() + " --stat " + spec.statistic()
        + " has no t distribution to convert" + instead);
  }

  /** The voxelwise permutation test this analysis extends. */
  public VoxelwiseAnalysis job() {
    return job;
  }

  public Adjacency mask() {
    return wholeMap.mask();
  }

  @Override
  public String command() {
    return job.command();
  }

  @Override
  public Serializable data() {
    return job.inputs;
  }

  @Override
  public Backend backend() {
    return job.backend;
  }

  @Override
  public Double requestedBudgetGb() {
    return job.requestedBudgetGb();
  }

  @Override
  public void preflight(MemoryBudget budget) {
    job.preflight(budget);
  }

  @Override
  public long replicates() {
    return job.replicates();
  }

  /** The voxelwise null distribution and one per whole-map statistic (TFCE, cluster, mass). */
  @Override
  public DriverMemory.Need driverMemory() {
    return job.driverMemory().plus(DriverMemory.nullDistributions(replicates(),
        job.spec.fwer() ? wholeMapNulls(wholeMap.settings()) : 0))
        .plus(DriverMemory.wholeMaps(wholeMap.mask().voxels(), 1));
  }

  /** The null distributions of maxima whole-map inference adds per statistic map. */
  public static int wholeMapNulls(WholeMapSettings s) {
    return (s.tfce() ? 1 : 0) + (s.clusterThreshold() != null ? 1 : 0)
        + (s.clusterMass() != null ? 1 : 0);
  }

  @Override
  public int workers(MemoryBudget processBudget, int ceiling) {
    return job.workers(processBudget, ceiling);
  }

  /** One tile per run of replicate windows, all voxels ({@link WholeMapInference#shape}). */
  @Override
  public TileShape shape(MemoryBudget budget) {
    return wholeMap.shape(job.grid, job.replicates());
  }

  /** Working set of a tile holding {@code windows} windows of whole maps. */
  @Override
  public long bytesPerTile(int windows) {
    long n = job.inputs.samples();
    long w = job.grid.window();
    long b = Math.min(job.grid.voxelBlock(), job.inputs.voxels());
    long kernel = 3 * n * b * 8 + w * n * 8 + 4 * w * b * 8 // one block's kernel and buffer
        + wholeMap.gridBytes();
    long rows = WholeMapInference.rowsOf(windows, (int) w, job.replicates());
    if (job.inputs.onExecutors()) { // voxel blocks: the assembling task holds the whole maps
      if (onGpu()) {
        // the GPU kernels' maps of the block beside its slice, and the tile's draws on the host
        kernel += rows * b * 8 + (long) windows * w * n * 8;
      }
      return WholeMapInference.slicedTileBytes(rows, 1, job.inputs.voxels(),
          kernel + job.inputs.blockBytes((int) b));
    }
    return WholeMapInference.tileBytes(rows, job.inputs.voxels(), kernel);
  }

  private boolean onGpu() {
    return job.backend.kind() == BackendKind.GPU;
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return runner(plan, onGpu() ? StatisticMaps.GPU : StatisticMaps.CPU);
  }

  /** Tiles whose statistic maps come from {@code maps} (a device of one's choosing). */
  public TileRunner runner(TilePlan plan, StatisticMaps maps) {
    return new Runner(job.spec, job.resampling, job.grid, plan, wholeMap, maps);
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return new Merger(job.spec.tail(), job.spec.fwer(), job.resampling.enumerated(), plan,
        wholeMap);
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>(job.describe());
    m.put("whole_map", wholeMap.describe());
    return m;
  }

  @Override
  public Map<String, Object> describe(TilePlan plan) {
    Map<String, Object> m = describe();
    m.put("plan", wholeMap.layout(job.grid, plan, onGpu()
        ? "gpu kernels (GEMM and epilogue), per (voxel block, replicate window) cell of the"
            + " grid, maps copied back to the executor"
        : "cpu kernels, per (voxel block, replicate window) cell of the grid"));
    return m;
  }

  /**
   * Runs one whole-map tile on the executor ({@link #run} on the whole inputs; {@link #slice}
   * and {@link #assemble} on voxel blocks), its maps from the CPU or the GPU kernels.
   */
  private static final class Runner implements SlicedTileRunner {
    private static final long serialVersionUID = 1L;
    private final JobSpec spec;
    private final ResamplingPlan resampling;
    private final Grid kernelGrid;
    private final TilePlan plan;
    private final WholeMapInference wholeMap;
    private final StatisticMaps statisticMaps;
    /** Whether the maps come from the CPU kernels (told here: a lambda is a new one once sent). */
    private final boolean cpuKernels;

    Runner(JobSpec spec, ResamplingPlan resampling, Grid kernelGrid, TilePlan plan,
        WholeMapInference wholeMap, StatisticMaps statisticMaps) {
      this.spec = spec;
      this.resampling = resampling;
      this.kernelGrid = kernelGrid;
      this.plan = plan;
      this.wholeMap = wholeMap;
      this.statisticMaps = statisticMaps;
      this.cpuKernels = statisticMaps == StatisticMaps.CPU;
    }

    @Override
    public byte[] run(Object data, TileSpec tile, int device) {
      long start = System.nanoTime();
      JobInputs inputs = (JobInputs) data;
      int voxels = inputs.voxels();
      long first = plan.windowStart(tile.firstWindow());
      int lastWindow = tile.firstWindow() + tile.windowCount();
      int rows = (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow)) - first);

      // The statistic maps of the tile's replicates, block by block, each (block, window) cell
      // computed by the job's kernels exactly as the voxelwise test computes it.
      double[] maps = new double[rows * voxels];
      double[] observed = new double[voxels];
      long flops = 0;
      int undefined = 0;
      for (int block = 0; block < kernelGrid.blocks(voxels); block++) {
        GpuTileExecutor.BlockMaps b = statisticMaps.compute(spec, inputs, resampling, kernelGrid,
            block, plan, tile, maps, voxels, kernelGrid.blockStart(block), observed, device);
        flops += b.flops();
        undefined += b.undefinedVoxels();
      }
      WholeMapPartial part = wholeMap.fold(spec.tail(), observed, maps, rows, first,
          tile.firstWindow() == 0, undefined);
      return new TfcePartial(tile, flops, System.nanoTime() - start, List.of(part)).toBytes();
    }

    private int rowsOf(TileSpec tile) {
      long first = plan.windowStart(tile.firstWindow());
      int lastWindow = tile.firstWindow() + tile.windowCount();
      return (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow)) - first);
    }

    /**
     * Stage 1 on a held voxel block: its columns of the observed map and of the tile's replicate
     * maps, each (block, window) cell computed as {@link #run}'s maps compute it (the CPU
     * kernels straight into the slice; the GPU ones, {@link StatisticMaps#GPU}, into the block's
     * maps, then copied).
     */
    @Override
    public byte[] slice(Object input, int blockIndex, TileSpec tile, int device) {
      JobInputs inputs = (JobInputs) input;
      int w = kernelGrid.window();
      int from = kernelGrid.blockStart(blockIndex);
      int b = kernelGrid.blockEnd(blockIndex, inputs.voxels()) - from;
      int tileRows = rowsOf(tile);
      MapSlice.Writer out = new MapSlice.Writer(tile, blockIndex, from, b,
          new int[] {tileRows});
      if (!cpuKernels) {
        double[] observed = new double[b];
        double[] maps = new double[Math.multiplyExact(tileRows, b)];
        GpuTileExecutor.BlockMaps m = statisticMaps.compute(spec, inputs, resampling,
            kernelGrid, blockIndex, plan, tile, maps, b, 0, observed, device);
        out.observed(0, observed);
        out.rows(0, 0, maps, tileRows);
        out.flops(m.flops());
        out.undefinedVoxels(0, m.undefinedVoxels());
        return out.toBytes();
      }
      double[] buf = new double[w * b];
      BlockStatistic kernel = Kernels.create(spec, inputs, resampling, from, from + b, w);
      kernel.observed(buf);
      out.observed(0, buf);
      long first = plan.windowStart(tile.firstWindow());
      for (int window = tile.firstWindow(); window < tile.firstWindow() + tile.windowCount();
          window++) {
        long windowFirst = plan.windowStart(window);
        int rows = plan.windowRows(window);
        kernel.compute(windowFirst, rows, buf);
        out.rows(0, (int) (windowFirst - first), buf, rows);
      }
      out.flops(kernel.flops());
      out.undefinedVoxels(0, kernel.undefinedVoxels());
      return out.toBytes();
    }

    /** Stage 2: the whole maps from the blocks' slices, folded as {@link #run} folds them. */
    @Override
    public byte[] assemble(TileSpec tile, int blocks, java.util.Iterator<byte[]> slices) {
      long start = System.nanoTime();
      MapSlice.Assembly maps = new MapSlice.Assembly(tile, wholeMap.mask().voxels(), blocks,
          new int[] {rowsOf(tile)});
      while (slices.hasNext()) {
        maps.add(slices.next());
      }
      maps.checkComplete();
      WholeMapPartial part = wholeMap.fold(spec.tail(), maps.observed(0), maps.maps(0),
          maps.rows(0), plan.windowStart(tile.firstWindow()), tile.firstWindow() == 0,
          maps.undefinedVoxels(0));
      return new TfcePartial(tile, maps.flops(), System.nanoTime() - start, List.of(part))
          .toBytes();
    }
  }

  /**
   * The driver side: one {@link WholeMapMerge} of the test's statistic, then the voxelwise
   * outputs of the permutation test and the whole-map ones. Thread-safe.
   */
  private static final class Merger implements TileMerger {
    private final Tail tail;
    private final boolean fwer;
    private final boolean enumerated;
    private final TilePlan plan;
    private final WholeMapMerge merge;
    private final TileLedger ledger;

    Merger(Tail tail, boolean fwer, boolean enumerated, TilePlan plan,
        WholeMapInference wholeMap) {
      this.tail = tail;
      this.fwer = fwer;
      this.enumerated = enumerated;
      this.plan = plan;
      this.merge = new WholeMapMerge(wholeMap, tail, plan.replicates());
      this.ledger = TileLedger.of(plan, "TFCE tiles");
    }

    @Override
    public synchronized void add(byte[] bytes) {
      TfcePartial part = TfcePartial.fromBytes(bytes);
      ledger.record(part.tile.index(), part.flops, part.kernelNanos);
      merge.add(part.statistics.get(0));
    }

    @Override
    public synchronized Result finish() {
      ledger.checkComplete();
      WholeMapMerge.Totals t = merge.finish(fwer, enumerated, "TFCE");
      long p = plan.replicates();
      double[] keys = TfceNullFolder.keys(t.observed(), tail);
      double[] maxima = t.maxima();
      PermutationResult voxelwise = new PermutationResult(t.observed(),
          PValues.fromCounts(t.counts(), p, keys, enumerated),
          fwer ? PValues.fwer(maxima, keys, enumerated) : null, fwer ? maxima : null, p,
          enumerated, t.undefinedVoxels());
      return new TfceResult(voxelwise, t);
    }

    @Override
    public synchronized long flops() {
      return ledger.flops();
    }

    @Override
    public synchronized long kernelNanos() {
      return ledger.kernelNanos();
    }
  }
}
