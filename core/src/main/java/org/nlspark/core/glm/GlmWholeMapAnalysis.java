package org.nlspark.core.glm;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.DriverMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Result;
import org.nlspark.core.tfce.MapSlice;
import org.nlspark.core.tfce.TfcePartial;
import org.nlspark.core.tfce.VarianceSmoothing;
import org.nlspark.core.tfce.WholeMapInference;
import org.nlspark.core.tfce.WholeMapMerge;
import org.nlspark.core.tfce.WholeMapPartial;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileLedger;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.SlicedTileRunner;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileSpec;

/**
 * The general linear model with TFCE and/or cluster-extent inference on every contrast (DESIGN
 * §9): {@code glm --tfce}, {@code --cluster-threshold T}.
 *
 * <p><b>Layout</b>: as the permutation tests' TFCE ({@link
 * org.nlspark.core.tfce.TfceAnalysis}), a tile holds all voxels for a run of replicate windows
 * ({@link WholeMapInference#plan}). For each contrast in turn it computes its replicates' maps
 * block by block with the Freedman–Lane kernel ({@link GlmContrastStatistic}) on the same fixed
 * grid cells as {@link GlmAnalysis} (so {@code tstat{c}}, {@code p_tstat{c}}, {@code
 * p_fwer_tstat{c}} are the same bits as without whole-map inference), then folds them with
 * {@link WholeMapInference#fold}: one {@link WholeMapPartial} per contrast. A contrast whose draws
 * are enumerated may have fewer replicates than the tile's windows reach; it folds only its own.
 * The driver merges one {@link WholeMapMerge} per contrast and makes every output in {@link
 * GlmRun#assemble}.
 *
 * <p><b>Samples held by executors</b> (voxel blocks, DESIGN §8): the same tiles run in two
 * stages ({@link SlicedTileRunner}): where each block is held, the same kernels compute the
 * block's columns of every contrast's maps for the tile's windows ({@link MapSlice}); one
 * shuffle brings a tile's slices to one task, which holds every contrast's whole maps of its
 * windows at once and folds them as above. {@link #bytesPerTile} then counts all contrasts'
 * maps, so the one planner sizes the windows to the executor budget.
 *
 * <p>Each contrast's map is enhanced with its own tail ({@link GlmRun#tailOf}: F is upper), with
 * the same E, H and steps for t and F maps, and FWER is by the largest TFCE score (largest
 * cluster) of each replicate's map of that contrast. {@code --fwer-across-contrasts} still makes
 * the voxelwise {@code p_cfwer_*}; DESIGN §9 does not say how TFCE scores or cluster sizes of
 * different contrasts combine, so there are no whole-map {@code p_cfwer} maps (summary.json says
 * so).
 *
 * <p>With variance smoothing ({@code --variance-smoothing}, {@link VarianceSmoothing}) the
 * kernels also give each draw's variance map, which travels with its t map; once a contrast's
 * maps are whole, every draw's t map (the observed one first) becomes its pseudo-t, and
 * everything after (p, FWER, clusters, TFCE) is of the pseudo-t. That is the one point where the
 * transform is called; it may be the only whole-map work asked for. On voxel blocks a slice
 * carries 2C statistics for C contrasts: statistic c is contrast c's t, statistic C + c its
 * variance (the same kernel call gives both); the assembling task transforms each contrast's
 * whole maps exactly as {@link Runner#run} does before it folds them, and {@link #bytesPerTile}
 * counts the variance maps and the smoother's buffers.
 */
public final class GlmWholeMapAnalysis implements TileAnalysis {
  private final GlmAnalysis glm;
  private final WholeMapInference wholeMap;
  private final VarianceSmoothing smoothing; // null: none

  GlmWholeMapAnalysis(GlmAnalysis glm, WholeMapInference wholeMap, VarianceSmoothing smoothing) {
    this.glm = glm;
    this.wholeMap = wholeMap;
    this.smoothing = smoothing;
  }

  /**
   * The one refusal of variance smoothing with F contrasts (exit 2): the pseudo-t has no F
   * counterpart in randomise's definition.
   */
  public static void requireTContrasts(long fContrasts) {
    if (fContrasts > 0) {
      throw new InvalidInputException("Cannot smooth the variance of F contrasts:"
          + " --variance-smoothing makes pseudo-t statistics of t contrasts only (as randomise"
          + " -v), but " + fContrasts + " F contrast" + (fContrasts == 1 ? " was" : "s were")
          + " given; drop --f-contrasts or --variance-smoothing");
    }
  }

  /** Null without variance smoothing. */
  public VarianceSmoothing varianceSmoothing() {
    return smoothing;
  }

  public GlmModel model() {
    return glm.model();
  }

  public GlmRun.Options options() {
    return glm.options();
  }

  @Override
  public String command() {
    return glm.command();
  }

  @Override
  public Serializable data() {
    return glm.data();
  }

  @Override
  public Backend backend() {
    return glm.backend();
  }

  @Override
  public Double requestedBudgetGb() {
    return glm.requestedBudgetGb();
  }

  @Override
  public long replicates() {
    return glm.replicates();
  }

  /** glm's and, per contrast, one per whole-map statistic. */
  @Override
  public DriverMemory.Need driverMemory() {
    return glm.driverMemory().plus(DriverMemory.nullDistributions(replicates(),
        glm.options().fwer() ? glm.model().contrasts().size()
            * org.nlspark.core.tfce.TfceAnalysis.wholeMapNulls(wholeMap.settings()) : 0))
        .plus(DriverMemory.wholeMaps(wholeMap.mask().voxels(), glm.model().contrasts().size()));
  }

  @Override
  public TileShape shape(MemoryBudget budget) {
    return wholeMap.shape(glm.options().grid(), replicates());
  }

  /**
   * A tile's working set: one contrast's maps at a time, one block's kernel and window (as
   * {@link GlmAnalysis} sizes them), and per contrast the partial it keeps until the tile ends
   * (observed maps, two count arrays, three maxima).
   */
  @Override
  public long bytesPerTile(int windows) {
    Grid grid = glm.options().grid();
    GlmModel model = glm.model();
    long n = model.samples();
    int voxels = wholeMap.mask().voxels();
    long b = Math.min(grid.voxelBlock(), voxels);
    long w = grid.window();
    long q = model.rank();
    long kernel = 3 * n * b * 8 + w * q * n * 8 + 2 * w * q * b * 8 + w * b * 8
        + wholeMap.gridBytes();
    long contrasts = model.contrasts().size();
    long partials = contrasts * (voxels * 40L + 3L * windows * w * 9);
    // The smoother's two grid buffers (at most the whole grid), its three masked maps and the
    // defined flags, and the kernel's window of variances.
    long grid3 = wholeMap.mask() instanceof org.nlspark.core.tfce.MaskGrid g
        ? (long) g.ni() * g.nj() * g.nk() : 0; // smoothing runs on grids only
    long smoother = smoothing == null ? 0 : 2 * grid3 * 8 + 4L * voxels * 8 + w * b * 8;
    long rows = WholeMapInference.rowsOf(windows, (int) w, replicates());
    if (glm.data() == null) { // voxel blocks: a task holds every contrast's maps at once
      // with smoothing each contrast's variance maps too (statistics C .. 2C - 1 of a slice)
      int statistics = (int) contrasts * (smoothing == null ? 1 : 2);
      return WholeMapInference.slicedTileBytes(rows, statistics, voxels,
          kernel + n * b * 4 + partials + smoother);
    }
    if (smoothing != null) {
      // Each draw's variance map beside its t map.
      kernel += rows * voxels * 8 + smoother;
    }
    return WholeMapInference.tileBytes(rows, voxels, kernel + partials);
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return new Runner(glm.model(), glm.options(), glm.draws(), plan, wholeMap, smoothing,
        glm.centreBlocks());
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return new Merger(glm.model(), glm.options(), glm.draws(), plan, wholeMap);
  }

  @Override
  public Map<String, Object> describe(TilePlan plan) {
    Map<String, Object> m = describe();
    m.put("plan", wholeMap.layout(glm.options().grid(), plan, "glm freedman-lane kernels, per"
        + " contrast and (voxel block, replicate window) cell of the grid"));
    if (smoothing != null) {
      @SuppressWarnings("unchecked")
      Map<String, Object> layout = (Map<String, Object>) m.get("plan");
      layout.put("whole_maps_for", "variance smoothing: each draw's variance map is smoothed"
          + " over the whole grid before its pseudo-t is compared"
          + (wholeMap.settings().any() ? ", and " + wholeMap.flags() : ""));
    }
    return m;
  }

  /**
   * The whole-map inference of contrast {@code c}: on z (a surface), an F contrast's TFCE and
   * clusters see z of its F with (rank, n − rank(X)) degrees of freedom, a t contrast's z of t.
   */
  static WholeMapInference ofContrast(WholeMapInference wholeMap, GlmContrast c) {
    return wholeMap.onZ() && c.kind() == GlmContrast.Kind.F ? wholeMap.onZOfF(c.rank()) : wholeMap;
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>(glm.describe());
    Map<String, Object> p = new LinkedHashMap<>(wholeMap.describe());
    if (wholeMap.onZ()) {
      Map<String, Object> fOnZ = new LinkedHashMap<>();
      for (GlmContrast c : glm.model().contrasts()) {
        if (c.kind() == GlmContrast.Kind.F) {
          fOnZ.put(c.outputName(), ofContrast(wholeMap, c).describe().get("on_z_of_f_with_df"));
        }
      }
      if (!fOnZ.isEmpty()) {
        p.put("f_contrasts_on_z_of_f_with_df", fOnZ);
      }
    }
    if (smoothing != null) {
      p.put("variance_smoothing", smoothing.describe());
      @SuppressWarnings("unchecked")
      Map<String, Object> parameters = (Map<String, Object>) m.get("parameters");
      Map<String, Object> withSigma = new LinkedHashMap<>(parameters);
      withSigma.put("variance_smoothing_mm", smoothing.sigmaMm());
      withSigma.put("statistic", "pseudo-t (variance smoothing): tstat{c} and every p-value,"
          + " cluster and TFCE map are of t * sqrt(variance / smoothed variance)");
      m.put("parameters", withSigma);
    }
    p.put("per_contrast", "each contrast's maps with its own tail (F upper); FWER by the largest"
        + " score (cluster) of each replicate's map of that contrast");
    if (glm.options().fwerAcrossContrasts()) {
      p.put("fwer_across_contrasts", "voxelwise statistics only (p_cfwer_*): DESIGN §9 does not"
          + " say how TFCE scores or cluster sizes of different contrasts combine");
    }
    m.put("whole_map", p);
    return m;
  }

  /**
   * Runs one tile: every contrast's whole maps over the tile's windows, on the executor CPU
   * ({@link #run} on the whole samples; {@link #slice} and {@link #assemble} on voxel blocks).
   */
  private static final class Runner implements SlicedTileRunner {
    private static final long serialVersionUID = 1L;
    private final GlmModel model;
    private final GlmRun.Options options;
    private final List<GlmDraws> draws;
    private final TilePlan plan;
    private final WholeMapInference wholeMap;
    private final VarianceSmoothing smoothing;
    private final boolean centreBlocks;
    /** Whether the kernels count on z of v and G (variance groups): their maps travel too. */
    private final boolean onZ;

    Runner(GlmModel model, GlmRun.Options options, List<GlmDraws> draws, TilePlan plan,
        WholeMapInference wholeMap, VarianceSmoothing smoothing, boolean centreBlocks) {
      this.model = model;
      this.options = options;
      this.draws = draws;
      this.plan = plan;
      this.wholeMap = wholeMap;
      this.smoothing = smoothing;
      this.centreBlocks = centreBlocks;
      this.onZ = model.varianceGroups() != null;
    }

    @Override
    public byte[] run(Object input, TileSpec tile, int device) {
      long start = System.nanoTime();
      DataMatrix y = ((GlmAnalysis.Data) input).y();
      int voxels = y.cols();
      Grid grid = options.grid();
      int w = grid.window();
      long first = plan.windowStart(tile.firstWindow());
      long tileEnd = Math.min(plan.replicates(),
          plan.windowStart(tile.firstWindow() + tile.windowCount()));
      boolean holdsObserved = tile.firstWindow() == 0;
      double[] maps = new double[(int) (tileEnd - first) * voxels];
      double[] buf = new double[w * Math.min(grid.voxelBlock(), voxels)];
      // Each draw's variance map beside its t map, for variance smoothing only.
      double[] variances = smoothing == null ? null : new double[maps.length];
      double[] varBuf = smoothing == null ? null : new double[buf.length];
      List<WholeMapPartial> parts = new ArrayList<>();
      long flops = 0;
      for (int ci = 0; ci < draws.size(); ci++) {
        GlmContrast c = model.contrasts().get(ci);
        GlmDraws d = draws.get(ci);
        long end = Math.min(d.replicates(), tileEnd);
        int rows = (int) Math.max(0, end - first);
        double[] observed = new double[voxels];
        double[] written = null; // v or G, where observed holds their z
        double[] observedVariance = smoothing == null ? null : new double[voxels];
        int undefined = 0;
        for (int block = 0; block < grid.blocks(voxels); block++) {
          int from = grid.blockStart(block);
          int to = grid.blockEnd(block, voxels);
          int b = to - from;
          GlmContrastStatistic k = new GlmContrastStatistic(model, c, d, y.copyColumns(from, to),
              b, w, options.precision());
          k.observed(buf, varBuf);
          System.arraycopy(buf, 0, observed, from, b);
          if (k.onZ()) {
            written = written == null ? new double[voxels] : written;
            k.observedStatistic(buf);
            System.arraycopy(buf, 0, written, from, b);
          }
          if (varBuf != null) {
            System.arraycopy(varBuf, 0, observedVariance, from, b);
          }
          // Windows of the fixed grid, as GlmRun and GlmAnalysis compute them.
          for (long wFirst = first; wFirst < end; wFirst += w) {
            int wRows = (int) Math.min(w, end - wFirst);
            k.compute(wFirst, wRows, buf, varBuf);
            int row0 = (int) (wFirst - first);
            for (int r = 0; r < wRows; r++) {
              System.arraycopy(buf, r * b, maps, (row0 + r) * voxels + from, b);
              if (varBuf != null) {
                System.arraycopy(varBuf, r * b, variances, (row0 + r) * voxels + from, b);
              }
            }
          }
          flops += k.flops();
          undefined += k.undefinedVoxels();
        }
        if (smoothing != null) {
          // The one map transform of the per-draw loop: every draw's t becomes its pseudo-t.
          VarianceSmoothing.Maps transform = smoothing.forMaps(observedVariance, 0);
          transform.apply(observed, 0, observedVariance, 0);
          for (int r = 0; r < rows; r++) {
            transform.apply(maps, r * voxels, variances, r * voxels);
          }
        }
        Tail tail = GlmRun.tailOf(c, options.tTail());
        parts.add(ofContrast(wholeMap, c).fold(tail, observed, maps, rows, first, holdsObserved,
            undefined).withWritten(written));
      }
      return new TfcePartial(tile, flops, System.nanoTime() - start, parts).toBytes();
    }

    /** Each contrast's replicates in the tile (its own count when its draws are enumerated). */
    private int[] rowsOf(TileSpec tile) {
      long first = plan.windowStart(tile.firstWindow());
      long tileEnd = Math.min(plan.replicates(),
          plan.windowStart(tile.firstWindow() + tile.windowCount()));
      int[] rows = new int[draws.size()];
      for (int ci = 0; ci < rows.length; ci++) {
        rows[ci] = (int) Math.max(0, Math.min(draws.get(ci).replicates(), tileEnd) - first);
      }
      return rows;
    }

    /**
     * The slice's rows of each statistic: per contrast, then (smoothing) per variance; with
     * variance groups (their z counted) one more per contrast without rows, whose observed map is
     * v or G as written.
     */
    private int[] sliceRowsOf(TileSpec tile) {
      int[] rows = rowsOf(tile);
      if (smoothing == null && !onZ) {
        return rows;
      }
      int[] both = java.util.Arrays.copyOf(rows, 2 * rows.length);
      if (smoothing != null) { // never with variance groups (refused)
        System.arraycopy(rows, 0, both, rows.length, rows.length);
      }
      return both;
    }

    /**
     * Stage 1 on a held voxel block: its columns of every contrast's observed and replicate
     * maps for the tile, by the same kernels, blocks and windows as {@link #run}; with variance
     * smoothing also every draw's variance (statistic C + c for contrast c of C).
     */
    @Override
    public byte[] slice(Object input, int blockIndex, TileSpec tile, int device) {
      DataMatrix y = ((JobInputs) input).x();
      Grid grid = options.grid();
      int w = grid.window();
      int from = grid.blockStart(blockIndex);
      int b = grid.blockEnd(blockIndex, y.cols()) - from;
      double[] block = y.copyColumns(from, from + b);
      if (centreBlocks) {
        GlmDemean.centreColumns(block, y.rows(), b);
      }
      long first = plan.windowStart(tile.firstWindow());
      int[] rows = rowsOf(tile);
      int contrasts = draws.size();
      MapSlice.Writer out = new MapSlice.Writer(tile, blockIndex, from, b, sliceRowsOf(tile));
      double[] buf = new double[w * b];
      double[] varBuf = smoothing == null ? null : new double[w * b];
      long flops = 0;
      for (int ci = 0; ci < contrasts; ci++) {
        GlmContrastStatistic k = new GlmContrastStatistic(model, model.contrasts().get(ci),
            draws.get(ci), block, b, w, options.precision());
        k.observed(buf, varBuf);
        out.observed(ci, buf);
        if (varBuf != null) {
          out.observed(contrasts + ci, varBuf);
        }
        if (onZ) {
          k.observedStatistic(buf);
          out.observed(contrasts + ci, buf);
        }
        long end = first + rows[ci];
        for (long wFirst = first; wFirst < end; wFirst += w) {
          int wRows = (int) Math.min(w, end - wFirst);
          k.compute(wFirst, wRows, buf, varBuf);
          out.rows(ci, (int) (wFirst - first), buf, wRows);
          if (varBuf != null) {
            out.rows(contrasts + ci, (int) (wFirst - first), varBuf, wRows);
          }
        }
        flops += k.flops();
        out.undefinedVoxels(ci, k.undefinedVoxels());
      }
      out.flops(flops);
      return out.toBytes();
    }

    /**
     * Stage 2: every contrast's whole maps from the blocks' slices, with variance smoothing
     * turned into pseudo-t maps in {@link #run}'s order, and folded as {@link #run}.
     */
    @Override
    public byte[] assemble(TileSpec tile, int blocks, java.util.Iterator<byte[]> slices) {
      long start = System.nanoTime();
      int voxels = wholeMap.mask().voxels();
      MapSlice.Assembly maps = new MapSlice.Assembly(tile, voxels, blocks, sliceRowsOf(tile));
      while (slices.hasNext()) {
        maps.add(slices.next());
      }
      maps.checkComplete();
      long first = plan.windowStart(tile.firstWindow());
      int contrasts = draws.size();
      List<WholeMapPartial> parts = new ArrayList<>();
      for (int ci = 0; ci < contrasts; ci++) {
        double[] observed = maps.observed(ci);
        double[] replicateMaps = maps.maps(ci);
        int rows = maps.rows(ci);
        if (smoothing != null) {
          // As run: the observed variance fixes the defined voxels, then every draw's pseudo-t.
          double[] observedVariance = maps.observed(contrasts + ci);
          double[] variances = maps.maps(contrasts + ci);
          VarianceSmoothing.Maps transform = smoothing.forMaps(observedVariance, 0);
          transform.apply(observed, 0, observedVariance, 0);
          for (int r = 0; r < rows; r++) {
            transform.apply(replicateMaps, r * voxels, variances, r * voxels);
          }
        }
        GlmContrast c = model.contrasts().get(ci);
        parts.add(ofContrast(wholeMap, c).fold(GlmRun.tailOf(c, options.tTail()), observed,
            replicateMaps, rows, first, tile.firstWindow() == 0, maps.undefinedVoxels(ci))
            .withWritten(onZ ? maps.observed(contrasts + ci) : null));
      }
      return new TfcePartial(tile, maps.flops(), System.nanoTime() - start, parts).toBytes();
    }
  }

  /** One {@link WholeMapMerge} per contrast; outputs made by {@link GlmRun#assemble}. */
  private static final class Merger implements TileMerger {
    private final GlmModel model;
    private final GlmRun.Options options;
    private final List<GlmDraws> draws;
    private final TilePlan plan;
    private final List<WholeMapMerge> merges = new ArrayList<>();
    private final TileLedger ledger;

    Merger(GlmModel model, GlmRun.Options options, List<GlmDraws> draws, TilePlan plan,
        WholeMapInference wholeMap) {
      this.model = model;
      this.options = options;
      this.draws = draws;
      this.plan = plan;
      this.ledger = TileLedger.of(plan, "glm TFCE tiles");
      for (int ci = 0; ci < draws.size(); ci++) {
        GlmContrast c = model.contrasts().get(ci);
        merges.add(new WholeMapMerge(wholeMap, GlmRun.tailOf(c, options.tTail()),
            draws.get(ci).replicates()));
      }
    }

    @Override
    public synchronized void add(byte[] bytes) {
      TfcePartial part = TfcePartial.fromBytes(bytes);
      int index = part.tile.index();
      if (part.statistics.size() != merges.size()) {
        throw new IllegalStateException("[BUG] tile " + index + " has " + part.statistics.size()
            + " contrasts, the model " + merges.size());
      }
      ledger.record(index, part.flops, part.kernelNanos);
      for (int ci = 0; ci < merges.size(); ci++) {
        merges.get(ci).add(part.statistics.get(ci));
      }
    }

    @Override
    public synchronized Result finish() {
      ledger.checkComplete();
      List<GlmRun.ContrastTotals> totals = new ArrayList<>();
      List<Map<String, double[]>> wholeMaps = new ArrayList<>();
      Map<String, Object> facts = new LinkedHashMap<>();
      for (int ci = 0; ci < merges.size(); ci++) {
        GlmContrast c = model.contrasts().get(ci);
        WholeMapMerge.Totals t = merges.get(ci).finish(options.fwer(),
            draws.get(ci).enumerated(), "contrast " + c.outputName());
        totals.add(new GlmRun.ContrastTotals(t.observed(), t.counts(),
            options.fwer() ? t.maxima() : null, t.undefinedVoxels(), merges.get(ci).written()));
        wholeMaps.add(t.outputs(c.outputName()));
        facts.put(c.outputName(), t.facts());
      }
      return GlmRun.assemble(model, options, draws, totals, wholeMaps, facts);
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
