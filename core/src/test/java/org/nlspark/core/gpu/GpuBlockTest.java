package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.tile.Grid;

/**
 * The GPU's host side (data transforms, per-voxel constants, constant/undefined voxels, draws) must
 * feed the device exactly what the CPU kernels use. Without a GPU, this runs the GPU pipeline's
 * arithmetic on the host — naive GEMM of {@link GpuBlock}'s draws and data, then the epilogue
 * formulas of nlspark_kernels.cu written out in Java — and compares with the CPU kernels.
 */
class GpuBlockTest {
  private static final int N = 9;
  private static final int V = 7;
  private static final int W = 16;

  @ParameterizedTest
  @CsvSource({"ONE_SAMPLE,mean,40", "ONE_SAMPLE,t,40", "ONE_SAMPLE,t,600", "TWO_SAMPLE,mean-diff,40",
      "TWO_SAMPLE,welch-t,40", "CORRELATION,pearson,40", "CORRELATION,spearman,40",
      "BOOTSTRAP,mean,40", "BOOTSTRAP,sum,40", "BOOTSTRAP,std,40"})
  void hostSideMatchesTheCpuKernel(Analysis analysis, String stat, long replicates) {
    JobSpec spec = JobSpec.builder(analysis).statistic(stat).replicates(replicates).seed(11)
        .build();
    JobInputs inputs = inputs(analysis);
    ResamplingPlan plan = ResamplingPlan.forJob(spec, inputs);
    Grid grid = new Grid(V, W);
    GpuBlock g = GpuBlock.create(spec, inputs, plan, grid, 0);
    BlockStatistic cpu = Kernels.create(spec, inputs, plan, grid.blockStart(0), grid.blockEnd(0, inputs.voxels()), grid.window());
    int rows = 13;
    long first = 5;
    double[] expected = new double[W * V];
    cpu.compute(first, rows, expected);
    double[] d = new double[W * g.n];
    for (int r = 0; r < rows; r++) {
      g.fillDraw(first + r, d, r * g.n);
    }
    double[] actual = epilogue(g, d, rows);
    for (int i = 0; i < rows * V; i++) {
      if (Double.isNaN(expected[i])) {
        assertThat(actual[i]).as("element " + i).isNaN();
      } else {
        assertThat(actual[i]).as("element " + i)
            .isCloseTo(expected[i], org.assertj.core.data.Offset.offset(1e-9 * (1 + Math.abs(expected[i]))));
      }
    }
    if (analysis != Analysis.BOOTSTRAP) {
      double[] obs = new double[V];
      cpu.observed(obs);
      double[] id = new double[W * g.n];
      g.fillIdentity(id, 0);
      double[] gpuObs = epilogue(g, id, 1);
      for (int v = 0; v < V; v++) {
        if (Double.isNaN(obs[v])) {
          assertThat(gpuObs[v]).isNaN();
        } else {
          assertThat(gpuObs[v]).isCloseTo(obs[v], org.assertj.core.data.Offset.offset(1e-9));
        }
      }
    }
  }

  private static JobInputs inputs(Analysis analysis) {
    SplittableRandom rng = new SplittableRandom(3);
    double[] x = new double[N * V];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() + 0.3;
    }
    for (int i = 0; i < N; i++) {
      x[i * V + 2] = 1.5; // a constant voxel
    }
    DataMatrix xm = DataMatrix.of(N, V, x, "--input");
    switch (analysis) {
      case TWO_SAMPLE: {
        double[] y = new double[6 * V];
        for (int i = 0; i < y.length; i++) {
          y[i] = rng.nextGaussian();
        }
        for (int i = 0; i < 6; i++) {
          y[i * V + 2] = -0.5;
        }
        return JobInputs.twoGroups(xm, DataMatrix.of(6, V, y, "--input2"));
      }
      case CORRELATION: {
        double[] t = new double[N];
        for (int i = 0; i < N; i++) {
          t[i] = rng.nextInt(4); // ties, for Spearman
        }
        return JobInputs.withTarget(xm, t);
      }
      default:
        return JobInputs.of(xm);
    }
  }

  /** Naive D * data, then the formulas of the CUDA epilogues, constants and NaN columns. */
  private static double[] epilogue(GpuBlock g, double[] d, int rows) {
    int n = g.n;
    int b = g.b;
    double[] p = product(d, g.data, rows, n, b);
    double[] p2 = g.data2 == null ? null : product(d, g.data2, rows, n, b);
    double[] out = new double[rows * b];
    for (int i = 0; i < rows * b; i++) {
      int v = i % b;
      switch (g.kind) {
        case SIGN_FLIP: {
          double mean = p[i] / n;
          out[i] = !g.tStat ? mean
              : mean / Math.sqrt(((g.perVoxel[v] - p[i] * mean) / (n - 1)) / n);
          break;
        }
        case TWO_SAMPLE: {
          double a = g.n1;
          double c = g.n2;
          double s1 = p[i];
          double s2 = g.perVoxel[v] - s1;
          double m1 = s1 / a;
          double m2 = s2 / c;
          if (!g.welch) {
            out[i] = m1 - m2;
          } else {
            double q1 = p2[i];
            double q2 = g.perVoxel2[v] - q1;
            double v1 = Math.max(0.0, (q1 - s1 * m1) / (a - 1));
            double v2 = Math.max(0.0, (q2 - s2 * m2) / (c - 1));
            out[i] = (m1 - m2) / Math.sqrt(v1 / a + v2 / c);
          }
          break;
        }
        case CORRELATION:
          out[i] = p[i] > 1 ? 1 : (p[i] < -1 ? -1 : p[i]);
          break;
        case BOOTSTRAP_LINEAR: {
          double s = p[i];
          out[i] = g.statCode == GpuBlock.SUM ? s : g.statCode == GpuBlock.MEAN ? s / n
              : Math.sqrt(Math.max(0.0, p2[i] / n - (s / n) * (s / n)));
          break;
        }
        default:
          throw new IllegalStateException(g.kind.toString());
      }
    }
    for (int r = 0; r < rows; r++) {
      for (int k = 0; k < g.constant.length; k++) {
        out[r * b + g.constant[k]] = g.constantValue[k];
      }
      for (int u : g.undefined) {
        out[r * b + u] = Double.NaN;
      }
    }
    return out;
  }

  private static double[] product(double[] d, double[] x, int rows, int n, int b) {
    double[] p = new double[rows * b];
    for (int r = 0; r < rows; r++) {
      for (int v = 0; v < b; v++) {
        double s = 0;
        for (int i = 0; i < n; i++) {
          s += d[r * n + i] * x[i * b + v];
        }
        p[r * b + v] = s;
      }
    }
    return p;
  }
}
