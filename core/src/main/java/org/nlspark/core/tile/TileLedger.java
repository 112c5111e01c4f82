package org.nlspark.core.tile;

import java.util.BitSet;

/**
 * The bookkeeping every merger keeps of the partials it took: each tile of the plan exactly once,
 * and the GEMM flops and kernel time they report. A tile merged twice, or one never merged, is a
 * broken scheduler invariant and fails with {@code [BUG]}. Not thread-safe: a merger calls it
 * under its own lock.
 */
public final class TileLedger {
  private final int tiles;
  private final String what;
  private final BitSet seen = new BitSet();
  private int received;
  private long flops;
  private long kernelNanos;

  /**
   * @param tiles the tiles of the plan
   * @param what what the tiles are called in messages ("tiles", "TFCE tiles")
   */
  public TileLedger(int tiles, String what) {
    this.tiles = tiles;
    this.what = what;
  }

  public static TileLedger of(TilePlan plan, String what) {
    return new TileLedger(plan.tileCount(), what);
  }

  /** Records tile {@code index}; fails if it was recorded before or is not in the plan. */
  public void record(int index, long tileFlops, long tileKernelNanos) {
    if (index < 0 || index >= tiles) {
      throw new IllegalStateException("[BUG] tile " + index + " is not one of the plan's "
          + tiles + " " + what);
    }
    if (seen.get(index)) {
      throw new IllegalStateException("[BUG] tile " + index + " was merged twice");
    }
    seen.set(index);
    received++;
    flops += tileFlops;
    kernelNanos += tileKernelNanos;
  }

  /** Fails unless every tile of the plan was recorded, naming the first that was not. */
  public void checkComplete() {
    if (received != tiles) {
      throw new IllegalStateException("[BUG] merged " + received + " of " + tiles + " " + what
          + "; tile " + seen.nextClearBit(0) + " was never merged");
    }
  }

  public int received() {
    return received;
  }

  public long flops() {
    return flops;
  }

  public long kernelNanos() {
    return kernelNanos;
  }
}
