package org.nlspark.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Locale;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.Tfce;

/**
 * TFCE per map (report only; nothing asserts on time). Reads a 3-D mask and a 3-D statistic map
 * (float64 {@code .npy}, C order), builds the grid once, enhances the masked map {@code repeats}
 * times per tail after a warm-up, writes each tail's enhanced map as {@code OUT_PREFIX-TAIL.npy}
 * (masked, NiftiMasker order) and prints one JSON line per tail: {@code tail, voxels, grid_ms,
 * median_ms, min_ms, cpu_median_ms}. Single-threaded: one map per thread is how replicates run.
 *
 * <p>Run by {@code it/bench-tfce.sh}, which also times the textbook loop in Python on the same
 * map and compares the results; directly: {@code java -cp ... org.nlspark.bench.TfceBenchmark
 * MASK.npy MAP.npy OUT_PREFIX [REPEATS]}.
 */
public final class TfceBenchmark {
  private static final int WARM_UP = 30;

  public static void main(String[] args) {
    if (args.length < 3) {
      System.err.println("usage: TfceBenchmark MASK.npy MAP.npy OUT_PREFIX [REPEATS]");
      System.exit(2);
    }
    NpyArray mask = NpyReader.read(Path.of(args[0]), 3);
    NpyArray map = NpyReader.read(Path.of(args[1]), 3);
    String outPrefix = args[2];
    int repeats = args.length > 3 ? Integer.parseInt(args[3]) : 50;
    if (!Arrays.equals(mask.shape(), map.shape())) {
      throw new IllegalArgumentException("Cannot benchmark TFCE: mask shape "
          + Arrays.toString(mask.shape()) + " differs from map shape "
          + Arrays.toString(map.shape()));
    }
    int ni = mask.dim(0);
    int nj = mask.dim(1);
    int nk = mask.dim(2);
    boolean[] inMask = new boolean[ni * nj * nk];
    for (int c = 0; c < inMask.length; c++) {
      inMask[c] = mask.data()[c] != 0;
    }
    long t0 = System.nanoTime();
    MaskGrid grid = MaskGrid.of(ni, nj, nk, inMask);
    double gridMs = (System.nanoTime() - t0) / 1e6;
    double[] stat = new double[grid.voxels()];
    for (int v = 0; v < stat.length; v++) {
      stat[v] = map.data()[grid.cellOf(v)];
    }

    Tfce tfce = new Tfce(grid);
    // CPU time as well as wall time: on a shared machine it is the fairer comparison.
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    double[] out = new double[stat.length];
    for (Tail tail : new Tail[] {Tail.UPPER, Tail.TWO}) {
      for (int i = 0; i < WARM_UP; i++) {
        tfce.enhance(stat, 0, tail, out, 0);
      }
      double[] ms = new double[repeats];
      double[] cpuMs = new double[repeats];
      for (int i = 0; i < repeats; i++) {
        long c = threads.getCurrentThreadCpuTime();
        long s = System.nanoTime();
        tfce.enhance(stat, 0, tail, out, 0);
        ms[i] = (System.nanoTime() - s) / 1e6;
        cpuMs[i] = (threads.getCurrentThreadCpuTime() - c) / 1e6;
      }
      Arrays.sort(ms);
      Arrays.sort(cpuMs);
      NpyWriter.writeFloat64(Path.of(outPrefix + "-" + tail.cliName() + ".npy"),
          new long[] {out.length}, out);
      System.out.printf(Locale.ROOT,
          "{\"tail\": \"%s\", \"voxels\": %d, \"grid_ms\": %.2f, \"median_ms\": %.3f,"
              + " \"min_ms\": %.3f, \"cpu_median_ms\": %.3f, \"repeats\": %d}%n",
          tail.cliName(), grid.voxels(), gridMs, ms[repeats / 2], ms[0], cpuMs[repeats / 2],
          repeats);
    }
  }
}
