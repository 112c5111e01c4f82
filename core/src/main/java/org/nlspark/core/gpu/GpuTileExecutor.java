package org.nlspark.core.gpu;

import java.util.Arrays;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.SampleStore;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.memory.OomRecovery;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;

/**
 * Runs one tile on a CUDA device and returns what {@code TileExecutor.execute} returns for it.
 *
 * <ul>
 *   <li>Draws: every window's draws are generated on the host with {@code Draws} (through
 *       {@link GpuBlock}) before any device work, then uploaded — the same replicates as the CPU,
 *       whatever happens on the device.</li>
 *   <li>GEMMs: one cuBLAS call per grid cell with the CPU's shape, OUT^T (b x window) :=
 *       X^T (b x n) · D^T (n x window), in the spec's precision (float32 is what a GPU run should
 *       ask for; float64 is honoured).</li>
 *   <li>Epilogues are CUDA kernels: the statistic, constant/undefined voxels, then for permutation
 *       tests the extremeness keys, exceedance counts (kept on the device across windows) and
 *       per-replicate maxima — replicates x voxels never leave the device; only b counts and one
 *       maximum per replicate come back. For a bootstrap the per-window moments are computed on
 *       the device; the (window x block) statistic is copied back only when the host needs it:
 *       the percentile tails (host {@link TailAccumulator}) or {@code --save-samples}.</li>
 *   <li>A device out-of-memory goes through {@link OomRecovery}: the tile's windows are halved
 *       and each half rerun with the same host draws, and the halves' accumulators merged (exact
 *       for counts, maxima and tails; moments stay per window), so the result does not change.</li>
 * </ul>
 */
public final class GpuTileExecutor {
  private static final int THREADS = 256;
  private static final java.util.concurrent.atomic.AtomicLong OOM_HALVINGS =
      new java.util.concurrent.atomic.AtomicLong();

  private GpuTileExecutor() {}

  /** Device out-of-memory events this process recovered from by halving (for reports). */
  public static long oomHalvings() {
    return OOM_HALVINGS.get();
  }

  /** Runs the tile on device 0 (local mode). */
  public static PartialResult execute(JobSpec spec, JobInputs inputs, ResamplingPlan resampling,
      TilePlan plan, TileSpec tile) {
    return execute(spec, inputs, resampling, plan, tile, 0);
  }

  /** @param device CUDA device index (from Spark's task resources; 0 in local mode) */
  public static PartialResult execute(JobSpec spec, JobInputs inputs, ResamplingPlan resampling,
      TilePlan plan, TileSpec tile, int device) {
    long start = System.nanoTime();
    GpuBlock block = GpuBlock.create(spec, inputs, resampling, plan.grid(), tile.block());
    HostDraws draws = HostDraws.generate(block, plan, tile, spec.precision());
    CudaContext context = CudaContext.shared(device);
    context.lock().lock();
    try {
      return run(context, spec, plan, tile, block, draws, start);
    } finally {
      context.lock().unlock();
    }
  }

  /**
   * Runs the tile on {@code device} (the caller holds whatever lock it needs): the CUDA device,
   * or the host build of the same kernels ({@link HostDevice}) for the CPU parity suite.
   */
  static PartialResult execute(Device device, JobSpec spec, JobInputs inputs,
      ResamplingPlan resampling, TilePlan plan, TileSpec tile) {
    long start = System.nanoTime();
    GpuBlock block = GpuBlock.create(spec, inputs, resampling, plan.grid(), tile.block());
    HostDraws draws = HostDraws.generate(block, plan, tile, spec.precision());
    return run(device, spec, plan, tile, block, draws, start);
  }

  /** What {@link #statisticMaps} computed for one voxel block. */
  public record BlockMaps(long flops, int undefinedVoxels) {}

  /**
   * Whole statistic maps for TFCE and cluster inference (DESIGN §9): the statistic of voxel block
   * {@code block} of {@code kernelGrid} for the observed data and for every replicate of the
   * tile's windows, by the same GEMM and epilogue kernels as {@link #execute}, copied back to the
   * host (TFCE itself runs on the executor CPU). Row r of the tile (replicate
   * {@code plan.windowStart(tile.firstWindow()) + r}) goes to {@code maps[r * stride + at ..]},
   * the observed statistic to {@code observed[at ..]}: {@code at} is the block's first voxel for
   * whole maps, 0 for one block's slice ({@code stride} then the block's width).
   * The draws are generated on the host first, as for every GPU tile; one window of them is on
   * the device at a time, so a tile's device memory does not grow with its windows.
   *
   * @param device CUDA device index (from Spark's task resources; 0 in local mode)
   */
  public static BlockMaps statisticMaps(JobSpec spec, JobInputs inputs,
      ResamplingPlan resampling, Grid kernelGrid, int block, TilePlan plan, TileSpec tile,
      double[] maps, int stride, int at, double[] observed, int device) {
    CudaContext context = CudaContext.shared(device);
    context.lock().lock();
    try {
      return statisticMaps(context, spec, inputs, resampling, kernelGrid, block, plan, tile, maps,
          stride, at, observed);
    } finally {
      context.lock().unlock();
    }
  }

  /** The same on {@code ctx}: the CUDA device, or the host build of the kernels. */
  static BlockMaps statisticMaps(Device ctx, JobSpec spec, JobInputs inputs,
      ResamplingPlan resampling, Grid kernelGrid, int block, TilePlan plan, TileSpec tile,
      double[] maps, int stride, int at, double[] observed) {
    GpuBlock g = GpuBlock.create(spec, inputs, resampling, kernelGrid, block);
    if (!g.usesGemm() || spec.analysis() == Analysis.BOOTSTRAP) {
      throw new IllegalArgumentException("[BUG] statistic maps are for the permutation tests,"
          + " not " + spec.analysis().command());
    }
    HostDraws draws = HostDraws.generate(g, plan, tile, spec.precision());
    int b = g.b;
    int n = g.n;
    int w = plan.grid().window();
    boolean f64 = spec.precision() == Precision.FLOAT64;
    int es = f64 ? 8 : 4;
    long flops = 0;
    try (DeviceArena arena = new DeviceArena(ctx)) {
      DeviceBuffer out = arena.alloc(8L * w * b);
      DeviceBuffer x = upload(arena, g.data, f64);
      DeviceBuffer x2 = g.data2 == null ? null : upload(arena, g.data2, f64);
      DeviceBuffer product = arena.alloc((long) es * w * b);
      DeviceBuffer product2 = x2 == null ? null : arena.alloc((long) es * w * b);
      DeviceBuffer d = arena.alloc((long) es * w * n);
      DeviceBuffer perVoxel = g.perVoxel == null ? null : arena.upload(g.perVoxel);
      DeviceBuffer perVoxel2 = g.perVoxel2 == null ? null : arena.upload(g.perVoxel2);
      DeviceBuffer undefinedCols = g.undefined.length == 0 ? null : arena.upload(g.undefined);
      DeviceBuffer undefinedValues = null;
      if (undefinedCols != null) {
        double[] nan = new double[g.undefined.length];
        Arrays.fill(nan, Double.NaN);
        undefinedValues = arena.upload(nan);
      }
      Epilogue epilogue = new Epilogue(ctx, g, f64, product, product2, out, perVoxel, perVoxel2,
          null, null, undefinedCols, undefinedValues);
      double[] host = new double[w * b];

      // The observed statistic through the same cell shape, row 0 of D (as execute does).
      double[] identity = new double[w * n];
      g.fillIdentity(identity, 0);
      DeviceBuffer dIdentity = upload(arena, identity, f64);
      flops += gemms(ctx, f64, b, w, n, x, x2, dIdentity.address(), product, product2);
      epilogue.run(1);
      out.download(0, host, 0, b);
      System.arraycopy(host, 0, observed, at, b);

      long first = plan.windowStart(tile.firstWindow());
      for (int k = 0; k < tile.windowCount(); k++) {
        int window = tile.firstWindow() + k;
        int rows = plan.windowRows(window);
        if (f64) {
          d.upload(draws.doubles, k * w * n, w * n, 0);
        } else {
          d.upload(draws.floats, k * w * n, w * n, 0);
        }
        flops += gemms(ctx, f64, b, w, n, x, x2, d.address(), product, product2);
        epilogue.run(rows);
        out.download(0, host, 0, rows * b);
        int row0 = (int) (plan.windowStart(window) - first);
        for (int r = 0; r < rows; r++) {
          System.arraycopy(host, r * b, maps, (row0 + r) * stride + at, b);
        }
      }
    }
    return new BlockMaps(flops, g.undefined.length);
  }

  private static PartialResult run(Device device, JobSpec spec, TilePlan plan, TileSpec tile,
      GpuBlock block, HostDraws draws, long start) {
    PartialResult r = OomRecovery.run(tile.windowCount(), 1,
        (from, to) -> runWindows(device, spec, plan, tile, block, draws, from, to),
        GpuTileExecutor::combine, () -> {
          OOM_HALVINGS.incrementAndGet();
          device.synchronize();
        });
    return new PartialResult(r.tile, r.observed, r.counts, r.nullMax, r.tails, r.samples,
        r.windowMoments, r.flops, System.nanoTime() - start, r.undefinedVoxels);
  }

  /**
   * Merges the results of adjacent window ranges [left) then [right) of one tile: counts, null
   * maxima, tails and samples merge exactly; window moments are concatenated in window order.
   */
  static PartialResult combine(PartialResult left, PartialResult right) {
    TileSpec l = left.tile;
    TileSpec r = right.tile;
    if (l.block() != r.block() || l.firstWindow() + l.windowCount() != r.firstWindow()) {
      throw new IllegalStateException("[BUG] cannot combine tiles " + l + " and " + r
          + ": they are not adjacent window ranges of one block");
    }
    TileSpec tile = new TileSpec(l.index(), l.block(), l.firstWindow(),
        l.windowCount() + r.windowCount());
    if (left.counts != null) {
      left.counts.merge(right.counts);
    }
    if (left.nullMax != null) {
      left.nullMax.merge(right.nullMax);
    }
    if (left.tails != null) {
      left.tails.merge(right.tails);
    }
    if (left.samples != null) {
      left.samples.merge(right.samples);
    }
    MomentAccumulator[] moments = null;
    if (left.windowMoments != null) {
      moments = Arrays.copyOf(left.windowMoments,
          left.windowMoments.length + right.windowMoments.length);
      System.arraycopy(right.windowMoments, 0, moments, left.windowMoments.length,
          right.windowMoments.length);
    }
    return new PartialResult(tile, left.observed != null ? left.observed : right.observed,
        left.counts, left.nullMax, left.tails, left.samples, moments, left.flops + right.flops,
        left.kernelNanos + right.kernelNanos, left.undefinedVoxels);
  }

  /** The windows [from, to) of the tile (relative to its first window), as a partial result. */
  static PartialResult runWindows(Device ctx, JobSpec spec, TilePlan plan, TileSpec tile,
      GpuBlock g, HostDraws draws, int from, int to) {
    long start = System.nanoTime();
    int b = g.b;
    int n = g.n;
    int w = plan.grid().window();
    boolean f64 = spec.precision() == Precision.FLOAT64;
    int es = f64 ? 8 : 4;
    TileSpec range = new TileSpec(tile.index(), tile.block(), tile.firstWindow() + from,
        to - from);
    long firstReplicate = plan.windowStart(range.firstWindow());
    int lastWindow = range.firstWindow() + range.windowCount();
    int rowsInRange = (int) (Math.min(plan.replicates(), plan.windowStart(lastWindow))
        - firstReplicate);
    boolean bootstrap = spec.analysis() == Analysis.BOOTSTRAP;
    long flops = 0;

    try (DeviceArena arena = new DeviceArena(ctx)) {
      DeviceBuffer out = arena.alloc(8L * w * b);
      DeviceBuffer x = null;
      DeviceBuffer x2 = null;
      DeviceBuffer product = null;
      DeviceBuffer product2 = null;
      DeviceBuffer d;
      DeviceBuffer sortedValues = null;
      DeviceBuffer sortedRows = null;
      if (g.usesGemm()) {
        x = upload(arena, g.data, f64);
        x2 = g.data2 == null ? null : upload(arena, g.data2, f64);
        product = arena.alloc((long) es * w * b);
        product2 = x2 == null ? null : arena.alloc((long) es * w * b);
        d = arena.alloc((long) es * (to - from) * w * n);
        long offset = (long) from * w * n;
        int count = (to - from) * w * n;
        if (f64) {
          d.upload(draws.doubles, (int) offset, count, 0);
        } else {
          d.upload(draws.floats, (int) offset, count, 0);
        }
      } else {
        d = arena.alloc(4L * (to - from) * w * n);
        d.upload(draws.counts, from * w * n, (to - from) * w * n, 0);
        sortedValues = arena.upload(g.sortedValues);
        sortedRows = arena.upload(g.sortedRows);
      }
      DeviceBuffer perVoxel = g.perVoxel == null ? null : arena.upload(g.perVoxel);
      DeviceBuffer perVoxel2 = g.perVoxel2 == null ? null : arena.upload(g.perVoxel2);
      DeviceBuffer undefinedCols = g.undefined.length == 0 ? null : arena.upload(g.undefined);
      DeviceBuffer undefinedValues = null;
      if (undefinedCols != null) {
        double[] nan = new double[g.undefined.length];
        Arrays.fill(nan, Double.NaN);
        undefinedValues = arena.upload(nan);
      }
      DeviceBuffer constantCols = g.constant.length == 0 ? null : arena.upload(g.constant);
      DeviceBuffer constantValues = g.constant.length == 0 ? null : arena.upload(g.constantValue);
      Epilogue epilogue = new Epilogue(ctx, g, f64, product, product2, out, perVoxel, perVoxel2,
          constantCols, constantValues, undefinedCols, undefinedValues);

      if (bootstrap) {
        TailAccumulator tails = plan.tailSize() > 0 ? new TailAccumulator(b, plan.tailSize())
            : null;
        SampleStore samples = spec.saveSamples()
            ? new SampleStore(firstReplicate, rowsInRange, b) : null;
        MomentAccumulator[] moments = new MomentAccumulator[to - from];
        DeviceBuffer mean = arena.alloc(8L * b);
        DeviceBuffer m2 = arena.alloc(8L * b);
        double[] meanHost = new double[b];
        double[] m2Host = new double[b];
        double[] host = tails != null || samples != null ? new double[w * b] : null;
        for (int k = 0; k < to - from; k++) {
          int window = range.firstWindow() + k;
          int rows = plan.windowRows(window);
          long first = plan.windowStart(window);
          if (g.usesGemm()) {
            flops += gemms(ctx, f64, b, w, n, x, x2, d.address((long) k * w * n, es), product,
                product2);
            epilogue.run(rows);
          } else {
            ctx.launch("bootstrap_order", blocks((long) rows * b), THREADS,
                d.address((long) k * w * n, 4), sortedValues, sortedRows, out, (long) rows,
                (long) b, (long) n, (long) g.statCode);
          }
          ctx.launch("window_moments", blocks(b), THREADS, out, (long) rows, (long) b, mean, m2);
          mean.download(0, meanHost, 0, b);
          m2.download(0, m2Host, 0, b);
          moments[k] = AccumulatorBytes.moments(rows, meanHost, m2Host);
          if (host != null) {
            out.download(0, host, 0, rows * b);
            if (tails != null) {
              tails.update(host, 0, rows, b);
            }
            if (samples != null) {
              for (int r = 0; r < rows; r++) {
                samples.put(first + r, host, r * b, b);
              }
            }
          }
        }
        return new PartialResult(range, null, null, null, tails, samples, moments, flops,
            System.nanoTime() - start, g.undefined.length);
      }

      // Permutation tests: the observed statistic through the same cell shape, row 0 of D.
      Tail tail = spec.tail();
      // One-sample two-tailed: the CPU's fused fold (SignFlipStatistic.foldWindow) counts and
      // takes maxima on the products' fold keys, which is finer than on the rounded statistic.
      boolean fused = g.kind == GpuBlock.Kind.SIGN_FLIP && tail == Tail.TWO;
      String suffix = f64 ? "_f64" : "_f32";
      double[] identity = new double[w * n];
      g.fillIdentity(identity, 0);
      DeviceBuffer dIdentity = upload(arena, identity, f64);
      flops += gemms(ctx, f64, b, w, n, x, x2, dIdentity.address(), product, product2);
      epilogue.run(1);
      double[] observed = new double[b];
      out.download(0, observed, 0, b);
      DeviceBuffer thresholds;
      if (fused) {
        thresholds = arena.alloc(8L * 4 * b);
        ctx.launch("flip_thresholds" + suffix, blocks(b), THREADS, product, (long) b,
            g.tStat ? 1L : 0L, perVoxel, thresholds);
      } else {
        double[] thr = new double[b];
        for (int v = 0; v < b; v++) {
          thr[v] = tail.threshold(observed[v]); // undefined: never counts
        }
        thresholds = arena.upload(thr);
      }
      DeviceBuffer counts = arena.alloc(8L * b);
      counts.zero();
      boolean fwer = spec.fwer();
      DeviceBuffer maxima = fwer ? arena.alloc(8L * Math.max(1, rowsInRange)) : null;
      long tailCode = tail == Tail.TWO ? 0 : tail == Tail.UPPER ? 1 : 2;
      long tStat = g.tStat ? 1L : 0L;
      for (int k = 0; k < to - from; k++) {
        int window = range.firstWindow() + k;
        int rows = plan.windowRows(window);
        long first = plan.windowStart(window);
        flops += gemms(ctx, f64, b, w, n, x, x2, d.address((long) k * w * n, es), product,
            product2);
        if (fused) {
          ctx.launch("flip_count" + suffix, blocks(b), THREADS, product, (long) rows, (long) b,
              tStat, perVoxel, thresholds, counts);
          if (fwer) {
            ctx.launch("flip_fold_keys" + suffix, blocks((long) rows * b), THREADS, product, out,
                (long) rows, (long) b, tStat, perVoxel);
          }
        } else {
          epilogue.run(rows);
          ctx.launch("tail_keys", blocks((long) rows * b), THREADS, out, (long) rows * b,
              tailCode);
          ctx.launch("count_exceedances", blocks(b), THREADS, out, (long) rows, (long) b,
              thresholds, counts);
        }
        if (fwer) {
          long rowMax = maxima.address(first - firstReplicate, 8);
          ctx.launch("row_maxima", rows, THREADS, out, (long) rows, (long) b, rowMax);
          if (fused) {
            ctx.launch("flip_row_max", blocks(rows), THREADS, rowMax, (long) rows, tStat,
                (long) n, g.undefined.length < b ? 1L : 0L);
          }
        }
      }
      long[] countsHost = new long[b];
      counts.download(0, countsHost, 0, b);
      NullMaxAccumulator nullMax = null;
      if (fwer) {
        double[] maximaHost = new double[rowsInRange];
        maxima.download(0, maximaHost, 0, rowsInRange);
        nullMax = new NullMaxAccumulator(firstReplicate, rowsInRange);
        nullMax.updateRowMaxima(maximaHost, rowsInRange, firstReplicate);
      }
      ExceedanceCounter exceedances = AccumulatorBytes.exceedances(rowsInRange, countsHost);
      boolean reportsObserved = range.firstWindow() == 0;
      return new PartialResult(range, reportsObserved ? observed : null, exceedances, nullMax,
          null, null, null, flops, System.nanoTime() - start, g.undefined.length);
    }
  }

  /** OUT^T (b x w) := X^T (b x n) · D^T (n x w) for one cell, and the second product if any. */
  private static long gemms(Device ctx, boolean f64, int b, int w, int n, DeviceBuffer x,
      DeviceBuffer x2, long d, DeviceBuffer product, DeviceBuffer product2) {
    ctx.gemm(f64, false, false, b, w, n, 1.0, x.address(), b, d, n, 0.0, product.address(), b);
    long flops = 2L * n * b * w;
    if (x2 != null) {
      ctx.gemm(f64, false, false, b, w, n, 1.0, x2.address(), b, d, n, 0.0, product2.address(),
          b);
      flops += 2L * n * b * w;
    }
    return flops;
  }

  private static DeviceBuffer upload(DeviceArena arena, double[] values, boolean f64) {
    if (f64) {
      return arena.upload(values);
    }
    float[] f = new float[values.length];
    for (int i = 0; i < values.length; i++) {
      f[i] = (float) values[i];
    }
    return arena.upload(f);
  }

  static long blocks(long threads) {
    return (threads + THREADS - 1) / THREADS;
  }

  /** The statistic's epilogue kernel, then constant and undefined voxels, as the CPU orders them. */
  private static final class Epilogue {
    private final Device ctx;
    private final GpuBlock g;
    private final String suffix;
    private final DeviceBuffer product;
    private final DeviceBuffer product2;
    private final DeviceBuffer out;
    private final DeviceBuffer perVoxel;
    private final DeviceBuffer perVoxel2;
    private final DeviceBuffer constantCols;
    private final DeviceBuffer constantValues;
    private final DeviceBuffer undefinedCols;
    private final DeviceBuffer undefinedValues;

    Epilogue(Device ctx, GpuBlock g, boolean f64, DeviceBuffer product,
        DeviceBuffer product2, DeviceBuffer out, DeviceBuffer perVoxel, DeviceBuffer perVoxel2,
        DeviceBuffer constantCols, DeviceBuffer constantValues, DeviceBuffer undefinedCols,
        DeviceBuffer undefinedValues) {
      this.ctx = ctx;
      this.g = g;
      this.suffix = f64 ? "_f64" : "_f32";
      this.product = product;
      this.product2 = product2;
      this.out = out;
      this.perVoxel = perVoxel;
      this.perVoxel2 = perVoxel2;
      this.constantCols = constantCols;
      this.constantValues = constantValues;
      this.undefinedCols = undefinedCols;
      this.undefinedValues = undefinedValues;
    }

    void run(int rows) {
      long r = rows;
      long b = g.b;
      long grid = blocks(r * b);
      switch (g.kind) {
        case SIGN_FLIP:
          ctx.launch("sign_flip" + suffix, grid, THREADS, product, out, r, b, (long) g.n,
              g.tStat ? 1L : 0L, perVoxel);
          break;
        case TWO_SAMPLE:
          ctx.launch("two_sample" + suffix, grid, THREADS, product,
              product2 != null ? product2 : product, out, r, b, (double) g.n1, (double) g.n2,
              g.welch ? 1L : 0L, perVoxel, perVoxel2);
          break;
        case CORRELATION:
          ctx.launch("correlation" + suffix, grid, THREADS, product, out, r, b, perVoxel);
          break;
        case BOOTSTRAP_LINEAR:
          ctx.launch("bootstrap_linear" + suffix, grid, THREADS, product,
              product2 != null ? product2 : product, out, r, b, (double) g.n, (long) g.statCode);
          if (constantCols != null) {
            ctx.launch("set_columns", blocks(r * g.constant.length), THREADS, out, r, b,
                constantCols, (long) g.constant.length, constantValues);
          }
          break;
        default:
          throw new IllegalStateException("[BUG] " + g.kind + " has no GEMM epilogue");
      }
      if (undefinedCols != null) {
        ctx.launch("set_columns", blocks(r * g.undefined.length), THREADS, out, r, b,
            undefinedCols, (long) g.undefined.length, undefinedValues);
      }
    }
  }
}
