package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.io.Serializable;
import java.nio.file.Path;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuStatus;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.gpu.HostGpuMaps;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.SlicedTileRunner;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopOpener;

/**
 * DESIGN §8 and §9 for {@code --tfce --backend gpu}: with the samples held by executors as voxel
 * blocks, each block's slice of the statistic maps comes from the GPU kernels on the task's
 * device (here the host build of the same kernels, {@link HostGpuMaps}: no GPU is needed), one
 * shuffle by tile assembles whole maps, and every output is the bits of the driver-read GPU run
 * (inputs broadcast) and of the CPU run, for 1, 3 and 7 partitions and a retried task, in float32
 * and float64.
 */
class TfceGpuBlocksTest {
  static final int NX = 10;
  static final int NY = 9;
  static final int NZ = 8;
  static final int N = 14;
  /** Small blocks and windows: about ten voxel blocks and five replicate windows. */
  static final Grid GRID = new Grid(64, 32);
  static final GpuProbe USABLE = () -> GpuStatus.available("NVIDIA H200", 100_000_000_000L,
      140_000_000_000L, "550.54");

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();
  private final HadoopOpener files = new HadoopOpener(spark.sparkContext().hadoopConfiguration());

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  private static boolean[] mask() {
    boolean[] m = new boolean[NX * NY * NZ];
    SplittableRandom r = new SplittableRandom(11);
    for (int f = 0; f < m.length; f++) {
      m[f] = r.nextDouble() < 0.85;
    }
    return m;
  }

  /** Noise around 0.3 with a blob of mean 1.2 (mask order, k fastest), as float32 .npy. */
  private Path samples(boolean[] mask) {
    int voxels = 0;
    for (boolean b : mask) {
      voxels += b ? 1 : 0;
    }
    SplittableRandom r = new SplittableRandom(7);
    float[] values = new float[N * voxels];
    for (int s = 0; s < N; s++) {
      int v = 0;
      for (int c = 0; c < mask.length; c++) {
        if (!mask[c]) {
          continue;
        }
        int i = c / (NY * NZ);
        int j = (c / NZ) % NY;
        values[s * voxels + v++] = (float) (r.nextGaussian() + (i < 4 && j < 4 ? 1.2 : 0.3));
      }
    }
    Path p = dir.resolve("x.npy");
    NpyWriter.writeFloat32(p, new long[] {N, voxels}, values);
    return p;
  }

  private static JobSpec spec(String backend, Precision precision) {
    return JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(150).seed(13)
        .tail(Tail.TWO).precision(precision).backend(backend).build();
  }

  private RunReport run(String ingest, Integer partitions, String backend, Precision precision,
      DistributedInputs inputs, MaskGrid grid) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    SparkEngine engine = new SparkEngine(spark, GRID, partitions, false);
    WholeMapSettings settings = WholeMapSettings.of(true, 2.0);
    Ingest choice = Ingest.of(spark, inputs);
    boolean blocks = choice.onExecutors();
    JobInputs data = blocks ? inputs.shape() : inputs.load(files);
    TfceAnalysis a = TfceAnalysis.prepare(spec(backend, precision), data, engine.parallelism(),
        GRID, grid, settings, USABLE);
    TileAnalysis analysis = backend.equals("gpu") ? new OnHost(a) : a;
    return engine.run(new DescribedAnalysis(analysis, blocks ? inputs : null, choice));
  }

  @Test
  void gpuSlicesOfHeldBlocksGiveTheDriverReadGpuBytes() throws Exception {
    assumeThat(HostGpuMaps.unavailable()).as("the host build of the kernels").isNull();
    boolean[] m = mask();
    MaskGrid grid = MaskGrid.of(NX, NY, NZ, m);
    DistributedInputs inputs = DistributedInputs.of(NpySamples.describe(files,
        samples(m).toString(), "--input x.npy", 4L * grid.voxels() * 3)); // 3 rows a split
    for (Precision precision : Precision.values()) {
      RunReport cpu = run("broadcast", null, "cpu", precision, inputs, grid);
      RunReport base = run("broadcast", null, "gpu", precision, inputs, grid);
      assertThat(base.backend().kind()).isEqualTo(BackendKind.GPU);
      assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
      assertThat(base.plan.tileCount()).as("whole-map tiles").isGreaterThan(2);
      assertSameOutputs(cpu, base, precision + ": driver-read gpu vs cpu");
      for (Integer p : new Integer[] {null, 1, 3, 7}) {
        long calls = HostGpuMaps.calls();
        RunReport b = run("blocks", p, "gpu", precision, inputs, grid);
        assertThat(ingestOf(b).get("mode")).isEqualTo("blocks");
        assertThat(HostGpuMaps.calls() - calls).as("slices from the gpu kernels")
            .isEqualTo((long) GRID.blocks(grid.voxels()) * b.plan.tileCount());
        assertThat(ingestOf(b).get("map_slice_partitions")).isEqualTo(base.plan.tileCount());
        assertThat(b.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
        assertSameOutputs(base, b, precision + ": gpu blocks, partitions " + p);
      }
      RunReport retried = SharedSpark.retriedOnce(spark, 1,
          () -> run("blocks", 3, "gpu", precision, inputs, grid));
      assertSameOutputs(base, retried, precision + ": gpu blocks, retried");
      long enhanced = java.util.Arrays.stream(base.result.output("tfce")).filter(t -> t != 0)
          .count();
      assertThat(enhanced).as("the blob is enhanced").isPositive();
    }
  }

  /** The analysis with its maps from the host build of the GPU kernels. */
  private static final class OnHost implements TileAnalysis {
    private final TfceAnalysis a;

    OnHost(TfceAnalysis a) {
      this.a = a;
    }

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
    public void preflight(MemoryBudget budget) {
      a.preflight(budget);
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
    public int workers(MemoryBudget budget, int ceiling) {
      return a.workers(budget, ceiling);
    }

    @Override
    public TileRunner runner(TilePlan plan) {
      TileRunner r = a.runner(plan, HostGpuMaps.maps());
      assertThat(r).isInstanceOf(SlicedTileRunner.class);
      return r;
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
  }
}
