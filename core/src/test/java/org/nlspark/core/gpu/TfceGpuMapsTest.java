package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;
import static org.nlspark.core.tfce.SmallBrain.NI;
import static org.nlspark.core.tfce.SmallBrain.NJ;
import static org.nlspark.core.tfce.SmallBrain.NK;
import static org.nlspark.core.tfce.SmallBrain.SMALL;
import static org.nlspark.core.tfce.SmallBrain.mask;

import java.io.Serializable;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.FakeGpus;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.SmallBrain;
import org.nlspark.core.tfce.StatisticMaps;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileShape;
import org.nlspark.core.tile.SlicedTileRunner;
import org.nlspark.core.tile.TileRunner;

/**
 * {@code --tfce --backend gpu} for the permutation tests (DESIGN §9, issue 12 item 4): the
 * statistic maps come from the GPU kernels ({@link GpuTileExecutor#statisticMaps}) and TFCE runs
 * on the executor CPU. Driven through the host build of the kernels ({@link HostDevice}, whose
 * GEMM is the CPU's own call), every output must equal the CPU run bit for bit, in float64 and
 * float32, for each statistic and tail; so must the two-stage run of samples held as voxel
 * blocks (DESIGN §8: each held block's slices from the GPU kernels, assembled in reverse block
 * order), which is the driver-read GPU run's bytes. Runs without a GPU.
 */
class TfceGpuMapsTest {
  @BeforeAll
  static void requireHostKernels() {
    String reason = HostKernels.load();
    assumeTrue(reason == null, "no host build of the kernels: " + reason);
  }

  /** Noise, a positive blob, a negative blob, and one constant voxel. */
  static DataMatrix data(int n, boolean[] mask, long seed, double shift) {
    return SmallBrain.data(n, mask, seed, shift, 17);
  }


  static JobInputs inputs(Analysis analysis, boolean[] mask) {
    switch (analysis) {
      case ONE_SAMPLE:
        return JobInputs.of(data(11, mask, 5, 1.0));
      case TWO_SAMPLE:
        return JobInputs.twoGroups(data(9, mask, 6, 1.0), data(8, mask, 7, 0.0));
      default:
        double[] target = new double[12];
        for (int i = 0; i < target.length; i++) {
          target[i] = i * 0.5 + (i % 3);
        }
        DataMatrix x = data(12, mask, 8, 0.0);
        double[] values = new double[12 * x.cols()];
        for (int s = 0; s < 12; s++) {
          for (int v = 0; v < x.cols(); v++) {
            values[s * x.cols() + v] = x.get(s, v) + (v % 7 < 3 ? 0.6 * target[s] : 0);
          }
        }
        return JobInputs.withTarget(DataMatrix.of(12, x.cols(), values, "x"), target);
    }
  }

  static Stream<Arguments> cases() {
    Stream.Builder<Arguments> out = Stream.builder();
    String[][] statistics = {{"ONE_SAMPLE", "t"}, {"ONE_SAMPLE", "mean"},
        {"TWO_SAMPLE", "welch-t"}, {"TWO_SAMPLE", "mean-diff"}, {"CORRELATION", "pearson"},
        {"CORRELATION", "spearman"}};
    for (String[] s : statistics) {
      for (Precision precision : Precision.values()) {
        for (Tail tail : new Tail[] {Tail.TWO, Tail.UPPER}) {
          out.add(Arguments.of(Analysis.valueOf(s[0]), s[1], precision, tail));
        }
      }
    }
    return out.build();
  }

  static JobSpec spec(Analysis analysis, String statistic, Precision precision, Tail tail,
      String backend) {
    return JobSpec.builder(analysis).statistic(statistic).replicates(150).seed(13).tail(tail)
        .precision(precision).backend(backend).build();
  }

  @ParameterizedTest(name = "{0} {1} {2} {3}")
  @MethodSource("cases")
  void gpuMapsGiveTheCpuRunBitForBit(Analysis analysis, String statistic, Precision precision,
      Tail tail) {
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NI, NJ, NK, m);
    JobInputs inputs = inputs(analysis, m);
    TfceAnalysis cpu = TfceAnalysis.prepare(spec(analysis, statistic, precision, tail, "cpu"),
        inputs, 1, SMALL, grid, WholeMapSettings.of(true, 2.0));
    TfceAnalysis gpu = TfceAnalysis.prepare(spec(analysis, statistic, precision, tail, "gpu"),
        inputs, 1, SMALL, grid, WholeMapSettings.of(true, 2.0), FakeGpus.usable());
    assertThat(gpu.backend().kind()).isEqualTo(org.nlspark.core.backend.BackendKind.GPU);
    HostDevice device = new HostDevice(Long.MAX_VALUE);
    Result expected = new LocalEngine(1, SMALL, 2).run(cpu).result;
    RunReport report = new LocalEngine(1, SMALL, 2).run(onHost(gpu, device));
    Result actual = report.result;
    assertThat(actual.outputs()).extracting(Output::name)
        .containsExactlyElementsOf(expected.outputs().stream().map(Output::name).toList());
    for (Output o : expected.outputs()) {
      assertThat(HostKernelParityTest.bits(actual.output(o.name()))).as(o.name())
          .isEqualTo(HostKernelParityTest.bits(o.values()));
    }
    assertThat(java.util.Arrays.stream(actual.output("tfce")).filter(t -> t != 0).count())
        .as("the blobs are enhanced").isPositive();
    assertThat(device.liveBytes()).as("device memory left allocated").isZero();

    // Held as voxel blocks: each block's slice from the GPU kernels, then whole maps.
    Result sliced = new LocalEngine(1, SMALL, 2).run(slicedOnHost(gpu, device, inputs, SMALL))
        .result;
    for (Output o : expected.outputs()) {
      assertThat(HostKernelParityTest.bits(sliced.output(o.name()))).as("blocks " + o.name())
          .isEqualTo(HostKernelParityTest.bits(o.values()));
    }
    assertThat(device.liveBytes()).as("device memory left allocated").isZero();
    @SuppressWarnings("unchecked")
    Map<String, Object> plan = (Map<String, Object>) report.summary().get("plan");
    assertThat((String) plan.get("statistic_maps")).startsWith("gpu kernels");
    assertThat(plan).containsEntry("tfce_device", "executor cpu");
  }

  @Test
  void withoutAUsableGpuAnExplicitRequestIsRefused() {
    boolean[] m = mask();
    JobInputs inputs = inputs(Analysis.ONE_SAMPLE, m);
    assertThatThrownBy(() -> TfceAnalysis.prepare(spec(Analysis.ONE_SAMPLE, "t",
        Precision.FLOAT32, Tail.TWO, "gpu"), inputs, 1, SMALL, MaskGrid.of(NI, NJ, NK, m),
        WholeMapSettings.of(true, null), FakeGpus.none("no CUDA driver")))
        .isInstanceOf(ResourceRefusedException.class).hasMessageContaining("no CUDA driver");
    TfceAnalysis auto = TfceAnalysis.prepare(spec(Analysis.ONE_SAMPLE, "t", Precision.FLOAT64,
        Tail.TWO, "auto"), inputs, 1, SMALL, MaskGrid.of(NI, NJ, NK, m),
        WholeMapSettings.of(true, null),
        FakeGpus.mustNotBeCalled());
    assertThat(auto.backend().kind()).isEqualTo(org.nlspark.core.backend.BackendKind.CPU);
  }

  /** The host build of the GPU kernels as the tiles' statistic maps. */
  static StatisticMaps hostMaps(HostDevice device) {
    return (spec, inputs, resampling, kernelGrid, block, plan, tile, out, stride, at, observed,
        d) -> GpuTileExecutor.statisticMaps(device, spec, inputs, resampling, kernelGrid, block,
            plan, tile, out, stride, at, observed);
  }

  /** The analysis with its tiles' maps from the host build of the GPU kernels. */
  static TileAnalysis onHost(TfceAnalysis a, HostDevice device) {
    return wrap(a, plan -> a.runner(plan, hostMaps(device)));
  }

  /**
   * The analysis run as on voxel blocks: a tile is every block's slice ({@link
   * SlicedTileRunner#slice}, the block held as an executor holds it, a column window of the
   * inputs), with maps from the host build of the GPU kernels, assembled in reverse block order.
   */
  static TileAnalysis slicedOnHost(TfceAnalysis a, HostDevice device, JobInputs whole,
      org.nlspark.core.tile.Grid grid) {
    int voxels = whole.voxels();
    int blocks = grid.blocks(voxels);
    JobInputs shape = JobInputs.onExecutors(whole.samples(), voxels,
        whole.y() == null ? 0 : whole.y().rows(), whole.target(), 8);
    JobInputs[] held = new JobInputs[blocks];
    for (int k = 0; k < blocks; k++) {
      int from = grid.blockStart(k);
      int width = grid.blockEnd(k, voxels) - from;
      held[k] = shape.block(window(whole.x(), from, width), whole.y() == null ? null
          : window(whole.y(), from, width));
    }
    return wrap(a, plan -> {
      SlicedTileRunner runner = (SlicedTileRunner) a.runner(plan, hostMaps(device));
      return (TileRunner) (data, tile, d) -> {
        java.util.List<byte[]> slices = new java.util.ArrayList<>();
        for (int k = blocks - 1; k >= 0; k--) {
          slices.add(runner.slice(held[k], k, tile, d));
        }
        return runner.assemble(tile, blocks, slices.iterator());
      };
    });
  }

  private static DataMatrix window(DataMatrix m, int from, int width) {
    return DataMatrix.window(m.rows(), m.cols(), from, width, m.copyColumns(from, from + width));
  }

  private static TileAnalysis wrap(TfceAnalysis a,
      java.util.function.Function<TilePlan, TileRunner> runners) {
    return new TileAnalysis() {
      @Override
      public String command() {
        return a.command();
      }

      @Override
      public Serializable data() {
        return a.data();
      }

      @Override
      public Backend backend() {
        return a.backend();
      }

      @Override
      public Double requestedBudgetGb() {
        return a.requestedBudgetGb();
      }

      @Override
      public TileShape shape(MemoryBudget budget) {
        return a.shape(budget);
      }

      @Override
      public long bytesPerTile(int windowsPerTile) {
        return a.bytesPerTile(windowsPerTile);
      }

      @Override
      public TileRunner runner(TilePlan plan) {
        return runners.apply(plan);
      }

      @Override
      public TileMerger merger(TilePlan plan) {
        return a.merger(plan);
      }

      @Override
      public Map<String, Object> describe() {
        return a.describe();
      }

      @Override
      public Map<String, Object> describe(TilePlan plan) {
        return a.describe(plan);
      }

      @Override
      public long replicates() {
        return a.replicates();
      }
    };
  }
}
