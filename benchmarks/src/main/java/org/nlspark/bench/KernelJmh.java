package org.nlspark.bench;

import dev.ludovic.netlib.blas.BLAS;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.job.Tail;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.tile.Grid;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * JMH benchmarks of one grid cell (DESIGN §5: 1024 voxels × 128 replicates, one single-threaded
 * GEMM per cell), one thread, steady state: what a tile does per window, without the engine.
 * Run with {@code bin/bench-kernels --jmh [JMH options]}; report only, never run by the build.
 *
 * <ul>
 *   <li>{@code oneSampleMaxT}: sign-flip draws, the cell's GEMM (n = 30) and the fused t +
 *       max-T fold (counts and row maxima), as {@code TileExecutor} runs it;
 *   <li>{@code bootstrapMeanTail}: bootstrap draws, the GEMM (n = 50), the window's moments and
 *       the retained-tail update for B = 5,000 at 95 % (k = 126), the tails already full;
 *   <li>{@code gemmCell}: the cell's GEMM alone with the same shape (n = 30): the cell's floor;
 *   <li>{@code gemmSquare}: one square GEMM of 512 (this machine's GEMM rate, one thread).
 * </ul>
 *
 * <p>Each operation's work is 2 · n · 1024 · 128 GEMM flops (2 · 512³ for the square), so the
 * ratio to the GEMM rate is (flops / time of the workload) / (flops / time of gemmSquare), both
 * from the same JMH run; the bootstrap tail does the same work in both precisions (it reads
 * float64 statistics), so it runs in float64 only.
 *
 * <p>Why {@link KernelBenchmark} keeps its own harness for the ratios that {@code
 * bin/bench-kernels} prints: those time the engine end to end (planning, every tile on every
 * core, merges) against the GEMM rate of the same process, and divide CPU time by CPU time
 * (process CPU for the workload, one thread's CPU for GEMM) together with the peak heap. JMH
 * times wall clock per operation in separate forks, which on a shared 2-core machine counts the
 * time a thread waits for a core (its scores here moved by ±40 % between runs while the CPU-time
 * ratios moved by a few per cent), and it cannot pair one multi-second engine run with one GEMM
 * rate and one heap peak. JMH is the right tool for a cell's steady state on a quiet machine;
 * the whole-run harness for the ratios on this one.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = {"--add-modules", "jdk.incubator.vector", "-Xmx2g"})
public class KernelJmh {
  /** Replicates and voxels of one grid cell. */
  static final int WINDOW = Grid.DEFAULT.window();
  static final int BLOCK = Grid.DEFAULT.voxelBlock();

  /** One-sample t with max-T over one block (n = 30, P = 5,000): a window per operation. */
  @State(Scope.Thread)
  public static class OneSample {
    @Param({"float64", "float32"})
    public String precision;

    BlockStatistic kernel;
    int[] counts;
    double[] rowMax;
    long windows;
    long next;

    @Setup(Level.Trial)
    public void setUp() {
      JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(5_000)
          .seed(1).precision(Precision.parse(precision)).fwer(true).build();
      JobInputs inputs = JobInputs.of(data(30, BLOCK, 1));
      kernel = Kernels.create(spec, inputs, ResamplingPlan.forJob(spec, inputs), 0, BLOCK,
          WINDOW);
      counts = new int[BLOCK];
      rowMax = new double[WINDOW];
      windows = 5_000 / WINDOW;
      double[] observed = new double[BLOCK];
      kernel.observed(observed);
    }
  }

  /** Bootstrap mean with percentile tails over one block (n = 50, B = 5,000, 95 %). */
  @State(Scope.Thread)
  public static class Bootstrap {
    @Param({"float64"})
    public String precision;

    BlockStatistic kernel;
    TailAccumulator tails;
    double[] buf;
    long windows;
    long next;

    @Setup(Level.Trial)
    public void setUp() {
      JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(5_000)
          .seed(1).precision(Precision.parse(precision)).build();
      JobInputs inputs = JobInputs.of(data(50, BLOCK, 2));
      kernel = Kernels.create(spec, inputs, ResamplingPlan.forJob(spec, inputs), 0, BLOCK,
          WINDOW);
      tails = new TailAccumulator(BLOCK, TailSize.retained(5_000, 0.95));
      buf = new double[WINDOW * BLOCK];
      windows = 5_000 / WINDOW;
      // Steady state: the tails are full and their thresholds tight, as after the first windows.
      for (long w = 0; w < windows; w++) {
        kernel.compute(w * WINDOW, WINDOW, buf);
        tails.update(buf, 0, WINDOW, BLOCK);
      }
    }
  }

  /** GEMM baselines: the cell's shape and a square. */
  @State(Scope.Thread)
  public static class Gemm {
    @Param({"float64", "float32"})
    public String precision;

    static final int SQUARE = 512;
    static final int N = 30;
    BLAS blas;
    double[] x;
    double[] d;
    double[] out;
    double[] sq;
    double[] sqOut;
    float[] xf;
    float[] df;
    float[] outf;
    float[] sqf;
    float[] sqOutf;

    @Setup(Level.Trial)
    public void setUp() {
      Blas.setThreads(1);
      blas = Blas.get();
      Random rng = new Random(3);
      x = gaussians(rng, N * BLOCK);
      d = gaussians(rng, WINDOW * N);
      out = new double[WINDOW * BLOCK];
      sq = gaussians(rng, SQUARE * SQUARE);
      sqOut = new double[SQUARE * SQUARE];
      xf = floats(x);
      df = floats(d);
      outf = new float[out.length];
      sqf = floats(sq);
      sqOutf = new float[sqOut.length];
    }

    boolean float64() {
      return precision.equals("float64");
    }
  }

  @Benchmark
  public void oneSampleMaxT(OneSample s, Blackhole bh) {
    long w = s.next++ % s.windows;
    java.util.Arrays.fill(s.counts, 0);
    s.kernel.foldWindow(w * WINDOW, WINDOW, Tail.TWO, s.counts, s.rowMax);
    bh.consume(s.rowMax[0]);
  }

  @Benchmark
  public void bootstrapMeanTail(Bootstrap s, Blackhole bh) {
    long w = s.next++ % s.windows;
    s.kernel.compute(w * WINDOW, WINDOW, s.buf);
    bh.consume(MomentAccumulator.ofWindow(s.buf, 0, WINDOW, BLOCK));
    s.tails.update(s.buf, 0, WINDOW, BLOCK);
  }

  /** The cell's GEMM as {@code BlockGemm} calls it: OUT^T (b x w) := X^T (b x n) · D^T (n x w). */
  @Benchmark
  public void gemmCell(Gemm s, Blackhole bh) {
    if (s.float64()) {
      s.blas.dgemm("N", "N", BLOCK, WINDOW, Gemm.N, 1.0, s.x, BLOCK, s.d, Gemm.N, 0.0, s.out,
          BLOCK);
      bh.consume(s.out[0]);
    } else {
      s.blas.sgemm("N", "N", BLOCK, WINDOW, Gemm.N, 1.0f, s.xf, BLOCK, s.df, Gemm.N, 0.0f, s.outf,
          BLOCK);
      bh.consume(s.outf[0]);
    }
  }

  @Benchmark
  public void gemmSquare(Gemm s, Blackhole bh) {
    int n = Gemm.SQUARE;
    if (s.float64()) {
      s.blas.dgemm("N", "N", n, n, n, 1.0, s.sq, n, s.sq, n, 0.0, s.sqOut, n);
      bh.consume(s.sqOut[0]);
    } else {
      s.blas.sgemm("N", "N", n, n, n, 1.0f, s.sqf, n, s.sqf, n, 0.0f, s.sqOutf, n);
      bh.consume(s.sqOutf[0]);
    }
  }

  static DataMatrix data(int n, int v, long seed) {
    Random rng = new Random(seed);
    double[] x = new double[n * v];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() + 0.1;
    }
    return DataMatrix.of(n, v, x, "benchmark");
  }

  private static double[] gaussians(Random rng, int size) {
    double[] a = new double[size];
    for (int i = 0; i < size; i++) {
      a[i] = rng.nextGaussian();
    }
    return a;
  }

  private static float[] floats(double[] a) {
    float[] f = new float[a.length];
    for (int i = 0; i < a.length; i++) {
      f[i] = (float) a[i];
    }
    return f;
  }
}
