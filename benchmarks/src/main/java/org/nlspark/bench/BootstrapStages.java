package org.nlspark.bench;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import java.util.Random;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.accumulate.TailSeeds;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.stats.BlockStatistic;
import org.nlspark.core.stats.Kernels;
import org.nlspark.core.tile.Grid;

/**
 * Where a bootstrap tile's time goes, stage by stage, on one thread: one voxel block of workload b
 * (n = 50, 1,024 voxels, B = 5,000, mean, 95 % percentile tails) run as a fresh tile over all its
 * windows, adding one stage at a time — the kernel (draws, GEMM, epilogue), the window moments,
 * the tails' update (unseeded, then seeded as TileExecutor does), their canonical bytes. Prints the
 * median thread CPU nanoseconds per replicate value of each cumulative stage. Reports only.
 * Usage: bin/bench-kernels --stages
 */
public final class BootstrapStages {
  private BootstrapStages() {}

  public static void main(String[] args) {
    int n = 50;
    int block = Grid.DEFAULT.voxelBlock();
    int w = Grid.DEFAULT.window();
    int replicates = 5_000;
    int reps = 15;
    Random rng = new Random(2);
    double[] x = new double[n * block];
    for (int i = 0; i < x.length; i++) {
      x[i] = rng.nextGaussian() + 0.1;
    }
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(replicates)
        .seed(1).precision(Precision.FLOAT64).build();
    JobInputs inputs = JobInputs.of(DataMatrix.of(n, block, x, "stages"));
    BlockStatistic kernel = Kernels.create(spec, inputs, ResamplingPlan.forJob(spec, inputs), 0,
        block, w);
    int k = TailSize.retained(replicates, 0.95);
    String[] names = {"kernel", "+ moments", "+ tails (unseeded)", "+ tail bytes (unseeded)",
        "+ tails (seeded)", "+ tail bytes (seeded)"};
    double[][] ns = new double[names.length][reps];
    double[] buf = new double[w * block];
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    byte[][] bytes = new byte[2][];
    for (int rep = 0; rep < reps; rep++) {
      for (int stage = 0; stage < names.length; stage++) {
        long start = threads.getCurrentThreadCpuTime();
        TailAccumulator tails = stage >= 2 ? new TailAccumulator(block, k) : null;
        boolean seeded = stage >= 4;
        if (seeded && !TailSeeds.seed(kernel, tails, k, replicates)) {
          throw new IllegalStateException("[BUG] the bootstrap mean tile was not seeded");
        }
        for (int first = 0; first < replicates; first += w) {
          int rows = Math.min(w, replicates - first);
          kernel.compute(first, rows, buf);
          if (stage >= 1) {
            MomentAccumulator.ofWindow(buf, 0, rows, block);
          }
          if (tails != null) {
            tails.update(buf, 0, rows, block);
          }
        }
        if (seeded) {
          if (tails.shortElements().length > 0) {
            throw new IllegalStateException("Gaussian voxels came out short: no recompute here");
          }
          tails.endSeeding();
        }
        if (stage == 3 || stage == 5) {
          bytes[stage == 3 ? 0 : 1] = tails.toBytes();
        }
        ns[stage][rep] = (threads.getCurrentThreadCpuTime() - start)
            / ((double) replicates * block);
      }
    }
    if (!Arrays.equals(bytes[0], bytes[1])) {
      throw new IllegalStateException("[BUG] seeded and unseeded tails differ");
    }
    System.out.println("bootstrap tile stages, one thread, n=50 block=" + block + " B="
        + replicates + " k=" + k + ": median thread-CPU ns per replicate value of " + reps
        + " fresh tiles (cumulative)");
    for (int stage = 0; stage < names.length; stage++) {
      double[] s = ns[stage].clone();
      Arrays.sort(s);
      System.out.printf("  %-26s %6.2f ns (%.2f-%.2f)%n", names[stage], s[reps / 2], s[0],
          s[reps - 1]);
    }
    System.out.println("  seeded and unseeded tail bytes identical");
  }
}
