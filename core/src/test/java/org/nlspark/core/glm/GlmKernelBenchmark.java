package org.nlspark.core.glm;

import java.util.Locale;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.stats.BlockGemm;
import org.nlspark.core.tile.Grid;

/**
 * Single-thread throughput of the GLM kernel against the GEMM peak of the same call shape
 * (DESIGN §7 ratio). Off by default; run with
 * {@code mvn -pl core verify -Dtest=GlmKernelBenchmark -Dglm.bench=true
 * -Dglm.voxels=8192 -Dglm.permutations=1000}.
 */
@EnabledIfSystemProperty(named = "glm.bench", matches = "true")
class GlmKernelBenchmark {
  @Test
  void throughputAgainstGemmPeak() {
    int n = 200;
    int voxels = Integer.getInteger("glm.voxels", 8192);
    long permutations = Long.getLong("glm.permutations", 1000);
    Grid grid = Grid.DEFAULT;
    Random rng = new Random(1);
    double[][] m = new double[n][6]; // intercept, group, 4 nuisance covariates
    for (int i = 0; i < n; i++) {
      m[i][0] = 1;
      m[i][1] = i % 2;
      for (int j = 2; j < 6; j++) {
        m[i][j] = rng.nextGaussian();
      }
    }
    double[] y = new double[n * grid.voxelBlock()];
    for (int i = 0; i < y.length; i++) {
      y[i] = rng.nextGaussian();
    }
    GlmModel model = GlmModel.prepare(GlmContrastStatisticTest.named(m), GlmContrasts.of(
        new double[][] {{0, 1, 0, 0, 0, 0}, {0, -1, 0, 0, 0, 0}}, null), n);
    int b = grid.voxelBlock();
    int blocks = grid.blocks(voxels);
    run(model, y, grid, 1, Math.min(permutations, 4L * grid.window())); // JIT warm-up
    long start = System.nanoTime();
    long flops = run(model, y, grid, blocks, permutations);
    double seconds = (System.nanoTime() - start) / 1e9;
    int q = model.rank();
    BlockGemm gemm = new BlockGemm(Precision.FLOAT64, y, n, b, grid.window() * q);
    double[] d = new double[grid.window() * q * n];
    for (int i = 0; i < d.length; i++) {
      d[i] = rng.nextGaussian();
    }
    double[] prod = new double[grid.window() * q * b];
    for (int i = 0; i < 5; i++) {
      gemm.multiply(d, prod);
    }
    int reps = 40;
    long g0 = System.nanoTime();
    for (int i = 0; i < reps; i++) {
      gemm.multiply(d, prod);
    }
    double peak = reps * (double) gemm.flops() / ((System.nanoTime() - g0) / 1e9);
    double rate = flops / seconds;
    System.out.println(String.format(Locale.ROOT,
        "GLM kernel: n=%d q=%d voxels=%d permutations=%d contrasts=2: %.2f s, %.1f GFLOP/s;"
            + " GEMM peak (same shape %dx%dx%d, 1 thread) %.1f GFLOP/s; ratio %.2f; %s",
        n, q, blocks * b, permutations, seconds, rate / 1e9, grid.window() * q, n, b, peak / 1e9,
        rate / peak, Blas.describe()));
  }

  private static long run(GlmModel model, double[] y, Grid grid, int blocks, long permutations) {
    int n = model.samples();
    int b = grid.voxelBlock();
    double[] out = new double[grid.window() * b];
    long flops = 0;
    for (GlmContrast c : model.contrasts()) {
      GlmDraws draws = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, c.effect(),
          n, permutations, 3);
      for (int block = 0; block < blocks; block++) {
        // the same data per block: throughput does not depend on the values
        GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws, y, b, grid.window(),
            Precision.FLOAT64);
        for (long first = 0; first < permutations; first += grid.window()) {
          int rows = (int) Math.min(grid.window(), permutations - first);
          k.compute(first, rows, out);
        }
        flops += k.flops();
      }
    }
    return flops;
  }
}
