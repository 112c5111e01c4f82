package org.nlspark.bench;

import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscResult;
import org.nlspark.core.isc.IscSummary;

import dev.ludovic.netlib.blas.BLAS;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;
import java.lang.management.MemoryType;
import java.util.SplittableRandom;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * Time and peak heap of a subject-bootstrap ISC (DESIGN §7: counted work, ratio to a same-run
 * DGEMM rate). Usage:
 * {@code java -Xmx8g -cp core.jar:deps org.nlspark.core.isc.IscBenchmark [S T V B threads metrics]},
 * defaults 50 300 20000 5000 2 mean,median. Synthetic data: a shared signal per voxel plus noise.
 *
 * <p>Counted work: the observed S × S GEMM per voxel (2·T·S²·V) and one GEMM of 2·B·pairs·V per
 * metric (the Fisher-mean numerators, or the weight below each voxel's middle pair from which
 * the median walks start); the B·V weighted-median walks are reported per walk.
 * The DGEMM rate is measured in this run, single-threaded (as the kernels run), times the threads.
 */
public final class IscBenchmark {
  private IscBenchmark() {}

  public static void main(String[] args) throws Exception {
    int s = args.length > 0 ? Integer.parseInt(args[0]) : 50;
    int t = args.length > 1 ? Integer.parseInt(args[1]) : 300;
    int v = args.length > 2 ? Integer.parseInt(args[2]) : 20000;
    int b = args.length > 3 ? Integer.parseInt(args[3]) : 5000;
    int threads = args.length > 4 ? Integer.parseInt(args[4]) : 2;
    String[] metrics = (args.length > 5 ? args[5] : "mean,median").split(",");
    System.out.println("BLAS: " + Blas.describe());
    System.out.printf("OPENBLAS_CORETYPE=%s OPENBLAS_L2_SIZE=%s%n",
        System.getenv("OPENBLAS_CORETYPE"), System.getenv("OPENBLAS_L2_SIZE"));
    double dgemm = dgemmGflops(1024);
    System.out.printf("DGEMM 1024^3, 1 thread: %.2f GFLOP/s (x %d threads = %.2f)%n", dgemm,
        threads, dgemm * threads);

    double[] data = new double[Math.multiplyExact(Math.multiplyExact(s, t), v)];
    SplittableRandom rng = new SplittableRandom(1);
    double[] shared = new double[t * v];
    for (int i = 0; i < shared.length; i++) {
      shared[i] = rng.nextGaussian();
    }
    for (int si = 0; si < s; si++) {
      for (int i = 0; i < t * v; i++) {
        data[si * t * v + i] = 0.5 * shared[i] + rng.nextGaussian();
      }
    }
    shared = null;
    long pairs = (long) s * (s - 1) / 2;
    int k = TailSize.retained(b, 0.95);
    System.out.printf("input %d x %d x %d = %.2f GB; B = %d, pairs = %d, tail k = %d;"
        + " B x V x pairs would be %.1f GB (never held)%n", s, t, v, data.length * 8e-9, b,
        pairs, k, b * (double) v * pairs * 8e-9);
    for (String metric : metrics) {
      // the machine is shared: measure the DGEMM rate next to each run, not only once
      dgemm = Math.max(dgemm, dgemmGflops(1024));
      Isc.Options o = new Isc.Options(IscSummary.PAIRWISE, IscMetric.parse(metric),
          IscNull.BOOTSTRAP, b, 0.95, Tail.TWO, true, 7L, false, Grid.DEFAULT);
      PeakHeap peak = PeakHeap.start();
      long t0 = System.nanoTime();
      IscResult res = Isc.run(new LocalEngine(threads, Grid.DEFAULT, null), data, s, t, v, o);
      double sec = (System.nanoTime() - t0) * 1e-9;
      long peakBytes = peak.stop();
      double observedFlops = 2.0 * t * s * s * v;
      System.out.printf("%s: %.1f s, peak heap %.2f GB (input %.2f GB), isc[0] = %.4f,"
          + " ci = [%.4f, %.4f], p = %.5f%n", metric, sec, peakBytes * 1e-9,
          data.length * 8e-9, res.isc[0], res.ciLower[0], res.ciUpper[0], res.p[0]);
      double gemm = 2.0 * b * pairs * v;
      double flops = observedFlops + gemm;
      String what = metric.equals("mean") ? "bootstrap GEMM" : "lower-half weight GEMM";
      System.out.printf("  counted GEMM work %.1f GFLOP (observed %.1f + %s %.1f):"
          + " %.2f GFLOP/s = %.2f of the same-run DGEMM rate x %d threads%n", flops * 1e-9,
          observedFlops * 1e-9, what, gemm * 1e-9, flops / sec * 1e-9,
          flops / sec * 1e-9 / (dgemm * threads), threads);
      if (metric.equals("median")) {
        System.out.printf("  plus %.1f G weighted-median walks (B x V), each from the middle"
            + " of the voxel's %d sorted pairs: %.1f ns per walk and thread%n",
            (double) b * v * 1e-9, pairs, sec * threads / ((double) b * v) * 1e9);
      }
    }
  }

  /** Single-threaded DGEMM rate on n × n × n, best of three. */
  static double dgemmGflops(int n) {
    BLAS blas = Blas.get();
    double[] a = new double[n * n];
    double[] bm = new double[n * n];
    double[] c = new double[n * n];
    SplittableRandom rng = new SplittableRandom(2);
    for (int i = 0; i < a.length; i++) {
      a[i] = rng.nextDouble();
      bm[i] = rng.nextDouble();
    }
    double best = 0;
    for (int rep = 0; rep < 4; rep++) {
      long t0 = System.nanoTime();
      blas.dgemm("N", "N", n, n, n, 1.0, a, n, bm, n, 0.0, c, n);
      double sec = (System.nanoTime() - t0) * 1e-9;
      best = Math.max(best, 2.0 * n * n * n / sec * 1e-9);
    }
    return best;
  }

  /** Samples used heap every 20 ms and also reads the heap pools' peak counters. */
  static final class PeakHeap {
    private volatile boolean running = true;
    private volatile long max;
    private Thread thread;

    static PeakHeap start() {
      System.gc();
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          pool.resetPeakUsage();
        }
      }
      PeakHeap p = new PeakHeap();
      p.thread = new Thread(() -> {
        Runtime rt = Runtime.getRuntime();
        while (p.running) {
          p.max = Math.max(p.max, rt.totalMemory() - rt.freeMemory());
          try {
            Thread.sleep(20);
          } catch (InterruptedException e) {
            return;
          }
        }
      }, "peak-heap");
      p.thread.setDaemon(true);
      p.thread.start();
      return p;
    }

    long stop() throws InterruptedException {
      running = false;
      thread.join();
      long pools = 0;
      for (MemoryPoolMXBean pool : ManagementFactory.getMemoryPoolMXBeans()) {
        if (pool.getType() == MemoryType.HEAP) {
          pools += pool.getPeakUsage().getUsed();
        }
      }
      System.out.printf("  heap: sampled peak %.2f GB, sum of pool peaks %.2f GB%n", max * 1e-9,
          pools * 1e-9);
      return max;
    }
  }
}
