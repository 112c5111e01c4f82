package org.nlspark.core.timeseries;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.IntFunction;

/**
 * Runs independent voxel blocks on a thread pool and hands their outcomes back in block order.
 * Threads and blocks per task change only the schedule: each block's work is a pure function of
 * its index, so results never depend on them (DESIGN §5).
 */
public final class BlockScheduler {
  private BlockScheduler() {}

  public static <T> List<T> run(int blocks, int threads, int blocksPerTask, IntFunction<T> block) {
    if (threads < 1 || blocksPerTask < 1) {
      throw new IllegalArgumentException("[BUG] threads and blocks per task must be >= 1, but were: "
          + threads + " and " + blocksPerTask);
    }
    List<T> out = new ArrayList<>(blocks);
    if (threads == 1) {
      for (int b = 0; b < blocks; b++) {
        out.add(block.apply(b));
      }
      return out;
    }
    ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
      Thread t = new Thread(r, "nlspark-block");
      t.setDaemon(true);
      return t;
    });
    try {
      List<Future<List<T>>> futures = new ArrayList<>();
      for (int b0 = 0; b0 < blocks; b0 += blocksPerTask) {
        final int from = b0;
        final int to = Math.min(blocks, b0 + blocksPerTask);
        futures.add(pool.submit(() -> {
          List<T> outs = new ArrayList<>(to - from);
          for (int b = from; b < to; b++) {
            outs.add(block.apply(b));
          }
          return outs;
        }));
      }
      for (Future<List<T>> f : futures) {
        out.addAll(get(f));
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  private static <T> T get(Future<T> f) {
    try {
      return f.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("Interrupted while waiting for a voxel block", e);
    } catch (ExecutionException e) {
      Throwable c = e.getCause();
      if (c instanceof RuntimeException re) {
        throw re;
      }
      if (c instanceof Error err) {
        throw err;
      }
      throw new IllegalStateException(c);
    }
  }
}
