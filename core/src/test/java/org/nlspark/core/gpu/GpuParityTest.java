package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nlspark.core.backend.GpuStatus;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileSpec;

/** GPU tiles against CPU tiles in float64 (skipped, never failed, where no GPU is usable). */
@Tag("gpu")
class GpuParityTest {
  @BeforeAll
  static void requireGpu() {
    GpuStatus s = new CudaGpuProbe().probe();
    assumeTrue(s.available(), "no usable GPU: " + s.reason());
  }

  @ParameterizedTest
  @CsvSource({"ONE_SAMPLE,mean", "ONE_SAMPLE,t", "TWO_SAMPLE,mean-diff", "TWO_SAMPLE,welch-t",
      "CORRELATION,pearson", "CORRELATION,spearman", "BOOTSTRAP,mean", "BOOTSTRAP,sum",
      "BOOTSTRAP,std", "BOOTSTRAP,median", "BOOTSTRAP,min", "BOOTSTRAP,max"})
  void gpuTilesMatchCpuTiles(Analysis analysis, String stat) {
    JobSpec spec = JobSpec.builder(analysis).statistic(stat).replicates(500).seed(21)
        .precision(Precision.FLOAT64).build();
    JobInputs inputs = DeviceCheck.randomInputs(analysis, 24, 300, 4);
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = TilePlanner.tailSize(spec, resampling.replicates());
    TilePlan plan = new TilePlan(new Grid(128, 64), 300, resampling.replicates(), 3, 1, 0, tail,
        1.0, "test");
    for (TileSpec tile : plan.tiles()) {
      PartialResult cpu = TileExecutor.execute(spec, inputs, resampling, plan, tile);
      PartialResult gpu = GpuTileExecutor.execute(spec, inputs, resampling, plan, tile);
      if (cpu.observed != null) {
        assertClose(gpu.observed, cpu.observed);
      }
      if (cpu.counts != null) {
        long[] a = cpu.counts.counts();
        long[] b = gpu.counts.counts();
        for (int v = 0; v < a.length; v++) {
          assertThat(Math.abs(a[v] - b[v])).as("count of voxel " + v).isLessThanOrEqualTo(1);
        }
        assertClose(gpu.nullMax.maxima(), cpu.nullMax.maxima());
      } else {
        for (int k = 0; k < cpu.windowMoments.length; k++) {
          assertClose(gpu.windowMoments[k].mean(), cpu.windowMoments[k].mean());
        }
        if (stat.matches("median|min|max")) { // no GEMM: the same draws give the same bits
          assertThat(gpu.tails.toBytes()).isEqualTo(cpu.tails.toBytes());
        }
      }
    }
  }

  private static void assertClose(double[] actual, double[] expected) {
    assertThat(actual).hasSameSizeAs(expected);
    for (int i = 0; i < expected.length; i++) {
      if (Double.isNaN(expected[i])) {
        assertThat(actual[i]).as("element " + i).isNaN();
      } else {
        assertThat(actual[i]).as("element " + i).isCloseTo(expected[i],
            org.assertj.core.data.Offset.offset(1e-9 * (1 + Math.abs(expected[i]))));
      }
    }
  }
}
