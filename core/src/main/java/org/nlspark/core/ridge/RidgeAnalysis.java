package org.nlspark.core.ridge;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.SampleStore;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.BatchPlan;
import org.nlspark.core.memory.Gb;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.RidgeBatchSizer;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.ResultMerger;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.TileSpec;

/**
 * The ridge bootstrap as an analysis of the pipeline. Its grid has one block holding every output
 * element (each replicate's SVD serves all of them) and the default replicate window; a tile is a
 * run of windows, sized by the ridge rule of DESIGN §3.7. Tiles send window moments, retained
 * tails and (with {@code --save-samples}) every solution, merged by the bootstrap merger, so the
 * summary is the same {@link org.nlspark.core.accumulate.BootstrapSummary} as {@code bootstrap}'s.
 */
public final class RidgeAnalysis implements TileAnalysis {
  private final Serializable input; // Data, or Files that each task reads
  private final Data data; // the shapes (and, read here, the values)
  private final RidgeBootstrap.Options options;
  private final int rows;
  private final Grid grid;

  /** X (n, p), Y (n, targets) and X_test (nTest, p) or null, row-major. */
  public record Data(double[] x, int n, int p, double[] y, int targets, double[] xTest,
      int nTest) implements Serializable {}

  /**
   * X, Y and X_test (or null) described, not read (DESIGN §8): every replicate's SVD takes every
   * row and feature of X, so a task cannot hold a block of them; each task reads them whole
   * where it runs ({@link #read}, the readers of the driver path, so the same values), and the
   * driver reads headers only. Their float64 bytes are in {@link #bytesPerTile}.
   */
  public record Files(SampleSource x, SampleSource y, SampleSource xTest,
      SampleSource.Opener opener) implements Serializable {
    Data read() {
      DataMatrix xm = x.readAll(opener);
      DataMatrix ym = y.readAll(opener);
      DataMatrix tm = xTest == null ? null : xTest.readAll(opener);
      return new Data(xm.values(), xm.rows(), xm.cols(), ym.values(), ym.cols(),
          tm == null ? null : tm.values(), tm == null ? 0 : tm.rows());
    }
  }

  RidgeAnalysis(Data data, RidgeBootstrap.Options options, int rows) {
    this(data, data, options, rows);
  }

  /** @param shape the shapes of {@code files} (its arrays empty) */
  RidgeAnalysis(Files files, Data shape, RidgeBootstrap.Options options, int rows) {
    this((Serializable) files, shape, options, rows);
  }

  private RidgeAnalysis(Serializable input, Data data, RidgeBootstrap.Options options,
      int rows) {
    this.input = input;
    this.data = data;
    this.options = options;
    this.rows = rows;
    this.grid = new Grid(Math.max(1, rows * data.targets()), Grid.DEFAULT.window());
  }

  private int elements() {
    return rows * data.targets();
  }

  @Override
  public String command() {
    return "ridge-bootstrap";
  }

  /** X, Y and X_test; or, for inputs that executors read, their descriptions ({@link Files}). */
  @Override
  public Serializable data() {
    return input;
  }

  @Override
  public Backend backend() {
    return Backend.cpu("ridge-bootstrap runs on the CPU");
  }

  @Override
  public Double requestedBudgetGb() {
    return options.memoryBudgetGb();
  }

  /** DESIGN §3.8 against the budget as batches see it (explicit, or measured and capped). */
  @Override
  public void preflight(MemoryBudget budget) {
    BootstrapMemory.preflight(elements(), options.samples(), options.confidence(),
        options.saveSamples(), 1, budget.forBatching());
  }

  @Override
  public long replicates() {
    return options.samples();
  }

  /**
   * Tiles of the ridge batch (DESIGN §3.7: replicates per batch from the budget, explicit or
   * measured and capped), in whole windows.
   */
  @Override
  public TileShape shape(MemoryBudget budget) {
    BatchPlan batches = RidgeBatchSizer.plan((int) options.samples(), data.n(), data.p(),
        data.targets(), new long[] {rows, data.targets()}, 8, budget.forBatching());
    return TileShape.fixed(grid, elements(), options.samples(), tailSize(),
        Math.max(1, batches.batchSize() / grid.window()));
  }

  /**
   * The tails of every element, a window of solutions, and the saved samples if kept; for
   * inputs that executors read ({@link Files}) also X, Y and X_test in float64, which every task
   * reads whole.
   */
  @Override
  public long bytesPerTile(int windowsPerTile) {
    long read = !(input instanceof Files) ? 0 : 8L * ((long) data.n() * data.p()
        + (long) data.n() * data.targets() + (long) data.nTest() * data.p());
    return 8L * elements() * (4L * tailSize() + grid.window()
        + (options.saveSamples() ? (long) windowsPerTile * grid.window() : 0)) + read;
  }

  private int tailSize() {
    return TailSize.retained(options.samples(), options.confidence());
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return new Runner(options, plan, elements());
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    int targets = data.targets();
    boolean predictions = data.nTest() > 0;
    int tiles = plan.tileCount();
    int perTile = plan.windowsPerTile() * grid.window();
    return ResultMerger.forBootstrap(options.confidence(), CiMethod.PERCENTILE,
        options.saveSamples(), plan).asTileMerger(result -> {
          BootstrapResult b = (BootstrapResult) result;
          return new RidgeResult(b.mean, b.std, b.ciLower, b.ciUpper, b.z, b.p, b.samples, rows,
              targets, predictions, options.samples(), perTile, tiles, b.zeroSpreadVoxels);
        });
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("alpha", options.alpha());
    params.put("samples", options.samples());
    params.put("confidence", options.confidence());
    params.put("save_samples", options.saveSamples());
    m.put("parameters", params);
    m.put("seed", options.seed());
    m.put("backend", backend().toMap("cpu"));
    m.put("precision", "float64");
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("samples", data.n());
    input.put("features", data.p());
    input.put("targets", data.targets());
    if (data.nTest() > 0) {
      input.put("test_samples", data.nTest());
    }
    m.put("input", input);
    Map<String, Object> resampling = new LinkedHashMap<>();
    resampling.put("scheme", "bootstrap of rows (with replacement)");
    resampling.put("replicates_drawn", options.samples());
    resampling.put("exact_enumeration", false);
    m.put("resampling", resampling);
    // what the preflight checks (DESIGN §3.8); ridge always retains tails
    m.put("bootstrap_retained_gb", Gb.fromBytes(BootstrapMemory.requiredBytes(elements(),
        options.samples(), options.confidence(), options.saveSamples(), 1)));
    return m;
  }

  /** Solves each replicate of the tile's windows and folds them per window. */
  private static final class Runner implements TileRunner {
    private static final long serialVersionUID = 1L;
    private final RidgeBootstrap.Options options;
    private final TilePlan plan;
    private final int elements;

    Runner(RidgeBootstrap.Options options, TilePlan plan, int elements) {
      this.options = options;
      this.plan = plan;
      this.elements = elements;
    }

    @Override
    public byte[] run(Object input, TileSpec tile, int device) {
      long start = System.nanoTime();
      Data d = input instanceof Files files ? files.read() : (Data) input;
      int w = plan.grid().window();
      long firstReplicate = plan.windowStart(tile.firstWindow());
      int lastWindow = tile.firstWindow() + tile.windowCount();
      int rowsInTile = (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow))
          - firstReplicate);
      TailAccumulator tails = new TailAccumulator(elements, plan.tailSize());
      SampleStore samples = options.saveSamples()
          ? new SampleStore(firstReplicate, rowsInTile, elements) : null;
      MomentAccumulator[] moments = new MomentAccumulator[tile.windowCount()];
      double[] buf = new double[w * elements];
      for (int k = 0; k < tile.windowCount(); k++) {
        int window = tile.firstWindow() + k;
        int rows = plan.windowRows(window);
        long first = plan.windowStart(window);
        for (int r = 0; r < rows; r++) {
          double[] solution = RidgeBootstrap.replicate(d.x(), d.n(), d.p(), d.y(), d.targets(),
              d.xTest(), d.nTest(), options.alpha(), options.seed(), first + r);
          System.arraycopy(solution, 0, buf, r * elements, elements);
          if (samples != null) {
            samples.put(first + r, solution, 0, elements);
          }
        }
        moments[k] = MomentAccumulator.ofWindow(buf, 0, rows, elements);
        tails.update(buf, 0, rows, elements);
      }
      return new PartialResult(tile, null, null, null, tails, samples, moments, 0,
          System.nanoTime() - start, 0).toBytes();
    }
  }
}
