package org.nlspark.core.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.nlspark.core.backend.GpuStatus;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Statistic;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileSpec;

/**
 * The device check (run by {@code gpu/device-check.sh} on a GPU machine; not a test):
 * <ol>
 *   <li>what was loaded: the driver, cuBLAS and NVRTC the shim chose;</li>
 *   <li>kernel parity: every statistic, both precisions, every tail, with and without --fwer, on
 *       {@link AdversarialData}, the device kernels fed the CPU's own GEMM products
 *       ({@link HostGemmDevice}) — equal to the CPU bit for bit, or FAIL;</li>
 *   <li>end-to-end parity with cuBLAS: bit for bit on integer data (every GEMM product is exact in
 *       any summation order), within tolerances on Gaussian data;</li>
 *   <li>a forced real device OOM: the tile is halved and rerun, results bit-identical;</li>
 *   <li>timings against the same run's cuBLAS SGEMM and DGEMM rates.</li>
 * </ol>
 * A table is printed last. Exit 0 when every check passes, 1 when one fails, 3 when no GPU is
 * usable (the line "no usable GPU: reason" says why).
 *
 * <p>Run: {@code java -Xmx24g -cp 'lib/*' org.nlspark.core.gpu.DeviceCheck [--quick]}
 */
public final class DeviceCheck {
  private final List<String[]> table = new ArrayList<>();
  private boolean failed;

  private DeviceCheck() {}

  public static void main(String[] args) {
    boolean quick = args.length > 0 && args[0].equals("--quick");
    GpuStatus status = new CudaGpuProbe().probe();
    System.out.println("probe: " + status);
    if (!status.available()) {
      System.out.println("no usable GPU: " + status.reason());
      System.exit(3);
    }
    DeviceCheck check = new DeviceCheck();
    check.info("loaded", CudaNative.versions());
    long seed = System.nanoTime();
    System.out.println("data seed: " + seed);
    check.guarded("kernel parity", () -> check.kernelParity(seed, quick));
    check.guarded("end-to-end parity", () -> check.parity(seed));
    check.guarded("forced device OOM -> halving, same results", () -> check.oom(seed));
    check.guarded("timings", () -> check.timings(quick));
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "%-52s %-6s %s", "check", "result", "detail"));
    for (String[] row : check.table) {
      System.out.println(String.format(Locale.ROOT, "%-52s %-6s %s", row[0], row[1], row[2]));
    }
    System.exit(check.failed ? 1 : 0);
  }

  private void guarded(String name, Runnable step) {
    try {
      step.run();
    } catch (RuntimeException e) {
      e.printStackTrace();
      row(name, false, "threw " + e);
    }
  }

  private void row(String check, boolean pass, String detail) {
    table.add(new String[] {check, pass ? "PASS" : "FAIL", detail});
    failed |= !pass;
    System.out.println(check + ": " + (pass ? "PASS" : "FAIL") + " " + detail);
  }

  private void info(String check, String detail) {
    table.add(new String[] {check, "-", detail});
    System.out.println(check + ": " + detail);
  }

  // ------------------------------------------------------------------ kernel parity

  static final Statistic[] STATISTICS = Statistic.values(); // every row of the table

  /** The device kernels on the CPU's GEMM products must equal the CPU bit for bit. */
  private void kernelParity(long seed, boolean quick) {
    HostGemmDevice device = new HostGemmDevice(CudaContext.shared(0));
    int voxels = quick ? 150 : 600;
    for (Statistic c : STATISTICS) {
      Analysis analysis = c.analysis();
      int runs = 0;
      String difference = null;
      for (Precision precision : Precision.values()) {
        for (Tail tail : analysis == Analysis.BOOTSTRAP ? new Tail[] {Tail.TWO} : Tail.values()) {
          for (boolean fwer : analysis == Analysis.BOOTSTRAP || tail != Tail.TWO
              ? new boolean[] {true} : new boolean[] {true, false}) {
            for (int variant = 0; variant < 2 && difference == null; variant++) {
              JobSpec spec = JobSpec.builder(analysis).statistic(c.statisticName()).replicates(1000)
                  .seed(seed + variant).tail(tail).fwer(fwer).precision(precision)
                  .saveSamples(variant == 1).build();
              JobInputs inputs = AdversarialData.inputs(analysis, 12, voxels, seed + variant,
                  variant);
              TileParity.Results r = TileParity.run(device, spec, inputs, new Grid(256, 64));
              difference = r.difference;
              runs++;
            }
          }
        }
      }
      row("kernel parity " + c.label(), difference == null,
          difference == null ? runs + " adversarial runs bit-identical to the CPU"
              : "FIRST DIFFERENCE " + difference);
    }
  }

  // ------------------------------------------------------------------ end-to-end parity

  /** Statistics whose GEMM products are exact on integer data, so cuBLAS must match bit for bit. */
  static final Statistic[] EXACT_ON_INTEGERS = {Statistic.SIGN_FLIP_MEAN,
      Statistic.SIGN_FLIP_T, Statistic.MEAN_DIFFERENCE, Statistic.SPEARMAN,
      Statistic.BOOTSTRAP_MEAN, Statistic.BOOTSTRAP_SUM, Statistic.BOOTSTRAP_MEDIAN,
      Statistic.BOOTSTRAP_MIN, Statistic.BOOTSTRAP_MAX};

  private void exactParity(long seed) {
    CudaContext ctx = CudaContext.shared(0);
    for (Statistic c : EXACT_ON_INTEGERS) {
      Analysis analysis = c.analysis();
      String difference = null;
      for (Precision precision : Precision.values()) {
        JobSpec spec = JobSpec.builder(analysis).statistic(c.statisticName()).replicates(2000)
            .seed(seed).precision(precision).build();
        JobInputs inputs = AdversarialData.integerInputs(analysis, 12, 700, seed);
        TileParity.Results r = TileParity.run(ctx, spec, inputs, Grid.DEFAULT);
        if (difference == null) {
          difference = r.difference;
        }
      }
      row("cuBLAS parity, integer data " + c.label(),
          difference == null, difference == null ? "bit-identical to the CPU (float64, float32)"
              : "FIRST DIFFERENCE " + difference);
    }
  }

  private void parity(long seed) {
    exactParity(seed);
    for (Precision precision : Precision.values()) {
      for (Statistic c : STATISTICS) {
        Analysis analysis = c.analysis();
        JobSpec spec = JobSpec.builder(analysis).statistic(c.statisticName()).replicates(1000)
            .seed(seed).precision(precision).build();
        JobInputs inputs = randomInputs(analysis, 40, 2500, seed);
        try {
          parityCase(spec, inputs);
        } catch (RuntimeException e) {
          e.printStackTrace();
          row("parity " + c.label() + " " + precision.label(), false, "threw " + e);
        }
      }
    }
  }

  private void parityCase(JobSpec spec, JobInputs inputs) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = TilePlanner.tailSize(spec, resampling.replicates());
    TilePlan plan = new TilePlan(Grid.DEFAULT, inputs.voxels(), resampling.replicates(), 3, 1, 0,
        tail, 1.0, "device check");
    double worstStat = 0;
    double worstP = 0;
    boolean exactOrder = true;
    for (TileSpec tile : plan.tiles()) {
      PartialResult cpu = TileExecutor.execute(spec, inputs, resampling, plan, tile);
      PartialResult gpu = GpuTileExecutor.execute(spec, inputs, resampling, plan, tile);
      if (cpu.observed != null) {
        worstStat = Math.max(worstStat, relDiff(cpu.observed, gpu.observed));
      }
      if (cpu.counts != null) {
        long[] a = cpu.counts.counts();
        long[] b = gpu.counts.counts();
        for (int v = 0; v < a.length; v++) {
          worstP = Math.max(worstP, Math.abs(a[v] - b[v]) / (double) cpu.counts.n());
        }
        worstStat = Math.max(worstStat, relDiff(cpu.nullMax.maxima(), gpu.nullMax.maxima()));
      }
      if (cpu.windowMoments != null) {
        for (int k = 0; k < cpu.windowMoments.length; k++) {
          worstStat = Math.max(worstStat,
              relDiff(cpu.windowMoments[k].mean(), gpu.windowMoments[k].mean()));
        }
        for (double q : new double[] {2.5, 50, 97.5}) {
          double[] a = new double[cpu.tails.elements()];
          double[] b = new double[a.length];
          cpu.tails.percentiles(q, a);
          gpu.tails.percentiles(q, b);
          double d = relDiff(a, b);
          worstStat = Math.max(worstStat, d);
          if (spec.statistic().matches("median|min|max") && d != 0) {
            exactOrder = false;
          }
        }
      }
    }
    boolean f32 = spec.precision() == Precision.FLOAT32;
    double statTol = f32 ? 2e-3 : 1e-9;
    double pTol = f32 ? 5e-3 : 1e-3;
    String name = "cuBLAS parity, Gaussian " + spec.analysis().command() + " "
        + spec.statistic() + " " + spec.precision().label();
    row(name, worstStat <= statTol && worstP <= pTol && exactOrder, String.format(Locale.ROOT,
        "max rel diff stat %.2e (tol %.0e), max |dp| %.2e (tol %.0e)%s", worstStat, statTol,
        worstP, pTol, spec.statistic().matches("median|min|max")
            ? (exactOrder ? ", order statistics bit-identical (same draws)" : ", ORDER STATS DIFFER")
            : ""));
  }

  private static double relDiff(double[] a, double[] b) {
    double worst = 0;
    for (int i = 0; i < a.length; i++) {
      if (Double.isNaN(a[i]) || Double.isNaN(b[i])) {
        if (Double.isNaN(a[i]) != Double.isNaN(b[i])) {
          return Double.POSITIVE_INFINITY;
        }
        continue;
      }
      if (Double.isInfinite(a[i]) || Double.isInfinite(b[i])) {
        if (a[i] != b[i]) {
          return Double.POSITIVE_INFINITY;
        }
        continue;
      }
      worst = Math.max(worst, Math.abs(a[i] - b[i]) / (1.0 + Math.abs(a[i])));
    }
    return worst;
  }

  // ------------------------------------------------------------------ OOM

  private void oom(long seed) {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(240_000)
        .seed(seed).precision(Precision.FLOAT32).build();
    JobInputs inputs = randomInputs(Analysis.ONE_SAMPLE, 100, 1024, seed);
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    TilePlan plan = new TilePlan(Grid.DEFAULT, 1024, resampling.replicates(),
        Grid.DEFAULT.windows(resampling.replicates()), 1, 0, 0, 1.0, "device check");
    TileSpec tile = plan.tiles().get(0); // one tile: 1875 windows, ~96 MB of float32 draws
    PartialResult free = GpuTileExecutor.execute(spec, inputs, resampling, plan, tile);
    CudaContext ctx = CudaContext.shared(0);
    List<DeviceBuffer> ballast = new ArrayList<>();
    long halvingsBefore = GpuTileExecutor.oomHalvings();
    PartialResult pressed;
    long leftMb;
    try {
      long chunk = 1L << 30;
      long keep = 48L << 20;
      while (ctx.memoryInfo()[0] > keep + (4L << 20)) {
        long want = Math.min(chunk, ctx.memoryInfo()[0] - keep);
        try {
          ballast.add(ctx.allocate(want));
        } catch (org.nlspark.core.memory.DeviceOutOfMemoryException e) {
          chunk = Math.max(1L << 20, chunk / 2);
          if (chunk == 1L << 20) {
            break;
          }
        }
      }
      leftMb = ctx.memoryInfo()[0] >> 20;
      System.out.println("device memory left after ballast: " + leftMb + " MiB");
      pressed = GpuTileExecutor.execute(spec, inputs, resampling, plan, tile);
    } finally {
      for (DeviceBuffer b : ballast) {
        b.close();
      }
    }
    long halvings = GpuTileExecutor.oomHalvings() - halvingsBefore;
    boolean same = java.util.Arrays.equals(free.counts.toBytes(), pressed.counts.toBytes())
        && java.util.Arrays.equals(free.nullMax.toBytes(), pressed.nullMax.toBytes())
        && java.util.Arrays.equals(free.observed, pressed.observed);
    row("forced device OOM -> halving, same results", halvings > 0 && same, "halvings "
        + halvings + ", " + leftMb + " MiB left to the run, outputs bit-identical: " + same);
  }

  // ------------------------------------------------------------------ timings

  private void timings(boolean quick) {
    CudaContext ctx = CudaContext.shared(0);
    double speak = gemmRate(ctx, false, 8192, 8192, 8192, 5);
    double dpeak = gemmRate(ctx, true, 8192, 8192, 8192, 3);
    info("cuBLAS SGEMM 8192^3 (same run)", String.format(Locale.ROOT, "%.0f GFLOP/s", speak));
    info("cuBLAS DGEMM 8192^3 (same run)", String.format(Locale.ROOT, "%.0f GFLOP/s", dpeak));
    int voxels = quick ? 20_000 : 200_000;
    int subjects = 100;
    int flips = 10_000;
    for (boolean f64 : new boolean[] {false, true}) {
      double peak = f64 ? dpeak : speak;
      String gemm = f64 ? "DGEMM" : "SGEMM";
      double[] loop = deviceLoop(ctx, f64, subjects, voxels, flips);
      info(String.format(Locale.ROOT, "cell %s only, %s", gemm, f64 ? "float64" : "float32"),
          String.format(Locale.ROOT, "%.4f s: %.1f%% of %s peak (cells of %d voxels x %d"
              + " replicates x %d subjects)", loop[0], 100 * loop[2] / loop[0] / 1e9 / peak, gemm,
              Grid.DEFAULT.voxelBlock(), Grid.DEFAULT.window(), subjects));
      info(String.format(Locale.ROOT, "one-sample t + max-T kernels, %s", f64 ? "float64"
          : "float32"), String.format(Locale.ROOT, "%.4f s device time: %.2f of same-run %s"
              + " peak, %.2f of its cell GEMMs alone (n=%d V=%d P=%d, draws resident)", loop[1],
              loop[2] / loop[1] / 1e9 / peak, gemm, loop[0] / loop[1], subjects, voxels, flips));
    }

    JobSpec t = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(flips).seed(1)
        .fwer(true).precision(Precision.FLOAT32).build();
    timeRun("one-sample t max-T end to end n=100 V=" + voxels + " P=" + flips, t,
        randomInputs(Analysis.ONE_SAMPLE, subjects, voxels, 2), speak);

    JobSpec boot = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(5_000)
        .seed(1).precision(Precision.FLOAT32).build();
    timeRun("bootstrap mean pct CI end to end n=100 V=" + voxels + " B=5000", boot,
        randomInputs(Analysis.BOOTSTRAP, subjects, voxels, 3), speak);
  }

  /**
   * The executor's device work for one-sample t + max-T two-tailed with the draws already on the
   * device: per (voxel block, window) cell one GEMM, flip_count, flip_fold_keys, row_maxima and
   * flip_row_max. Returns {seconds of the GEMMs alone, seconds of the whole chain, flops}.
   */
  private static double[] deviceLoop(CudaContext ctx, boolean f64, int n, int voxels, int p) {
    int b = Grid.DEFAULT.voxelBlock();
    int w = Grid.DEFAULT.window();
    int es = f64 ? 8 : 4;
    int windows = (p + w - 1) / w;
    int blocks = (voxels + b - 1) / b;
    String suffix = f64 ? "_f64" : "_f32";
    try (DeviceArena arena = new DeviceArena(ctx)) {
      DeviceBuffer x = arena.alloc((long) es * n * b);
      DeviceBuffer d = arena.alloc((long) es * windows * w * n);
      DeviceBuffer product = arena.alloc((long) es * w * b);
      DeviceBuffer out = arena.alloc(8L * w * b);
      DeviceBuffer scale = arena.alloc(8L * b);
      DeviceBuffer th = arena.alloc(32L * b);
      DeviceBuffer counts = arena.alloc(8L * b);
      DeviceBuffer maxima = arena.alloc(8L * windows * w);
      x.zero();
      d.zero();
      scale.zero();
      th.zero();
      counts.zero();
      double[] seconds = new double[2];
      for (int pass = 0; pass < 3; pass++) { // pass 0 warms up; 1 GEMMs only; 2 the chain
        ctx.synchronize();
        long start = System.nanoTime();
        for (int blk = 0; blk < (pass == 0 ? 1 : blocks); blk++) {
          for (int k = 0; k < windows; k++) {
            ctx.gemm(f64, false, false, b, w, n, 1.0, x.address(), b,
                d.address((long) k * w * n, es), n, 0.0, product.address(), b);
            if (pass != 1) {
              ctx.launch("flip_count" + suffix, GpuTileExecutor.blocks(b), 256, product,
                  (long) w, (long) b, 1L, scale, th, counts);
              ctx.launch("flip_fold_keys" + suffix, GpuTileExecutor.blocks((long) w * b), 256,
                  product, out, (long) w, (long) b, 1L, scale);
              long rowMax = maxima.address((long) k * w, 8);
              ctx.launch("row_maxima", w, 256, out, (long) w, (long) b, rowMax);
              ctx.launch("flip_row_max", GpuTileExecutor.blocks(w), 256, rowMax, (long) w, 1L,
                  (long) n, 1L);
            }
          }
        }
        ctx.synchronize();
        if (pass > 0) {
          seconds[pass - 1] = (System.nanoTime() - start) / 1e9;
        }
      }
      double flops = 2.0 * n * (double) blocks * b * (double) windows * w;
      return new double[] {seconds[0], seconds[1], flops};
    }
  }

  private void timeRun(String name, JobSpec spec, JobInputs inputs, double peak) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = TilePlanner.tailSize(spec, resampling.replicates());
    TilePlan plan = new TilePlan(Grid.DEFAULT, inputs.voxels(), resampling.replicates(),
        Grid.DEFAULT.windows(resampling.replicates()), 1, 0, tail, 1.0, "device check");
    long start = System.nanoTime();
    long flops = 0;
    for (TileSpec tile : plan.tiles()) {
      PartialResult r = GpuTileExecutor.execute(spec, inputs, resampling, plan, tile);
      flops += r.flops;
    }
    double seconds = (System.nanoTime() - start) / 1e9;
    double gflops = flops / seconds / 1e9;
    info(name, String.format(Locale.ROOT, "%.2f s, %d tiles, %.0f GFLOP/s = %.1f%% of SGEMM peak"
        + " (host draws, epilogues and transfers included)", seconds, plan.tileCount(), gflops,
        100 * gflops / peak));
  }

  private static double gemmRate(CudaContext ctx, boolean f64, int m, int n, int k, int reps) {
    int es = f64 ? 8 : 4;
    try (DeviceBuffer a = ctx.allocate((long) es * m * k);
        DeviceBuffer b = ctx.allocate((long) es * k * n);
        DeviceBuffer c = ctx.allocate((long) es * m * n)) {
      a.zero();
      b.zero();
      ctx.gemm(f64, false, false, m, n, k, 1, a.address(), m, b.address(), k, 0, c.address(), m);
      ctx.synchronize();
      long start = System.nanoTime();
      for (int i = 0; i < reps; i++) {
        ctx.gemm(f64, false, false, m, n, k, 1, a.address(), m, b.address(), k, 0, c.address(),
            m);
      }
      ctx.synchronize();
      double seconds = (System.nanoTime() - start) / 1e9;
      return 2.0 * m * n * k * reps / seconds / 1e9;
    }
  }

  // ------------------------------------------------------------------ data

  static JobInputs randomInputs(Analysis analysis, int n, int voxels, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] x = new double[n * voxels];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() + ((i % voxels) % 7 == 0 ? 0.4 : 0.0);
    }
    for (int i = 0; i < n; i++) {
      x[i * voxels + Math.min(3, voxels - 1)] = 2.0; // one constant voxel
    }
    DataMatrix xm = DataMatrix.of(n, voxels, x, "--input");
    switch (analysis) {
      case TWO_SAMPLE: {
        double[] y = new double[n * voxels];
        for (int i = 0; i < y.length; i++) {
          y[i] = rng.nextGaussian();
        }
        return JobInputs.twoGroups(xm, DataMatrix.of(n, voxels, y, "--input2"));
      }
      case CORRELATION: {
        double[] target = new double[n];
        for (int i = 0; i < n; i++) {
          target[i] = rng.nextGaussian();
        }
        return JobInputs.withTarget(xm, target);
      }
      default:
        return JobInputs.of(xm);
    }
  }
}
