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
import org.nlspark.core.job.Precision;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;

/**
 * The device check (run by {@code gpu/device-check.sh} on a GPU machine; not a test): GPU-vs-CPU
 * parity for every statistic on fresh random data, a forced real device OOM with recovery, and
 * timings against the same run's cuBLAS SGEMM rate; a short table is printed last. Exit 0 when
 * every check passes, 1 when one fails, 3 when no GPU is usable.
 *
 * <p>Run: {@code java -Xmx8g -cp nlspark-core.jar:lib/* org.nlspark.core.gpu.DeviceCheck [--quick]}
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
    long seed = System.nanoTime();
    System.out.println("data seed: " + seed);
    check.parity(seed);
    try {
      check.oom(seed);
    } catch (RuntimeException e) {
      e.printStackTrace();
      check.row("forced device OOM -> halving, same results", false, "threw " + e);
    }
    try {
      check.timings(quick);
    } catch (RuntimeException e) {
      e.printStackTrace();
      check.row("timings", false, "threw " + e);
    }
    System.out.println();
    System.out.println(String.format(Locale.ROOT, "%-44s %-12s %s", "check", "result", "detail"));
    for (String[] row : check.table) {
      System.out.println(String.format(Locale.ROOT, "%-44s %-12s %s", row[0], row[1], row[2]));
    }
    System.exit(check.failed ? 1 : 0);
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

  // ------------------------------------------------------------------ parity

  private void parity(long seed) {
    String[][] cases = {{"ONE_SAMPLE", "mean"}, {"ONE_SAMPLE", "t"}, {"TWO_SAMPLE", "mean-diff"},
        {"TWO_SAMPLE", "welch-t"}, {"CORRELATION", "pearson"}, {"CORRELATION", "spearman"},
        {"BOOTSTRAP", "mean"}, {"BOOTSTRAP", "sum"}, {"BOOTSTRAP", "std"}, {"BOOTSTRAP", "median"},
        {"BOOTSTRAP", "min"}, {"BOOTSTRAP", "max"}};
    for (Precision precision : Precision.values()) {
      for (String[] c : cases) {
        Analysis analysis = Analysis.valueOf(c[0]);
        JobSpec spec = JobSpec.builder(analysis).statistic(c[1]).replicates(1000).seed(seed)
            .precision(precision).build();
        JobInputs inputs = randomInputs(analysis, 40, 2500, seed);
        try {
          parityCase(spec, inputs);
        } catch (RuntimeException e) {
          e.printStackTrace();
          row("parity " + c[0] + " " + c[1] + " " + precision.label(), false, "threw " + e);
        }
      }
    }
  }

  private void parityCase(JobSpec spec, JobInputs inputs) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = spec.analysis() == Analysis.BOOTSTRAP
        ? BootstrapMemory.tailSize(resampling.replicates(), spec.confidence()) : 0;
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
    String name = "parity " + spec.analysis().command() + " " + spec.statistic() + " "
        + spec.precision().label();
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
    double peak = sgemmRate(ctx, 8192, 8192, 8192, 5);
    double cell = sgemmRate(ctx, 1024, 128, 100, 2000);
    info("cuBLAS SGEMM 8192^3 (same run)", String.format(Locale.ROOT, "%.0f GFLOP/s", peak));
    info("cuBLAS SGEMM cell 1024x128x100", String.format(Locale.ROOT, "%.0f GFLOP/s (%.1f%% of"
        + " peak)", cell, 100 * cell / peak));
    int voxels = quick ? 20_000 : 200_000;

    JobSpec t = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(10_000).seed(1)
        .fwer(true).precision(Precision.FLOAT32).build();
    timeRun("one-sample t max-T n=100 V=" + voxels + " P=10000", t,
        randomInputs(Analysis.ONE_SAMPLE, 100, voxels, 2), peak);

    JobSpec boot = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(5_000)
        .seed(1).precision(Precision.FLOAT32).build();
    timeRun("bootstrap mean pct CI n=100 V=" + voxels + " B=5000", boot,
        randomInputs(Analysis.BOOTSTRAP, 100, voxels, 3), peak);
  }

  private void timeRun(String name, JobSpec spec, JobInputs inputs, double peak) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = spec.analysis() == Analysis.BOOTSTRAP
        ? BootstrapMemory.tailSize(resampling.replicates(), spec.confidence()) : 0;
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

  private static double sgemmRate(CudaContext ctx, int m, int n, int k, int reps) {
    try (DeviceBuffer a = ctx.allocate(4L * m * k); DeviceBuffer b = ctx.allocate(4L * k * n);
        DeviceBuffer c = ctx.allocate(4L * m * n)) {
      a.zero();
      b.zero();
      ctx.gemm(false, false, false, m, n, k, 1, a.address(), m, b.address(), k, 0, c.address(), m);
      ctx.synchronize();
      long start = System.nanoTime();
      for (int i = 0; i < reps; i++) {
        ctx.gemm(false, false, false, m, n, k, 1, a.address(), m, b.address(), k, 0, c.address(),
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
