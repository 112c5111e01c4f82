package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.NullMaxAccumulator;
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

/**
 * The host build of every CUDA kernel (nlspark_kernels.cu through nlspark_host.cpp), driven by
 * the real {@link GpuTileExecutor} on a {@link HostDevice} whose GEMM is the CPU's own BlockGemm
 * call, against the CPU {@link TileExecutor}: every output of every tile must be equal bit for bit
 * (NaN equal to NaN, +0.0 not equal to -0.0), in float64 and float32, for every statistic, tail
 * and --fwer setting, on {@link AdversarialData}. Runs without a GPU.
 */
class HostKernelParityTest {
  static final Statistic[] STATISTICS = Statistic.values(); // every row of the table

  @BeforeAll
  static void requireHostKernels() {
    String reason = HostKernels.load();
    assumeTrue(reason == null, "no host build of the kernels: " + reason);
  }

  static Stream<Arguments> cases() {
    List<Arguments> out = new ArrayList<>();
    for (Statistic s : STATISTICS) {
      Analysis analysis = s.analysis();
      for (Precision precision : Precision.values()) {
        if (analysis == Analysis.BOOTSTRAP) {
          out.add(Arguments.of(analysis, s.statisticName(), precision, Tail.TWO, true));
          continue;
        }
        for (Tail tail : Tail.values()) {
          out.add(Arguments.of(analysis, s.statisticName(), precision, tail, true));
        }
        out.add(Arguments.of(analysis, s.statisticName(), precision, Tail.TWO, false));
      }
    }
    return out.stream();
  }

  @ParameterizedTest(name = "{0} {1} {2} tail {3} fwer {4}")
  @MethodSource("cases")
  void hostKernelsEqualTheCpuKernelsBitForBit(Analysis analysis, String stat,
      Precision precision, Tail tail, boolean fwer) {
    for (int variant = 0; variant < 2; variant++) {
      JobSpec spec = JobSpec.builder(analysis).statistic(stat).replicates(300).seed(17 + variant)
          .tail(tail).fwer(fwer).precision(precision).saveSamples(variant == 1).build();
      JobInputs inputs = AdversarialData.inputs(analysis, 10, 47, 5 + variant, variant);
      compareEveryTile(spec, inputs, new Grid(20, 32), Long.MAX_VALUE);
    }
  }

  @Test
  void enumeratedSignFlipsToo() {
    for (String stat : new String[] {"mean", "t"}) {
      JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic(stat).replicates(1000)
          .seed(3).precision(Precision.FLOAT64).build();
      JobInputs inputs = AdversarialData.inputs(Analysis.ONE_SAMPLE, 6, 30, 9, 0);
      assertThat(ResamplingPlan.forJob(spec, inputs).enumerated()).isTrue();
      compareEveryTile(spec, inputs, new Grid(16, 16), Long.MAX_VALUE);
    }
  }

  /** The clamp and sign rule: a flip with all signs equal has t = +-Infinity, never NaN. */
  @Test
  void oneSampleTOnPlusMinusCVoxelsIsInfiniteAsOnTheCpu() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(1 << 12)
        .seed(1).tail(Tail.UPPER).precision(Precision.FLOAT64).build();
    int n = 8;
    double[] x = new double[n * 4];
    for (int i = 0; i < n; i++) {
      for (int v = 0; v < 4; v++) {
        // +-0.6 with n = 8: n * sum(x^2) - g^2 rounds below zero when all signs agree
        x[i * 4 + v] = (i + v) % 3 == 0 ? -0.6 : 0.6;
      }
    }
    JobInputs inputs = JobInputs.of(org.nlspark.core.data.DataMatrix.of(n, 4, x, "--input"));
    List<PartialResult[]> results = compareEveryTile(spec, inputs, new Grid(4, 64),
        Long.MAX_VALUE);
    boolean infinite = false;
    for (PartialResult[] r : results) {
      for (double m : r[0].nullMax.maxima()) {
        infinite |= m == Double.POSITIVE_INFINITY;
      }
    }
    assertThat(infinite).as("the enumerated flips include all-equal signs: t = +Infinity")
        .isTrue();
  }

  /** Integer data: equal group sums stay equal (the shift is an integer), so ties count. */
  @Test
  void meanDifferenceOnIntegerDataKeepsItsTies() {
    JobSpec spec = JobSpec.builder(Analysis.TWO_SAMPLE).statistic("mean-diff").replicates(2000)
        .seed(4).precision(Precision.FLOAT64).build();
    JobInputs inputs = AdversarialData.inputs(Analysis.TWO_SAMPLE, 9, 40, 6, 1);
    compareEveryTile(spec, inputs, new Grid(40, 64), Long.MAX_VALUE);
  }

  /** Spearman with rank ties in the voxels and the target: exact rank sums, per-voxel scale. */
  @Test
  void spearmanKeepsRankTies() {
    JobSpec spec = JobSpec.builder(Analysis.CORRELATION).statistic("spearman").replicates(2000)
        .seed(5).precision(Precision.FLOAT64).build();
    JobInputs inputs = AdversarialData.inputs(Analysis.CORRELATION, 12, 36, 7, 0);
    compareEveryTile(spec, inputs, new Grid(36, 64), Long.MAX_VALUE);
  }

  @Test
  void withoutFwerNoNullMaximaAreComputed() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(200).seed(6)
        .fwer(false).precision(Precision.FLOAT64).build();
    JobInputs inputs = AdversarialData.inputs(Analysis.ONE_SAMPLE, 10, 20, 8, 0);
    for (PartialResult[] r : compareEveryTile(spec, inputs, new Grid(20, 32), Long.MAX_VALUE)) {
      assertThat(r[1].nullMax).isNull();
    }
  }

  /**
   * The device check expects cuBLAS to match the CPU bit for bit on integer data for these
   * statistics: every product is exact, so a GEMM summing in another order changes nothing.
   */
  @Test
  void onIntegerDataTheExactStatisticsDoNotDependOnTheGemmSummationOrder() {
    for (Statistic s : DeviceCheck.EXACT_ON_INTEGERS) {
      Analysis analysis = s.analysis();
      for (Precision precision : Precision.values()) {
        JobSpec spec = JobSpec.builder(analysis).statistic(s.statisticName()).replicates(300)
            .seed(8).precision(precision).build();
        JobInputs inputs = AdversarialData.integerInputs(analysis, 12, 60, 10);
        TileParity.Results r = TileParity.run(new HostDevice(Long.MAX_VALUE, true), spec,
            inputs, new Grid(32, 32));
        assertThat(r.difference).as(s.label() + " " + precision).isNull();
      }
    }
    // ... while on Gaussian data the other order shows in the last bits.
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(300).seed(8)
        .precision(Precision.FLOAT64).build();
    JobInputs gaussian = DeviceCheck.randomInputs(Analysis.ONE_SAMPLE, 40, 64, 12);
    assertThat(TileParity.run(new HostDevice(Long.MAX_VALUE, true), spec, gaussian,
        new Grid(64, 32)).difference).isNotNull();
  }

  /** A device OOM halves the windows and reruns them: the results do not change. */
  @Test
  void forcedOutOfMemoryGivesUnchangedResults() {
    for (Statistic s : new Statistic[] {Statistic.SIGN_FLIP_T, Statistic.WELCH_T,
        Statistic.BOOTSTRAP_STD, Statistic.BOOTSTRAP_MEDIAN}) {
      Analysis analysis = s.analysis();
      JobSpec spec = JobSpec.builder(analysis).statistic(s.statisticName()).replicates(600)
          .seed(7).precision(Precision.FLOAT64).build();
      JobInputs inputs = AdversarialData.inputs(analysis, 10, 24, 9, 0);
      long peak = compareEveryTile(spec, inputs, new Grid(24, 32), Long.MAX_VALUE).peak;
      long before = GpuTileExecutor.oomHalvings();
      // Less than the whole tile needs at once: its windows must be split.
      compareEveryTile(spec, inputs, new Grid(24, 32), peak * 3 / 4);
      assertThat(GpuTileExecutor.oomHalvings()).as(s.label() + " halvings")
          .isGreaterThan(before);
    }
  }

  /**
   * The accumulating kernels on the statistics NaN and +-Infinity can reach (undefined voxels,
   * clamped t): keys, counts, row maxima and window moments against the Java accumulators.
   */
  @Test
  void accumulatorKernelsHandleNaNAndInfinityAsTheJavaAccumulators() {
    double[] specials = {Double.NaN, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, 0.0,
        -0.0, 1.0, -1.0, 2.5, -2.5, Double.MIN_VALUE, Double.MAX_VALUE, -Double.MAX_VALUE};
    int rows = 37;
    int b = 300;
    java.util.SplittableRandom rng = new java.util.SplittableRandom(11);
    double[] stats = new double[rows * b];
    for (int i = 0; i < stats.length; i++) {
      stats[i] = specials[rng.nextInt(specials.length)];
    }
    double[] observed = new double[b];
    for (int v = 0; v < b; v++) {
      observed[v] = specials[rng.nextInt(specials.length)];
    }
    HostDevice dev = new HostDevice(Long.MAX_VALUE);
    for (Tail tail : Tail.values()) {
      double[] keys = new double[stats.length];
      double[] thr = new double[b];
      for (int i = 0; i < stats.length; i++) {
        double k = tail.key(stats[i]);
        keys[i] = Double.isNaN(k) ? Double.NEGATIVE_INFINITY : k;
      }
      for (int v = 0; v < b; v++) {
        double k = tail.key(observed[v]);
        thr[v] = Double.isNaN(k) ? Double.POSITIVE_INFINITY : k;
      }
      ExceedanceCounter counter = new ExceedanceCounter(b);
      counter.update(keys, 0, rows, b, thr, 0);
      NullMaxAccumulator maxima = new NullMaxAccumulator(0, rows);
      maxima.update(keys, 0, rows, b, 0);
      try (DeviceArena arena = new DeviceArena(dev)) {
        DeviceBuffer out = arena.upload(stats);
        DeviceBuffer t = arena.upload(thr);
        DeviceBuffer counts = arena.alloc(8L * b);
        counts.zero();
        DeviceBuffer max = arena.alloc(8L * rows);
        long code = tail == Tail.TWO ? 0 : tail == Tail.UPPER ? 1 : 2;
        dev.launch("tail_keys", GpuTileExecutor.blocks((long) rows * b), 256, out,
            (long) rows * b, code);
        double[] hostKeys = new double[stats.length];
        out.download(0, hostKeys, 0, hostKeys.length);
        assertThat(hostKeys).as("keys, tail " + tail).isEqualTo(keys);
        dev.launch("count_exceedances", GpuTileExecutor.blocks(b), 256, out, (long) rows,
            (long) b, t, counts);
        dev.launch("row_maxima", rows, 256, out, (long) rows, (long) b, max);
        long[] c = new long[b];
        counts.download(0, c, 0, b);
        assertThat(c).as("counts, tail " + tail).isEqualTo(counter.counts());
        double[] m = new double[rows];
        max.download(0, m, 0, rows);
        NullMaxAccumulator fromDevice = new NullMaxAccumulator(0, rows);
        fromDevice.updateRowMaxima(m, rows, 0);
        assertThat(fromDevice.toBytes()).as("maxima, tail " + tail).isEqualTo(maxima.toBytes());
      }
    }
    try (DeviceArena arena = new DeviceArena(dev)) {
      DeviceBuffer x = arena.upload(stats);
      DeviceBuffer mean = arena.alloc(8L * b);
      DeviceBuffer m2 = arena.alloc(8L * b);
      dev.launch("window_moments", GpuTileExecutor.blocks(b), 256, x, (long) rows, (long) b,
          mean, m2);
      double[] mh = new double[b];
      double[] m2h = new double[b];
      mean.download(0, mh, 0, b);
      m2.download(0, m2h, 0, b);
      MomentAccumulator expected = MomentAccumulator.ofWindow(stats, 0, rows, b);
      MomentAccumulator actual = AccumulatorBytes.moments(rows, mh, m2h);
      assertThat(actual.n()).isEqualTo(expected.n());
      assertThat(bits(actual.mean())).isEqualTo(bits(expected.mean()));
      assertThat(bits(actual.m2())).isEqualTo(bits(expected.m2()));
    }
    assertThat(dev.liveBytes()).isZero();
  }

  /** Runs every tile on the CPU and on the host device and asserts they are the same. */
  static TileParity.Results compareEveryTile(JobSpec spec, JobInputs inputs, Grid grid,
      long deviceBytes) {
    HostDevice device = new HostDevice(deviceBytes);
    TileParity.Results results = TileParity.run(device, spec, inputs, grid);
    assertThat(results.difference).as("first difference from the CPU").isNull();
    assertThat(device.liveBytes()).as("device memory left allocated").isZero();
    return results;
  }

  /** Bits with every NaN alike (the device's NaN payload may differ from the CPU's). */
  static long[] bits(double[] v) {
    if (v == null) {
      return null;
    }
    return Arrays.stream(v).mapToLong(Double::doubleToLongBits).toArray();
  }
}
