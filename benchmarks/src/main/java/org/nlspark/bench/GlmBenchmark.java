package org.nlspark.bench;

import java.util.Locale;
import java.util.SplittableRandom;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.job.Precision;
import org.nlspark.core.stats.BlockGemm;
import org.nlspark.core.tile.Grid;

/**
 * The glm command's workload of issue 11 (DESIGN §7 ratio): n samples x V voxels x P
 * permutations, a design of an intercept, a group and 4 nuisance covariates, 2 t contrasts
 * (group, first covariate), Freedman-Lane with row permutations, FWER on, through the tile
 * pipeline on {@code threads} threads. Counted work is the kernels' GEMM flops (per contrast
 * and window 2 (w q) n b, q the design rank). Two peaks from the same run: square DGEMM (as
 * {@link KernelBenchmark}) and the kernel's own GEMM shape (w q x n x b), both single-threaded per
 * call times the threads, as the tiles run. Usage:
 * {@code GlmBenchmark [n V P threads]}, defaults 200 100000 5000 2; give a smaller V to measure a
 * fraction and extrapolate (time is linear in V).
 */
public final class GlmBenchmark {
  private GlmBenchmark() {}

  public static void main(String[] args) throws Exception {
    int n = args.length > 0 ? Integer.parseInt(args[0]) : 200;
    int v = args.length > 1 ? Integer.parseInt(args[1]) : 100_000;
    long p = args.length > 2 ? Long.parseLong(args[2]) : 5000;
    int threads = args.length > 3 ? Integer.parseInt(args[3]) : 2;
    System.out.println("BLAS: " + Blas.describe());
    System.out.printf("OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s%n",
        System.getenv("OPENBLAS_CORETYPE"), System.getenv("OPENBLAS_L2_SIZE"));
    SplittableRandom rng = new SplittableRandom(1);
    double[][] m = new double[n][6];
    String[] names = {"intercept", "group", "age", "sex", "site", "motion"};
    for (int i = 0; i < n; i++) {
      m[i][0] = 1;
      m[i][1] = i % 2;
      for (int j = 2; j < 6; j++) {
        m[i][j] = rng.nextGaussian();
      }
    }
    double[] y = new double[Math.multiplyExact(n, v)];
    for (int i = 0; i < y.length; i++) {
      y[i] = rng.nextGaussian();
    }
    GlmContrasts contrasts = GlmContrasts.of(new double[][] {{0, 1, 0, 0, 0, 0},
        {0, 0, 1, 0, 0, 0}}, null);
    GlmRun.Options o = GlmRun.Options.defaults(p, 7);
    Grid grid = o.grid();
    double square = KernelBenchmark.peak(Precision.FLOAT64, threads);
    double shape = shapePeak(n, 6, grid, threads);
    GlmAnalysis a = GlmAnalysis.prepare(DataMatrix.of(n, v, y, "benchmark"),
        new GlmDesign(m, names, "benchmark design"), contrasts, o, "cpu", null);
    long t0 = System.nanoTime();
    RunReport r = new LocalEngine(threads, grid, null).run(a);
    double seconds = (System.nanoTime() - t0) / 1e9;
    double gflops = r.flops / seconds / 1e9;
    shape = Math.max(shape, shapePeak(n, 6, grid, threads)); // the machine is shared: re-measure
    System.out.printf(Locale.ROOT, "glm n=%d V=%d P=%d contrasts=2 rank=%d threads=%d: %.1f s,"
        + " %.3g GEMM flops, %.1f GFLOP/s; square DGEMM peak %.1f GFLOP/s (ratio %.2f);"
        + " same-shape GEMM peak (%dx%dx%d, 1 thread per call) %.1f GFLOP/s (ratio %.2f)%n",
        n, v, p, a.model().rank(), threads, seconds, (double) r.flops, gflops, square,
        gflops / square, grid.window() * a.model().rank(), n, grid.voxelBlock(), shape,
        gflops / shape);
    System.out.printf(Locale.ROOT, "{\"workload\":\"glm\",\"samples\":%d,\"voxels\":%d,"
        + "\"permutations\":%d,\"threads\":%d,\"seconds\":%.2f,\"gflops\":%.2f,"
        + "\"square_peak_gflops\":%.2f,\"shape_peak_gflops\":%.2f,\"ratio_square\":%.3f,"
        + "\"ratio_shape\":%.3f}%n", n, v, p, threads, seconds, gflops, square, shape,
        gflops / square, gflops / shape);
  }

  /** The kernel's GEMM (w q x n x b) on {@code threads} threads at once, one call each. */
  static double shapePeak(int n, int q, Grid grid, int threads) throws InterruptedException {
    Blas.setThreads(1);
    double[] rates = new double[threads];
    Thread[] all = new Thread[threads];
    for (int t = 0; t < threads; t++) {
      final int idx = t;
      all[t] = new Thread(() -> {
        SplittableRandom r = new SplittableRandom(idx);
        int b = grid.voxelBlock();
        int rows = grid.window() * q;
        double[] e = new double[n * b];
        double[] d = new double[rows * n];
        for (int i = 0; i < e.length; i++) {
          e[i] = r.nextGaussian();
        }
        for (int i = 0; i < d.length; i++) {
          d[i] = r.nextGaussian();
        }
        BlockGemm gemm = new BlockGemm(Precision.FLOAT64, e, n, b, rows);
        double[] out = new double[rows * b];
        for (int i = 0; i < 3; i++) {
          gemm.multiply(d, out);
        }
        int reps = 20;
        long s = System.nanoTime();
        for (int i = 0; i < reps; i++) {
          gemm.multiply(d, out);
        }
        rates[idx] = reps * 2.0 * rows * n * b / ((System.nanoTime() - s) / 1e9);
      });
      all[t].start();
    }
    double sum = 0;
    for (int t = 0; t < threads; t++) {
      all[t].join();
      sum += rates[t];
    }
    return sum / 1e9;
  }
}
