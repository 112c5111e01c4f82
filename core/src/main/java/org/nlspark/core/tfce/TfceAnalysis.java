package org.nlspark.core.tfce;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.BitSet;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.engine.PreparedJob;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.result.Findings;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.result.Result;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
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
 * job's own CPU kernels on the fixed logical grid (the same GEMM per (block, window) cell as the
 * voxelwise test, so the statistics have the same bits), then enhances each map and streams
 * exceedance counts and per-replicate maxima as partial bytes. The driver holds O(voxels +
 * replicates). The budget decides only how many windows a tile holds (its maps are replicates ×
 * voxels doubles) and how many tiles run at once; no output bit depends on it.
 *
 * <p>Every tile computes the observed map and its TFCE itself (one map: cheap), so exceedance
 * counts need nothing from the driver.
 */
public final class TfceAnalysis implements TileAnalysis {
  /** Bytes per voxel a tile holds besides its maps: observed maps and keys, counters, TFCE work. */
  static final long BYTES_PER_VOXEL = 200;

  private final PreparedJob job;
  private final MaskGrid mask;
  private final boolean tfce;
  private final Double clusterThreshold;
  private volatile Map<String, Object> layout;

  private TfceAnalysis(PreparedJob job, MaskGrid mask, boolean tfce, Double clusterThreshold) {
    this.job = job;
    this.mask = mask;
    this.tfce = tfce;
    this.clusterThreshold = clusterThreshold;
  }

  /** Prepares with the system's GPU and memory probes. */
  public static TfceAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      MaskGrid mask, boolean tfce, Double clusterThreshold) {
    return prepare(spec, inputs, workers, grid, mask, tfce, clusterThreshold, GpuProbes.system(),
        MemoryProbe.system());
  }

  /**
   * Validates the whole-map settings, then prepares the permutation test as {@link PreparedJob}
   * does. The statistic maps run on the CPU kernels: {@code --backend auto} becomes the CPU, and an
   * explicit GPU request is refused (exit 3) rather than silently moved.
   *
   * @param mask the grid of the input's voxels; null (an .npy input) is refused (exit 2)
   */
  public static TfceAnalysis prepare(JobSpec spec, JobInputs inputs, int workers, Grid grid,
      MaskGrid mask, boolean tfce, Double clusterThreshold, GpuProbe gpu, MemoryProbe memory) {
    if (!tfce && clusterThreshold == null) {
      throw new IllegalArgumentException("[BUG] whole-map inference without --tfce or"
          + " --cluster-threshold");
    }
    Analysis analysis = spec.analysis();
    if (analysis != Analysis.ONE_SAMPLE && analysis != Analysis.TWO_SAMPLE
        && analysis != Analysis.CORRELATION) {
      throw new InvalidInputException("Cannot run " + analysis.command() + " with " + flags(tfce,
          clusterThreshold) + ": TFCE and cluster inference are for one-sample, two-sample and"
          + " correlation");
    }
    if (mask == null) {
      throw new InvalidInputException("TFCE needs a mask image: " + flags(tfce, clusterThreshold)
          + " joins voxels into clusters by their faces on the image grid, but this input has no"
          + " grid (an .npy matrix); give NIfTI inputs (with --mask) instead");
    }
    if (mask.voxels() != inputs.voxels()) {
      throw new InvalidInputException("Cannot run " + flags(tfce, clusterThreshold) + ": the mask"
          + " has " + mask.voxels() + " voxels, but the input has " + inputs.voxels()
          + " voxels; the input must be masked by the same mask");
    }
    if (clusterThreshold != null) {
      ClusterExtent.checkThreshold(clusterThreshold);
    }
    if ("gpu".equals(spec.backend())) {
      throw new ResourceRefusedException("Cannot run " + flags(tfce, clusterThreshold) + " on a"
          + " GPU: a GPU was requested explicitly (--backend gpu), but the whole-map statistics"
          + " of TFCE have CPU kernels only so far; use --backend cpu or auto");
    }
    if ("auto".equals(spec.backend())) {
      spec = spec.toBuilder().backend("cpu").build();
    }
    PreparedJob job = PreparedJob.prepare(spec, inputs, workers, grid, gpu, memory);
    return new TfceAnalysis(job, mask, tfce, clusterThreshold);
  }

  private static String flags(boolean tfce, Double clusterThreshold) {
    return tfce && clusterThreshold != null ? "--tfce and --cluster-threshold"
        : tfce ? "--tfce" : "--cluster-threshold";
  }

  /** The voxelwise permutation test this analysis extends. */
  public PreparedJob job() {
    return job;
  }

  public MaskGrid mask() {
    return mask;
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
  public MemoryBudget budget() {
    return job.budget;
  }

  @Override
  public long replicates() {
    return job.replicates();
  }

  @Override
  public int workers(MemoryBudget processBudget, int ceiling) {
    return job.workers(processBudget, ceiling);
  }

  /**
   * One tile per run of replicate windows, all voxels. Aims at {@link TilePlanner#TILES_PER_SLOT}
   * tiles per slot, then halves the windows per tile until a tile's maps fit {@code perTile}.
   *
   * @throws ResourceRefusedException when one window of maps does not fit
   */
  @Override
  public TilePlan plan(MemoryBudget perTile, int parallelism) {
    Grid kernelGrid = job.grid;
    int voxels = job.inputs.voxels();
    long replicates = job.replicates();
    int window = kernelGrid.window();
    int windows = kernelGrid.windows(replicates);
    int slots = Math.max(1, parallelism);
    int groups = Math.max(1, Math.min(windows, slots * TilePlanner.TILES_PER_SLOT));
    int perTileWindows = (windows + groups - 1) / groups;
    long budgetBytes = perTile.bytes();
    long bytes = bytesPerTile(perTileWindows);
    while (perTileWindows > 1 && (bytes > budgetBytes
        || (long) perTileWindows * window * voxels > Integer.MAX_VALUE - 8)) {
      perTileWindows = (perTileWindows + 1) / 2;
      bytes = bytesPerTile(perTileWindows);
    }
    if (bytes > budgetBytes || (long) window * voxels > Integer.MAX_VALUE - 8) {
      throw new ResourceRefusedException(String.format(Locale.ROOT,
          "Cannot plan TFCE tiles: a tile holds the whole maps of one %d-replicate window, %d"
              + " replicates x %d voxels, and needs %.3g GB, more than the %.3g GB per-task"
              + " budget (%s). Raise --memory-budget-gb or give the executors more memory.",
          window, window, voxels, bytes / 1e9, perTile.gb(),
          TilePlanner.budgetSourceLabel(perTile)));
    }
    int concurrent = (int) Math.max(1, Math.min(slots, budgetBytes / Math.max(1, bytes)));
    TilePlan plan = new TilePlan(new Grid(Math.max(1, voxels), window), voxels, replicates,
        perTileWindows, concurrent, bytes, 0, perTile.gb(),
        TilePlanner.budgetSourceLabel(perTile));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("layout", "whole_maps_per_replicate_window");
    m.put("reason", String.format(Locale.ROOT, "TFCE needs each replicate's whole map;"
        + " the inputs are on every executor, so each tile computes all %d voxels of its"
        + " replicates (%d windows of %d, %.3g GB of maps and work space) within the %.3g GB"
        + " per-task budget, with no shuffle", voxels, perTileWindows, window, bytes / 1e9,
        perTile.gb()));
    m.put("kernel_grid", kernelGrid.toMap());
    m.put("replicates_per_tile", (long) perTileWindows * window);
    m.put("bytes_per_tile", bytes);
    m.put("statistic_maps", "cpu kernels, per (voxel block, replicate window) cell of the grid");
    m.put("tfce_device", "executor cpu");
    layout = m;
    return plan;
  }

  /** Working set of a tile holding {@code windows} windows of whole maps. */
  long bytesPerTile(int windows) {
    long v = job.inputs.voxels();
    long n = job.inputs.samples();
    long w = job.grid.window();
    long b = Math.min(job.grid.voxelBlock(), v);
    long maps = windows * w * v * 8;
    long kernel = 3 * n * b * 8 + w * n * 8 + 4 * w * b * 8; // one block's kernel and buffer
    long maxima = 3 * windows * w * 9;
    return maps + v * BYTES_PER_VOXEL + kernel + maxima;
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return new Runner(job.spec, job.resampling, job.grid, plan, mask, tfce, clusterThreshold);
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return new Merger(job.spec.tail(), job.spec.fwer(), job.resampling.enumerated(), plan, tfce,
        clusterThreshold);
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>(job.describe());
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("tfce", tfce);
    if (tfce) {
      p.put("tfce_extent_exponent", Tfce.DEFAULT_EXTENT_EXPONENT);
      p.put("tfce_height_exponent", Tfce.DEFAULT_HEIGHT_EXPONENT);
      p.put("tfce_steps", Tfce.DEFAULT_STEPS);
    }
    p.put("cluster_threshold", clusterThreshold);
    p.put("connectivity", 6);
    p.put("grid", new int[] {mask.ni(), mask.nj(), mask.nk()});
    p.put("mask_voxels", mask.voxels());
    m.put("whole_map", p);
    if (layout != null) {
      m.put("plan", layout);
    }
    return m;
  }

  /** Runs one whole-map tile on the executor CPU. */
  private static final class Runner implements TileRunner {
    private static final long serialVersionUID = 1L;
    private final JobSpec spec;
    private final ResamplingPlan resampling;
    private final Grid kernelGrid;
    private final TilePlan plan;
    private final MaskGrid mask;
    private final boolean tfce;
    private final Double clusterThreshold;

    Runner(JobSpec spec, ResamplingPlan resampling, Grid kernelGrid, TilePlan plan, MaskGrid mask,
        boolean tfce, Double clusterThreshold) {
      this.spec = spec;
      this.resampling = resampling;
      this.kernelGrid = kernelGrid;
      this.plan = plan;
      this.mask = mask;
      this.tfce = tfce;
      this.clusterThreshold = clusterThreshold;
    }

    @Override
    public byte[] run(Object data, TileSpec tile, int device) {
      long start = System.nanoTime();
      JobInputs inputs = (JobInputs) data;
      int voxels = inputs.voxels();
      int w = kernelGrid.window();
      long first = plan.windowStart(tile.firstWindow());
      int lastWindow = tile.firstWindow() + tile.windowCount();
      int rows = (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow)) - first);

      // The statistic maps of the tile's replicates, block by block, each (block, window) cell
      // computed by the job's kernel exactly as the voxelwise test computes it.
      double[] maps = new double[rows * voxels];
      double[] observed = new double[voxels];
      double[] buf = new double[w * Math.min(kernelGrid.voxelBlock(), voxels)];
      long flops = 0;
      int undefined = 0;
      for (int block = 0; block < kernelGrid.blocks(voxels); block++) {
        int from = kernelGrid.blockStart(block);
        int to = kernelGrid.blockEnd(block, voxels);
        int b = to - from;
        BlockStatistic kernel = Kernels.create(spec, inputs, resampling, from, to, w);
        kernel.observed(buf);
        System.arraycopy(buf, 0, observed, from, b);
        for (int window = tile.firstWindow(); window < lastWindow; window++) {
          long windowFirst = plan.windowStart(window);
          int windowRows = plan.windowRows(window);
          kernel.compute(windowFirst, windowRows, buf);
          int row0 = (int) (windowFirst - first);
          for (int r = 0; r < windowRows; r++) {
            System.arraycopy(buf, r * b, maps, (row0 + r) * voxels + from, b);
          }
        }
        flops += kernel.flops();
        undefined += kernel.undefinedVoxels();
      }

      Tail tail = spec.tail();
      double[] observedKeys = TfceNullFolder.keys(observed, tail);
      ExceedanceCounter counts = new ExceedanceCounter(voxels);
      NullMaxAccumulator nullMax = new NullMaxAccumulator(first, rows);
      double[] keys = new double[voxels];
      for (int r = 0; r < rows; r++) {
        int base = r * voxels;
        for (int v = 0; v < voxels; v++) {
          keys[v] = tail.key(maps[base + v]);
        }
        counts.update(keys, 0, 1, voxels, observedKeys, 0);
        nullMax.update(keys, 0, 1, voxels, first + r);
      }

      long tfceStart = System.nanoTime();
      long tfceCpuStart = threadCpuNanos();
      double[] observedTfce = null;
      ExceedanceCounter tfceCounts = null;
      NullMaxAccumulator tfceNullMax = null;
      if (tfce) {
        Tfce enhancer = new Tfce(mask);
        observedTfce = enhancer.enhance(observed, tail);
        TfceNullFolder folder = new TfceNullFolder(enhancer, tail, observedTfce);
        tfceCounts = new ExceedanceCounter(voxels);
        tfceNullMax = new NullMaxAccumulator(first, rows);
        folder.fold(maps, 0, rows, first, tfceNullMax, tfceCounts);
      }
      long tfceNanos = System.nanoTime() - tfceStart;
      long tfceCpuNanos = threadCpuNanos() - tfceCpuStart;
      double[] observedClusters = null;
      NullMaxAccumulator clusterNullMax = null;
      if (clusterThreshold != null) {
        ClusterExtent clusters = new ClusterExtent(mask, clusterThreshold, tail);
        int[] sizes = clusters.sizes(observed);
        observedClusters = new double[voxels];
        for (int v = 0; v < voxels; v++) {
          observedClusters[v] = sizes[v];
        }
        double[] largest = new double[rows];
        clusters.largestPerRow(maps, 0, rows, largest);
        clusterNullMax = new NullMaxAccumulator(first, rows);
        clusterNullMax.updateRowMaxima(largest, rows, first);
      }
      long end = System.nanoTime();
      boolean firstTile = tile.firstWindow() == 0;
      return new TfcePartial(tile, firstTile ? observed : null,
          firstTile ? observedTfce : null, firstTile ? observedClusters : null, counts, nullMax,
          tfceCounts, tfceNullMax, clusterNullMax, flops, end - start, tfceNanos, tfceCpuNanos,
          tfce ? rows + 1L : 0, firstTile ? undefined : 0).toBytes();
    }
  }

  /** CPU time of this thread (ns), or 0 where the JVM does not measure it. */
  static long threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
  }

  /**
   * The driver side: sums counts, merges maxima, keeps the observed maps of the first tile. Exact
   * integer and max merges, so any arrival order gives the same bits. Thread-safe.
   */
  private static final class Merger implements TileMerger {
    private final Tail tail;
    private final boolean fwer;
    private final boolean enumerated;
    private final TilePlan plan;
    private final boolean tfce;
    private final Double clusterThreshold;
    private final BitSet seen = new BitSet();
    private final long[] counts;
    private final long[] tfceCounts;
    private final NullMaxAccumulator nullMax;
    private final NullMaxAccumulator tfceNullMax;
    private final NullMaxAccumulator clusterNullMax;
    private double[] observed;
    private double[] observedTfce;
    private double[] observedClusters;
    private int received;
    private int undefined;
    private long flops;
    private long kernelNanos;
    private long tfceNanos;
    private long tfceCpuNanos;
    private long mapsEnhanced;

    Merger(Tail tail, boolean fwer, boolean enumerated, TilePlan plan, boolean tfce,
        Double clusterThreshold) {
      this.tail = tail;
      this.fwer = fwer;
      this.enumerated = enumerated;
      this.plan = plan;
      this.tfce = tfce;
      this.clusterThreshold = clusterThreshold;
      int voxels = plan.voxels();
      int replicates = (int) plan.replicates();
      this.counts = new long[voxels];
      this.tfceCounts = tfce ? new long[voxels] : null;
      this.nullMax = new NullMaxAccumulator(0, replicates);
      this.tfceNullMax = tfce ? new NullMaxAccumulator(0, replicates) : null;
      this.clusterNullMax = clusterThreshold != null ? new NullMaxAccumulator(0, replicates)
          : null;
    }

    @Override
    public synchronized void add(byte[] bytes) {
      TfcePartial part = TfcePartial.fromBytes(bytes);
      int index = part.tile.index();
      if (seen.get(index)) {
        throw new IllegalStateException("[BUG] tile " + index + " was merged twice");
      }
      seen.set(index);
      received++;
      flops += part.flops;
      kernelNanos += part.kernelNanos;
      tfceNanos += part.tfceNanos;
      tfceCpuNanos += part.tfceCpuNanos;
      mapsEnhanced += part.mapsEnhanced;
      add(counts, part.counts);
      nullMax.merge(part.nullMax);
      if (tfce) {
        add(tfceCounts, part.tfceCounts);
        tfceNullMax.merge(part.tfceNullMax);
      }
      if (clusterNullMax != null) {
        clusterNullMax.merge(part.clusterNullMax);
      }
      if (part.observed != null) {
        observed = part.observed;
        observedTfce = part.observedTfce;
        observedClusters = part.observedClusters;
        undefined = part.undefinedVoxels;
      }
    }

    private static void add(long[] into, ExceedanceCounter counter) {
      long[] c = counter.counts();
      for (int v = 0; v < c.length; v++) {
        into[v] += c[v];
      }
    }

    @Override
    public synchronized Result finish() {
      if (received != plan.tileCount() || observed == null) {
        throw new IllegalStateException("[BUG] merged " + received + " of " + plan.tileCount()
            + " TFCE tiles");
      }
      long p = plan.replicates();
      double[] keys = TfceNullFolder.keys(observed, tail);
      double[] maxima = nullMax.maxima();
      PermutationResult voxelwise = new PermutationResult(observed,
          PValues.fromCounts(counts, p, keys, enumerated),
          fwer ? PValues.fwer(maxima, keys, enumerated) : null, fwer ? maxima : null, p,
          enumerated, undefined);
      Map<String, Object> facts = new LinkedHashMap<>();
      double[] pTfce = null;
      double[] pFwerTfce = null;
      double[] tfceMaxima = null;
      if (tfce) {
        double[] tfceKeys = TfceNullFolder.keys(observedTfce, tail);
        pTfce = PValues.fromCounts(tfceCounts, p, tfceKeys, enumerated);
        facts.put("p_tfce_below_0_05", Findings.countBelow(pTfce, 0.05));
        if (fwer) {
          tfceMaxima = tfceNullMax.maxima();
          pFwerTfce = PValues.fwer(tfceMaxima, tfceKeys, enumerated);
          facts.put("p_fwer_tfce_below_0_05", Findings.countBelow(pFwerTfce, 0.05));
        }
        facts.put("tfce_maps", mapsEnhanced);
        facts.put("tfce_seconds", tfceNanos / 1e9);
        facts.put("tfce_ms_per_map", mapsEnhanced == 0 ? 0.0 : tfceNanos / 1e6 / mapsEnhanced);
        // CPU time as well as wall time: on a shared machine it is the fairer measure.
        facts.put("tfce_cpu_ms_per_map",
            mapsEnhanced == 0 ? 0.0 : tfceCpuNanos / 1e6 / mapsEnhanced);
      }
      double[] pFwerCluster = null;
      double[] clusterMaxima = null;
      if (clusterThreshold != null) {
        int significant = 0;
        int largest = 0;
        for (double s : observedClusters) {
          largest = Math.max(largest, (int) s);
        }
        facts.put("cluster_threshold", clusterThreshold);
        facts.put("largest_cluster", largest);
        if (fwer) {
          double[] sizeKeys = new double[observedClusters.length];
          for (int v = 0; v < sizeKeys.length; v++) {
            sizeKeys[v] = Double.isNaN(observed[v]) ? Double.NaN : observedClusters[v];
          }
          clusterMaxima = clusterNullMax.maxima();
          pFwerCluster = PValues.fwer(clusterMaxima, sizeKeys, enumerated);
          for (int v = 0; v < sizeKeys.length; v++) {
            significant += observedClusters[v] > 0 && pFwerCluster[v] < 0.05 ? 1 : 0;
          }
          facts.put("p_fwer_cluster_below_0_05", significant);
        }
      }
      return new TfceResult(voxelwise, observedTfce, pTfce, pFwerTfce, tfceMaxima,
          observedClusters, pFwerCluster, clusterMaxima, facts);
    }

    @Override
    public synchronized long flops() {
      return flops;
    }

    @Override
    public synchronized long kernelNanos() {
      return kernelNanos;
    }
  }
}
