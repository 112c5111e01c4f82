package org.nlspark.core.glm;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendSupport;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.DriverMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.result.Result;
import org.nlspark.core.result.TailApproximation;
import org.nlspark.core.stats.ParetoTail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileLedger;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.PartialBytes;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.core.tile.VoxelNullTails;

/**
 * The general linear model (DESIGN §9) as an analysis of the tile pipeline. Tiles are voxel
 * block x run of replicate windows on the fixed grid, as for the resampling commands; a tile
 * loops over the contrasts (t, then F) and, per contrast, builds the Freedman-Lane kernel
 * ({@link GlmContrastStatistic}) from its block, computes the windows the contrast has (its own
 * replicate count when its draws are enumerated), and sends the exceedance counts and
 * per-replicate maxima of the extremeness key; the tile holding window 0 also sends the observed
 * statistic. Counts add and maxima take the maximum, so the merge is exact in any order and the
 * result is bit for bit {@link GlmRun#run}'s, whatever the partitioning or retries.
 *
 * <p>FWER over contrasts needs no extra partial: z is increasing in the key, so each replicate's
 * maximum z is the z of the per-contrast maxima, formed once in {@link GlmRun#assemble}.
 *
 * <p>TFCE and cluster extent ({@link #withWholeMaps}) need every voxel of a replicate's map at
 * once: {@link GlmWholeMapAnalysis} runs the same per-contrast kernels on the same grid cells in
 * tiles that hold all voxels for a run of replicate windows.
 */
public final class GlmAnalysis implements TileAnalysis {
  /** The data every tile reads: Y (samples x voxels). */
  public record Data(DataMatrix y) implements Serializable {}

  private final Data data; // null when the samples are held by executors (voxel blocks)
  private final int samples;
  private final int voxels;
  private final GlmModel model;
  /** The request's options with their errors resolved for this model. */
  private final GlmRun.Options options;
  private final List<GlmDraws> draws;
  private final Backend backend;
  private final GlmRequest request;
  private final Map<String, Object> sources;
  /** {@code --tail-approximation}: tiles keep each voxel's largest null keys per contrast. */
  private final boolean tailApproximation;
  /** Whether each tile centres its block's columns (--demean on executor-held samples). */
  private boolean centreBlocks;

  /** Y whole ({@code data}), or only its shape where executors hold it as voxel blocks. */
  private record Held(Data data, int samples, int voxels) {}

  /** What the model and the request plan: the resolved options, each contrast's draws. */
  private record Plan(GlmModel model, GlmRun.Options options, List<GlmDraws> draws,
      Backend backend) {}

  private GlmAnalysis(Held held, Plan plan, GlmRequest request, Map<String, Object> sources,
      boolean tailApproximation) {
    this.data = held.data();
    this.samples = held.samples();
    this.voxels = held.voxels();
    this.model = plan.model();
    this.options = plan.options();
    this.draws = plan.draws();
    this.backend = plan.backend();
    this.request = request;
    this.sources = sources;
    this.tailApproximation = tailApproximation;
  }

  /**
   * The same analysis whose tiles keep, with {@code tail} true, each voxel's largest null keys
   * of every contrast whose draws are not enumerated, so that each uncorrected p below 0.1 is
   * refined by a generalised Pareto fit to the voxel's own null (DESIGN §4, {@code
   * --tail-approximation}); the cost is 2·k keys per voxel and contrast (an upper-only {@link
   * TailAccumulator}, k = {@link ParetoTail#retainedTailSize}(P)).
   */
  public GlmAnalysis withTailApproximation(boolean tail) {
    if (tail == tailApproximation) {
      return this;
    }
    Map<String, Object> s = new LinkedHashMap<>(sources);
    if (tail) {
      s.put("tail_approximation", true);
    } else {
      s.remove("tail_approximation");
    }
    GlmAnalysis copy = new GlmAnalysis(new Held(data, samples, voxels),
        new Plan(model, options, draws, backend), request, s, tail);
    copy.centreBlocks = centreBlocks;
    return copy;
  }

  /** k of contrast {@code c}'s null tails, 0 when none are kept. */
  int nullTailSize(int c) {
    return nullTailSize(tailApproximation, draws.get(c));
  }

  private static int nullTailSize(boolean tailApproximation, GlmDraws d) {
    return tailApproximation && !d.enumerated() ? ParetoTail.retainedTailSize(d.replicates())
        : 0;
  }

  /**
   * Validates everything (data, design, contrasts, blocks, draws) before any work; every refusal
   * is an {@link InvalidInputException} (exit 2) or, for a GPU request, a
   * {@link ResourceRefusedException} (exit 3). With {@link GlmRequest#demean} the data and the
   * design columns are centred first and the intercept removed ({@link GlmDemean}), which
   * summary.json's parameters record.
   */
  public static GlmAnalysis prepare(DataMatrix y, GlmDesign design, GlmContrasts contrasts,
      GlmRequest request) {
    checkData(y);
    GlmDemean.Demeaned d = request.demean() ? GlmDemean.apply(y, design, contrasts) : null;
    DataMatrix used = d == null ? y : d.y();
    return prepare(new Held(new Data(used), used.rows(), used.cols()), d, design, contrasts,
        request);
  }

  /** {@link #prepare(DataMatrix, GlmDesign, GlmContrasts, GlmRequest)} on the CPU. */
  public static GlmAnalysis prepare(DataMatrix y, GlmDesign design, GlmContrasts contrasts,
      GlmRun.Options options, String backendRequested, Double memoryBudgetGb) {
    return prepare(y, design, contrasts,
        new GlmRequest(options, backendRequested, memoryBudgetGb, false));
  }

  /**
   * As {@link #prepare(DataMatrix, GlmDesign, GlmContrasts, GlmRequest)} for samples that
   * executors hold as voxel blocks (DESIGN §8): only their shape is here, and each tile gets its
   * block as {@link JobInputs} (a column window of Y). The plan, draws and outputs are those of
   * the in-memory analysis of the same values. With {@link GlmRequest#demean} the design is
   * centred here ({@link GlmDemean#design}) and every tile centres its block's columns where
   * the block is held ({@link GlmDemean#centreColumns}): a voxel's mean is a per-block
   * quantity, and its bits are those of centring the whole matrix.
   */
  public static GlmAnalysis prepareOnExecutors(int samples, int voxels, GlmDesign design,
      GlmContrasts contrasts, GlmRequest request) {
    checkSamples(samples);
    GlmDemean.Demeaned d = request.demean() ? GlmDemean.design(design, contrasts) : null;
    GlmAnalysis a = prepare(new Held(null, samples, voxels), d, design, contrasts, request);
    a.centreBlocks = request.demean();
    return a;
  }

  /** The model planned on {@code held}, from the demeaned design and contrasts where given. */
  private static GlmAnalysis prepare(Held held, GlmDemean.Demeaned demeaned, GlmDesign design,
      GlmContrasts contrasts, GlmRequest request) {
    if (demeaned != null) {
      design = demeaned.design();
      contrasts = demeaned.contrasts();
    }
    String requested = request.backendRequested();
    BackendSupport.CPU_ONLY.check("glm", requested);
    GlmRun.Options options = request.options();
    if (options.varianceGroups() != null) {
      options = options.withVarianceGroups(options.varianceGroups().resolve(options.blocks(),
          options.blocksSource(), options.wholeBlocks(), held.samples()));
    }
    GlmModel model = GlmModel.prepare(design, contrasts, held.samples())
        .withVarianceGroups(options.varianceGroups());
    GlmRun.Options o = options.errors() == null
        ? options.withErrors(GlmRun.defaultErrors(model)) : options;
    List<GlmDraws> draws = GlmRun.drawsOf(model, o, options.errors() != null);
    MemoryBudget.checkExplicit(request.memoryBudgetGb());
    Map<String, Object> sources = new LinkedHashMap<>();
    sources.put("design", design.source());
    sources.put("contrasts", contrasts.source());
    sources.put("f_contrasts", contrasts.f().length == 0 ? null : contrasts.fSource());
    sources.put("exchangeability_blocks", o.blocks() == null ? null : o.blocksSource());
    if (options.varianceGroups() != null) {
      sources.putAll(options.varianceGroups().toMap());
      sources.put("statistic", model.varianceGroups() == null ? "t and F (one variance group)"
          : "v and G (Aspin-Welch, Welch; Winkler et al. 2014); every p-value, maximum, TFCE"
          + " and cluster is of their z, through t or F with each voxel's and draw's own"
          + " Welch degrees of freedom (as PALM)");
    }
    if (demeaned != null) {
      sources.put("demean", true);
      sources.put("demean_removed_column", demeaned.removedColumn());
    }
    Backend backend = Backend.cpu(requested.equals("auto") ? "glm runs on the CPU" : "requested");
    return new GlmAnalysis(held, new Plan(model, o, List.copyOf(draws), backend), request,
        sources, false);
  }

  private static void checkData(DataMatrix y) {
    checkSamples(y.rows());
    // Non-finite values are refused where every DataMatrix is made.
  }

  private static void checkSamples(int samples) {
    if (samples < 2) {
      throw new InvalidInputException("Cannot run glm: --input must have at least 2 samples,"
          + " but has " + samples);
    }
  }

  public GlmModel model() {
    return model;
  }

  /**
   * The same model with TFCE and/or cluster-extent inference on every contrast's maps (DESIGN
   * §9), on the grid of {@code mask}.
   *
   * @param mask the grid of the input's voxels; null (an .npy input) is refused (exit 2)
   */
  public GlmWholeMapAnalysis withWholeMaps(org.nlspark.core.tfce.Adjacency mask, boolean tfce,
      Double clusterThreshold) {
    return withWholeMaps(mask, org.nlspark.core.tfce.WholeMapSettings.of(tfce,
        clusterThreshold));
  }

  /** The same with every whole-map setting ({@code --tfce-e}, {@code --tfce-h}, ...). */
  public GlmWholeMapAnalysis withWholeMaps(org.nlspark.core.tfce.Adjacency mask,
      org.nlspark.core.tfce.WholeMapSettings settings) {
    return withWholeMaps(mask, settings, null, null);
  }

  /**
   * The same with variance smoothing of every t contrast's maps by a Gaussian of {@code
   * sigmaMm} ({@code --variance-smoothing}, DESIGN §9; null for none) on voxels of {@code
   * voxelSizesMm} (axes i, j, k): then every statistic and p-value of the run is of the
   * pseudo-t, and the settings may be empty (smoothing alone still needs whole maps). F
   * contrasts are refused (exit 2). On samples held by executors the blocks' slices carry each
   * draw's variance map beside its t map ({@link GlmWholeMapAnalysis}).
   */
  public GlmWholeMapAnalysis withWholeMaps(org.nlspark.core.tfce.Adjacency mask,
      org.nlspark.core.tfce.WholeMapSettings settings, Double sigmaMm, double[] voxelSizesMm) {
    if (sigmaMm == null) {
      org.nlspark.core.tfce.WholeMapInference maps =
          org.nlspark.core.tfce.WholeMapInference.of(mask, settings, voxels);
      if (mask != null && mask.onSurface() && model.varianceGroups() == null) {
        maps = maps.onZ(model.degreesOfFreedom()); // v and G come as z already
      }
      return new GlmWholeMapAnalysis(this, maps, null);
    }
    if (mask != null && !(mask instanceof org.nlspark.core.tfce.MaskGrid)) {
      throw new InvalidInputException("Cannot use --variance-smoothing on a surface: it smooths"
          + " over an image grid in mm, and smoothing on the mesh is not built; drop it");
    }
    org.nlspark.core.tfce.VarianceSmoothing.checkSigma(sigmaMm);
    if (model.varianceGroups() != null) {
      throw new InvalidInputException("Cannot use --variance-smoothing with --variance-groups:"
          + " the pseudo-t smooths one variance map, and v weighs a variance per group; drop"
          + " one of them");
    }
    GlmWholeMapAnalysis.requireTContrasts(model.contrasts().stream()
        .filter(c -> c.kind() == GlmContrast.Kind.F).count());
    org.nlspark.core.tfce.WholeMapInference maps =
        org.nlspark.core.tfce.WholeMapInference.ofMaps(mask, settings, voxels);
    return new GlmWholeMapAnalysis(this, maps, org.nlspark.core.tfce.VarianceSmoothing.of(
        (org.nlspark.core.tfce.MaskGrid) mask, sigmaMm, voxelSizesMm));
  }

  List<GlmDraws> draws() {
    return draws;
  }

  /** Whether tiles centre their blocks' columns ({@code --demean} on executor-held samples). */
  boolean centreBlocks() {
    return centreBlocks;
  }

  public GlmRun.Options options() {
    return options;
  }

  @Override
  public String command() {
    return "glm";
  }

  /** Y whole, or null when executors hold it as voxel blocks ({@link #prepareOnExecutors}). */
  @Override
  public Serializable data() {
    return data;
  }

  @Override
  public Backend backend() {
    return backend;
  }

  @Override
  public Double requestedBudgetGb() {
    return request.memoryBudgetGb();
  }

  /** One null distribution per contrast (and one across them), with FWER. */
  @Override
  public DriverMemory.Need driverMemory() {
    return DriverMemory.nullDistributions(replicates(), !options.fwer() ? 0
        : model.contrasts().size() + (options.fwerAcrossContrasts() ? 1 : 0));
  }

  @Override
  public long replicates() {
    long most = 0;
    for (GlmDraws d : draws) {
      most = Math.max(most, d.replicates());
    }
    return most;
  }

  @Override
  public TileShape shape(MemoryBudget budget) {
    return TileShape.windows(options.grid(), voxels, replicates(), 0);
  }

  /** Working set of one tile: the block and its residuals, one window's GEMM, accumulators. */
  @Override
  public long bytesPerTile(int windowsPerTile) {
    Grid grid = options.grid();
    long n = model.samples();
    long b = Math.min(grid.voxelBlock(), voxels);
    long w = grid.window();
    long q = model.rank();
    long kernel = 3 * n * b * 8 + w * q * n * 8 + 2 * w * q * b * 8 + w * b * 8;
    long accumulators = b * 24 + (long) windowsPerTile * w * 8 * model.contrasts().size();
    for (int c = 0; c < draws.size(); c++) {
      accumulators += 2L * nullTailSize(c) * b * 8; // null tails: a region of 2k keys
    }
    return kernel + accumulators;
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return new Runner(model, options, draws, plan, tailApproximation, centreBlocks);
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return new Merger(model, options, draws, plan, tailApproximation);
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> p = new LinkedHashMap<>(sources);
    p.put("method", "freedman-lane");
    p.put("errors", errorsUsed());
    p.put("whole_blocks", options.wholeBlocks());
    p.put("permutations", options.permutations());
    p.put("tail", options.tTail().cliName());
    p.put("fwer", options.fwer());
    p.put("fwer_across_contrasts", options.fwerAcrossContrasts());
    m.put("parameters", p);
    m.put("seed", options.seed());
    m.put("backend", backend.toMap(request.backendRequested()));
    m.put("precision", options.precision().label());
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("samples", samples);
    input.put("voxels", voxels);
    input.put("design_columns", model.columns());
    input.put("design_column_names", List.of(model.columnNames()));
    input.put("design_rank", model.rank());
    input.put("residual_degrees_of_freedom", model.degreesOfFreedom());
    m.put("input", input);
    Map<String, Object> resampling = new LinkedHashMap<>();
    resampling.put("scheme", "freedman-lane, " + p.get("errors"));
    resampling.put("replicates_drawn", replicates());
    boolean enumerated = false;
    Map<String, Object> per = new LinkedHashMap<>();
    for (int i = 0; i < draws.size(); i++) {
      GlmContrast c = model.contrasts().get(i);
      Map<String, Object> d = draws.get(i).toMap();
      d.put("contrast", c.name());
      d.put("weights", weights(c));
      d.put("rank", c.rank());
      d.put("tail", GlmRun.tailOf(c, options.tTail()).cliName());
      per.put(c.outputName(), d);
      enumerated |= draws.get(i).enumerated();
    }
    resampling.put("exact_enumeration", enumerated);
    resampling.put("contrasts", per);
    m.put("resampling", resampling);
    return m;
  }

  /**
   * A contrast's weights by design column, as tested (after matching the contrast's columns to
   * the design's by name): one map for t, one per joined t contrast for F.
   */
  private Object weights(GlmContrast c) {
    String[] names = model.columnNames();
    List<Map<String, Object>> rows = new java.util.ArrayList<>();
    for (double[] row : c.matrix()) {
      Map<String, Object> w = new LinkedHashMap<>();
      for (int j = 0; j < row.length; j++) {
        w.put(names[j], row[j]);
      }
      rows.add(w);
    }
    return c.kind() == GlmContrast.Kind.T ? rows.get(0) : rows;
  }

  /**
   * The errors of the draws, for summary.json: those of every contrast, or "per contrast" when
   * some contrast flips signs because permutations cannot change it ({@link GlmRun#drawsOf}).
   */
  private String errorsUsed() {
    java.util.Set<GlmDraws.Errors> used = java.util.EnumSet.noneOf(GlmDraws.Errors.class);
    for (GlmDraws d : draws) {
      used.add(d.errors());
    }
    GlmDraws.Errors one = used.size() == 1 ? used.iterator().next() : options.errors();
    return used.size() > 1 ? "per contrast" : one.name().toLowerCase(java.util.Locale.ROOT);
  }

  /** Runs one tile: every contrast over the tile's block and windows. */
  private static final class Runner implements TileRunner {
    private static final long serialVersionUID = 1L;
    private final GlmModel model;
    private final GlmRun.Options options;
    private final List<GlmDraws> draws;
    private final TilePlan plan;
    private final boolean tailApproximation;
    private final boolean centreBlocks;

    Runner(GlmModel model, GlmRun.Options options, List<GlmDraws> draws, TilePlan plan,
        boolean tailApproximation, boolean centreBlocks) {
      this.model = model;
      this.options = options;
      this.draws = draws;
      this.plan = plan;
      this.tailApproximation = tailApproximation;
      this.centreBlocks = centreBlocks;
    }

    @Override
    public byte[] run(Object input, TileSpec tile, int device) {
      long start = System.nanoTime();
      // Y whole (broadcast), or the tile's voxel block as an executor holds it (DESIGN §8)
      DataMatrix y = input instanceof JobInputs held ? held.x() : ((Data) input).y();
      Grid grid = plan.grid();
      int from = grid.blockStart(tile.block());
      int to = grid.blockEnd(tile.block(), y.cols());
      int b = to - from;
      double[] block = y.copyColumns(from, to);
      if (centreBlocks) {
        GlmDemean.centreColumns(block, y.rows(), b);
      }
      List<ContrastPartial> parts = new ArrayList<>();
      long flops = 0;
      for (int ci = 0; ci < draws.size(); ci++) {
        GlmContrast c = model.contrasts().get(ci);
        GlmDraws d = draws.get(ci);
        Tail tail = GlmRun.tailOf(c, options.tTail());
        long replicates = d.replicates();
        long first = plan.windowStart(tile.firstWindow());
        long end = Math.min(replicates,
            plan.windowStart(tile.firstWindow() + tile.windowCount()));
        boolean holdsObserved = tile.firstWindow() == 0;
        if (end <= first && !holdsObserved) {
          parts.add(new ContrastPartial(null, 0, null, null, null, null)); // this contrast drew fewer
          continue;
        }
        GlmContrastStatistic k = new GlmContrastStatistic(model, c, d, block, b, grid.window(),
            options.precision());
        double[] obs = new double[b];
        k.observed(obs);
        double[] keys = new double[b];
        for (int v = 0; v < b; v++) {
          keys[v] = tail.key(obs[v]);
        }
        ExceedanceCounter counter = new ExceedanceCounter(b);
        NullMaxAccumulator nullMax = null;
        TailAccumulator nullTails = null;
        if (end > first) {
          nullMax = options.fwer() ? new NullMaxAccumulator(first, (int) (end - first)) : null;
          int retained = nullTailSize(tailApproximation, d);
          nullTails = retained > 0 ? TailAccumulator.upperOnly(b, retained) : null;
          double[] buf = new double[grid.window() * b];
          for (long w = first; w < end; w += grid.window()) {
            int rows = (int) Math.min(grid.window(), end - w);
            if (nullTails == null) { // counts and maxima only: the cheaper values
              k.computeForCounts(w, rows, buf, tail);
            } else {
              k.compute(w, rows, buf);
            }
            for (int i = 0; i < rows * b; i++) {
              buf[i] = tail.key(buf[i]);
            }
            counter.update(buf, 0, rows, b, keys, 0);
            if (nullMax != null) {
              nullMax.update(buf, 0, rows, b, w);
            }
            if (nullTails != null) {
              nullTails.update(buf, 0, rows, b);
            }
          }
        }
        flops += k.flops();
        double[] written = null;
        if (holdsObserved && k.onZ()) {
          written = new double[b];
          k.observedStatistic(written);
        }
        parts.add(new ContrastPartial(holdsObserved ? obs : null,
            holdsObserved ? k.undefinedVoxels() : 0, end > first ? counter : null, nullMax,
            nullTails, written));
      }
      return toBytes(tile, flops, System.nanoTime() - start, parts);
    }
  }

  /**
   * One contrast's share of a tile; null parts are absent. {@code written}: the observed v or G
   * where {@code observed} is their z (variance groups), else null.
   */
  record ContrastPartial(double[] observed, int undefinedVoxels, ExceedanceCounter counts,
      NullMaxAccumulator nullMax, TailAccumulator nullTails, double[] written) {}

  /** The tile's result as decoded by the merger. */
  record Partial(TileSpec tile, long flops, long kernelNanos, List<ContrastPartial> contrasts) {}

  private static final PartialFamily FAMILY = PartialFamily.GLM_PARTIAL;

  /**
   * Layout (big-endian): magic 'G', version, tile index, block, first window, window count,
   * flops, kernel nanos, contrast count, then per contrast: observed (flag, length, values),
   * undefined voxels, counts blob, null-max blob, null-tails blob (length -1 when absent;
   * version 2 added the null tails of {@code --tail-approximation}), then the written observed
   * map (flag, length, values; version 3: v or G beside their z).
   */
  static byte[] toBytes(TileSpec tile, long flops, long nanos, List<ContrastPartial> parts) {
    try {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(bytes);
      PartialBytes.writeHeader(out, FAMILY, tile);
      out.writeLong(flops);
      out.writeLong(nanos);
      out.writeInt(parts.size());
      for (ContrastPartial p : parts) {
        PartialBytes.writeDoubles(out, p.observed());
        out.writeInt(p.undefinedVoxels());
        PartialBytes.writeBlob(out, p.counts() == null ? null : p.counts().toBytes());
        PartialBytes.writeBlob(out, p.nullMax() == null ? null : p.nullMax().toBytes());
        PartialBytes.writeBlob(out, p.nullTails() == null ? null : p.nullTails().toBytes());
        PartialBytes.writeDoubles(out, p.written());
      }
      out.flush();
      return bytes.toByteArray();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static Partial fromBytes(byte[] data) {
    try {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(data));
      TileSpec tile = PartialBytes.readHeader(in, FAMILY);
      long flops = in.readLong();
      long nanos = in.readLong();
      int count = in.readInt();
      List<ContrastPartial> parts = new ArrayList<>();
      for (int c = 0; c < count; c++) {
        double[] observed = PartialBytes.readDoubles(in);
        int undefined = in.readInt();
        byte[] counts = PartialBytes.readBlob(in);
        byte[] maxima = PartialBytes.readBlob(in);
        byte[] tails = PartialBytes.readBlob(in);
        double[] written = PartialBytes.readDoubles(in);
        parts.add(new ContrastPartial(observed, undefined,
            counts == null ? null : ExceedanceCounter.fromBytes(counts),
            maxima == null ? null : NullMaxAccumulator.fromBytes(maxima),
            tails == null ? null : TailAccumulator.fromBytes(tails), written));
      }
      return new Partial(tile, flops, nanos, parts);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }


  /** Folds partials per contrast: counts per voxel block (added), maxima (max), observed. */
  private static final class Merger implements TileMerger {
    private final GlmModel model;
    private final GlmRun.Options options;
    private final List<GlmDraws> draws;
    private final TilePlan plan;
    private final double[][] statistic;
    private final double[][] written; // the written maps where they differ (v, G), else null
    private final ExceedanceCounter[][] counts;
    private final NullMaxAccumulator[] nullMax;
    private final int[] undefined;
    private final TileLedger ledger;
    /** Per contrast, each voxel's largest null keys ({@code --tail-approximation}), or null. */
    private final VoxelNullTails[] nullTails;

    Merger(GlmModel model, GlmRun.Options options, List<GlmDraws> draws, TilePlan plan,
        boolean tailApproximation) {
      this.model = model;
      this.options = options;
      this.draws = draws;
      this.plan = plan;
      int k = draws.size();
      this.statistic = new double[k][plan.voxels()];
      this.written = new double[k][];
      this.counts = new ExceedanceCounter[k][plan.blocks()];
      this.nullMax = new NullMaxAccumulator[k];
      this.undefined = new int[k];
      this.ledger = TileLedger.of(plan, "glm tiles");
      this.nullTails = new VoxelNullTails[k];
      for (int c = 0; c < k; c++) {
        int retained = nullTailSize(tailApproximation, draws.get(c));
        nullTails[c] = retained > 0 ? VoxelNullTails.allocate(plan, retained) : null;
        java.util.Arrays.fill(statistic[c], Double.NaN);
        // The whole range up front: windows then merge inside it in any order (no gaps).
        int length = options.fwer() ? (int) draws.get(c).replicates() : 0;
        nullMax[c] = new NullMaxAccumulator(0, length);
      }
    }

    @Override
    public synchronized void add(byte[] bytes) {
      Partial p = fromBytes(bytes);
      ledger.record(p.tile().index(), p.flops(), p.kernelNanos());
      int from = plan.grid().blockStart(p.tile().block());
      for (int c = 0; c < p.contrasts().size(); c++) {
        ContrastPartial part = p.contrasts().get(c);
        if (part.observed() != null) {
          System.arraycopy(part.observed(), 0, statistic[c], from, part.observed().length);
          undefined[c] += part.undefinedVoxels();
          if (part.written() != null) {
            if (written[c] == null) {
              written[c] = new double[plan.voxels()];
              java.util.Arrays.fill(written[c], Double.NaN);
            }
            System.arraycopy(part.written(), 0, written[c], from, part.written().length);
          }
        }
        if (part.counts() != null) {
          ExceedanceCounter into = counts[c][p.tile().block()];
          if (into == null) {
            counts[c][p.tile().block()] = part.counts();
          } else {
            into.merge(part.counts());
          }
        }
        if (part.nullMax() != null) {
          nullMax[c].merge(part.nullMax());
        }
        if (nullTails[c] != null && part.counts() != null) {
          nullTails[c].merge(p.tile().block(), part.nullTails());
        }
      }
    }

    @Override
    public synchronized Result finish() {
      ledger.checkComplete();
      List<GlmRun.ContrastTotals> totals = new ArrayList<>();
      Grid grid = plan.grid();
      for (int c = 0; c < draws.size(); c++) {
        long[] all = new long[plan.voxels()];
        for (int block = 0; block < plan.blocks(); block++) {
          ExceedanceCounter e = counts[c][block];
          long expected = draws.get(c).replicates();
          if (e == null || e.n() != expected) {
            throw new IllegalStateException("[BUG] contrast " + (c + 1) + ", block " + block
                + ": " + (e == null ? 0 : e.n()) + " replicates counted of " + expected);
          }
          System.arraycopy(e.counts(), 0, all, grid.blockStart(block), e.elements());
        }
        double[] maxima = null;
        if (options.fwer()) {
          if (nullMax[c].n() != draws.get(c).replicates()) {
            throw new IllegalStateException("[BUG] contrast " + (c + 1) + ": maxima of "
                + nullMax[c].n() + " replicates of " + draws.get(c).replicates());
          }
          maxima = nullMax[c].maxima();
        }
        totals.add(new GlmRun.ContrastTotals(statistic[c], all, maxima, undefined[c],
            written[c] != null ? written[c] : statistic[c]));
      }
      Result result = GlmRun.assemble(model, options, draws, totals);
      List<TailApproximation.VoxelTarget> targets = new ArrayList<>();
      for (int c = 0; c < draws.size(); c++) {
        if (nullTails[c] != null) {
          String name = model.contrasts().get(c).outputName();
          targets.add(new TailApproximation.VoxelTarget("p_" + name, name,
              GlmRun.tailOf(model.contrasts().get(c), options.tTail()), nullTails[c]::upperKeys,
              draws.get(c).replicates(), nullTails[c].retained(), false));
        }
      }
      return targets.isEmpty() ? result : TailApproximation.uncorrected(result, targets);
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
