package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.ResultMerger;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/**
 * DESIGN §5: for a fixed grid, seed and precision, outputs are bit-identical whatever the thread
 * count, tiles per window group (sub-batch size) and merge order — and through the byte form a
 * remote engine uses.
 */
class DeterminismTest {
  private static final Grid GRID = new Grid(16, 32);

  static Stream<Arguments> jobs() {
    List<Arguments> out = new ArrayList<>();
    for (Precision p : Precision.values()) {
      out.add(Arguments.of(JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(300)
          .seed(11).precision(p).build(), JobInputs.of(TestData.gaussian(20, 70, 1, 0.2, 3))));
      out.add(Arguments.of(JobSpec.builder(Analysis.TWO_SAMPLE).replicates(250).seed(5)
          .precision(p).build(), JobInputs.twoGroups(TestData.gaussian(9, 70, 2, 0.0),
          TestData.gaussian(11, 70, 3, 0.5))));
      out.add(Arguments.of(JobSpec.builder(Analysis.CORRELATION).statistic("pearson")
          .replicates(200).seed(6).precision(p).build(), JobInputs.withTarget(
          TestData.gaussian(15, 70, 4, 0.0), TestData.distinctTarget(15, 4))));
      out.add(Arguments.of(JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(333)
          .seed(8).precision(p).saveSamples(true).build(),
          JobInputs.of(TestData.gaussian(13, 70, 5, 1.0))));
      out.add(Arguments.of(JobSpec.builder(Analysis.BOOTSTRAP).statistic("std").replicates(200)
          .seed(9).precision(p).build(), JobInputs.of(TestData.gaussian(13, 70, 6, 1.0))));
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("jobs")
  void identicalBitsForAnyThreadsTilesAndMergeOrder(JobSpec spec, JobInputs in) {
    Result reference = new LocalEngine(1, GRID, 1).run(spec, in).result;
    for (int threads : new int[] {2, 3}) {
      for (Integer perTile : new Integer[] {null, 2, 3, 100}) {
        Result other = new LocalEngine(threads, GRID, perTile).run(spec, in).result;
        assertSameBits(reference, other, "threads=" + threads + " perTile=" + perTile);
      }
    }
    // Reverse merge order through the byte form, as a remote engine would deliver partials.
    VoxelwiseAnalysis job = VoxelwiseAnalysis.prepare(spec, in, 1);
    TilePlan plan = new TilePlan(GRID, in.voxels(), job.resampling.replicates(), 2, 1, 0,
        org.nlspark.core.tile.TilePlanner.tailSize(spec, job.resampling.replicates()), 1, "test");
    org.nlspark.core.tile.TileMerger merger = job.merger(plan);
    List<TileSpec> tiles = new ArrayList<>(plan.tiles());
    java.util.Collections.reverse(tiles);
    for (TileSpec t : tiles) {
      PartialResult p = TileExecutor.execute(spec, in, job.resampling, plan, t);
      merger.add(p.toBytes());
    }
    assertSameBits(reference, merger.finish(), "reversed byte-form merge");
  }

  static void assertSameBits(Result a, Result b, String what) {
    assertThat(b.outputs()).hasSameSizeAs(a.outputs());
    for (int i = 0; i < a.outputs().size(); i++) {
      Output x = a.outputs().get(i);
      Output y = b.outputs().get(i);
      assertThat(y.name()).isEqualTo(x.name());
      long[] bx = bits(x.values());
      long[] by = bits(y.values());
      assertThat(by).as(what + ": " + x.name()).isEqualTo(bx);
    }
  }

  private static long[] bits(double[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Double.doubleToRawLongBits(v[i]);
    }
    return out;
  }
}
