package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.memory.DeviceOutOfMemoryException;
import org.nlspark.core.memory.OomRecovery;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileSpec;

/**
 * The OOM path of {@link GpuTileExecutor}: halving a tile's windows and combining the halves must
 * give the unsplit tile's accumulators exactly. The window-range function here is the CPU
 * executor on a sub-tile (same accumulators, same draws), failing like a device would for ranges
 * wider than a limit.
 */
class OomCombineTest {
  @ParameterizedTest
  @CsvSource({"ONE_SAMPLE,t,1", "ONE_SAMPLE,t,3", "TWO_SAMPLE,welch-t,2", "BOOTSTRAP,mean,1",
      "BOOTSTRAP,median,2", "CORRELATION,pearson,4"})
  void halvingAndCombiningGivesTheUnsplitTile(Analysis analysis, String stat, int maxWindows) {
    JobSpec.Builder b = JobSpec.builder(analysis).statistic(stat).replicates(300).seed(5);
    if (analysis == Analysis.BOOTSTRAP) {
      b.saveSamples(true);
    }
    JobSpec spec = b.build();
    JobInputs inputs = inputs(analysis);
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = TilePlanner.tailSize(spec, resampling.replicates());
    TilePlan plan = new TilePlan(new Grid(8, 16), inputs.voxels(), resampling.replicates(), 19, 1,
        0, tail, 1.0, "test");
    TileSpec tile = plan.tiles().get(1); // block 1, all 19 windows (the last one partial)
    PartialResult whole = TileExecutor.execute(spec, inputs, resampling, plan, tile);

    List<String> calls = new ArrayList<>();
    PartialResult split = OomRecovery.run(tile.windowCount(), 1, (from, to) -> {
      calls.add(from + "-" + to);
      if (to - from > maxWindows) {
        throw new DeviceOutOfMemoryException("test: " + (to - from) + " windows do not fit");
      }
      TileSpec sub = new TileSpec(tile.index(), tile.block(), tile.firstWindow() + from, to - from);
      return TileExecutor.execute(spec, inputs, resampling, plan, sub);
    }, GpuTileExecutor::combine, () -> { });

    assertThat(calls.get(0)).isEqualTo("0-19");
    assertThat(calls).hasSizeGreaterThan(1);
    assertThat(split.tile).isEqualTo(tile);
    assertSame(whole, split);
  }

  @ParameterizedTest
  @CsvSource({"ONE_SAMPLE,t"})
  void combineRefusesRangesThatAreNotAdjacent(Analysis analysis, String stat) {
    JobSpec spec = JobSpec.builder(analysis).statistic(stat).replicates(100).build();
    JobInputs inputs = inputs(analysis);
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    TilePlan plan = new TilePlan(new Grid(8, 16), inputs.voxels(), 100, 1, 1, 0, 0, 1.0, "test");
    PartialResult a = TileExecutor.execute(spec, inputs, resampling, plan, plan.tiles().get(0));
    PartialResult c = TileExecutor.execute(spec, inputs, resampling, plan,
        new TileSpec(9, 0, 2, 1));
    assertThatThrownBy(() -> GpuTileExecutor.combine(a, c))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageStartingWith("[BUG] cannot combine tiles")
        .hasMessageContaining("not adjacent window ranges of one block");
  }

  private static void assertSame(PartialResult a, PartialResult b) {
    assertThat(b.observed).isEqualTo(a.observed);
    assertThat(bytes(b.counts == null ? null : b.counts.toBytes()))
        .isEqualTo(bytes(a.counts == null ? null : a.counts.toBytes()));
    assertThat(bytes(b.nullMax == null ? null : b.nullMax.toBytes()))
        .isEqualTo(bytes(a.nullMax == null ? null : a.nullMax.toBytes()));
    assertThat(bytes(b.tails == null ? null : b.tails.toBytes()))
        .isEqualTo(bytes(a.tails == null ? null : a.tails.toBytes()));
    assertThat(bytes(b.samples == null ? null : b.samples.toBytes()))
        .isEqualTo(bytes(a.samples == null ? null : a.samples.toBytes()));
    if (a.windowMoments == null) {
      assertThat(b.windowMoments).isNull();
    } else {
      assertThat(b.windowMoments).hasSameSizeAs(a.windowMoments);
      for (int i = 0; i < a.windowMoments.length; i++) {
        assertThat(b.windowMoments[i].toBytes()).isEqualTo(a.windowMoments[i].toBytes());
      }
    }
    assertThat(b.undefinedVoxels).isEqualTo(a.undefinedVoxels);
  }

  private static String bytes(byte[] b) {
    return b == null ? "null" : java.util.Base64.getEncoder().encodeToString(b);
  }

  private static JobInputs inputs(Analysis analysis) {
    SplittableRandom rng = new SplittableRandom(8);
    int n = 12;
    int v = 20;
    double[] x = new double[n * v];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian();
    }
    DataMatrix xm = DataMatrix.of(n, v, x, "--input");
    if (analysis == Analysis.TWO_SAMPLE) {
      double[] y = new double[10 * v];
      for (int i = 0; i < y.length; i++) {
        y[i] = rng.nextGaussian() + 0.2;
      }
      return JobInputs.twoGroups(xm, DataMatrix.of(10, v, y, "--input2"));
    }
    if (analysis == Analysis.CORRELATION) {
      double[] t = new double[n];
      for (int i = 0; i < n; i++) {
        t[i] = rng.nextGaussian();
      }
      return JobInputs.withTarget(xm, t);
    }
    return JobInputs.of(xm);
  }
}
