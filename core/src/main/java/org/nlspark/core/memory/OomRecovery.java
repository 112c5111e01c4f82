package org.nlspark.core.memory;

import java.util.Objects;
import java.util.function.BinaryOperator;
import org.nlspark.core.ResourceRefusedException;

/**
 * Reactive recovery from a device out-of-memory by halving; ports §3.10 of DESIGN.md (the
 * reference's {@code _compute_oom_safe}).
 *
 * <p>Contract: the items (replicate draws) are generated before this runs and {@code fn} reads
 * them by index, so a retry recomputes exactly the same replicates; {@code fn} must be idempotent
 * and release whatever it allocated before it throws. Only {@link DeviceOutOfMemoryException} is
 * retried; any other failure propagates unchanged.
 */
public final class OomRecovery {
  private OomRecovery() {}

  /** Computes the items {@code [from, to)}. */
  @FunctionalInterface
  public interface RangeFunction<T> {
    T apply(int from, int to);
  }

  /**
   * Runs {@code fn} over {@code [0, n)}. On a device OOM: {@code releaseCache.run()}, split the
   * range in half ({@code mid = from + size/2}), run the left half then the right half the same
   * way, and {@code combine(left, right)}.
   *
   * @throws ResourceRefusedException when a range of at most {@code minChunk} items still runs out
   *     of device memory
   */
  public static <T> T run(int n, int minChunk, RangeFunction<T> fn, BinaryOperator<T> combine,
      Runnable releaseCache) {
    if (n < 0) {
      throw new IllegalArgumentException("[BUG] item count must be >= 0, but was: " + n);
    }
    if (minChunk < 1) {
      throw new IllegalArgumentException("[BUG] minimum chunk must be >= 1, but was: " + minChunk);
    }
    Objects.requireNonNull(fn, "[BUG] OOM recovery needs a function");
    Objects.requireNonNull(combine, "[BUG] OOM recovery needs a combine step");
    Objects.requireNonNull(releaseCache, "[BUG] OOM recovery needs a cache release step");
    return runRange(0, n, minChunk, fn, combine, releaseCache);
  }

  private static <T> T runRange(int from, int to, int minChunk, RangeFunction<T> fn,
      BinaryOperator<T> combine, Runnable releaseCache) {
    try {
      return fn.apply(from, to);
    } catch (DeviceOutOfMemoryException oom) {
      releaseCache.run();
      int size = to - from;
      if (size <= minChunk) {
        throw new ResourceRefusedException("Cannot compute on the GPU: the device ran out of"
            + " memory even for a chunk of " + size + " item(s) [" + from + ", " + to + ")"
            + " (minimum chunk " + minChunk + "). Lower the memory pressure on the device"
            + " (a smaller --memory-budget-gb or fewer other jobs on it), use fewer voxels per"
            + " tile, or run with --backend cpu.", oom);
      }
      int mid = from + size / 2;
      T left = runRange(from, mid, minChunk, fn, combine, releaseCache);
      T right = runRange(mid, to, minChunk, fn, combine, releaseCache);
      return combine.apply(left, right);
    }
  }
}
