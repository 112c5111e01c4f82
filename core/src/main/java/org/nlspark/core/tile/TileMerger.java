package org.nlspark.core.tile;

import org.nlspark.core.result.Result;

/**
 * The driver-side merge of an analysis' partials. Partials arrive in any order (threads, Spark
 * partitions, retries), each tile exactly once; the result is the same bits whatever that order.
 * Implementations are thread-safe.
 */
public interface TileMerger {
  /** Adds one tile's partial bytes. */
  void add(byte[] partial);

  /** The merged result; every tile of the plan must have been added. */
  Result finish();

  /** GEMM floating-point operations of the merged tiles (0 where not counted). */
  long flops();

  /** Kernel time summed over tiles (CPU-seconds, not wall time). */
  long kernelNanos();

  /**
   * A merger that decodes each partial, keeps them, and builds the result from all of them at the
   * end (for analyses whose partials are whole voxel blocks, merged exactly in any order); each
   * tile of {@code plan} exactly once ({@link TileLedger}).
   *
   * @param tileIndex the tile a decoded partial came from
   */
  static <T> TileMerger collecting(TilePlan plan, java.util.function.Function<byte[], T> decode,
      java.util.function.ToIntFunction<T> tileIndex,
      java.util.function.Function<java.util.List<T>, Result> finish) {
    java.util.List<T> parts = new java.util.ArrayList<>();
    TileLedger ledger = TileLedger.of(plan, "tiles");
    return new TileMerger() {
      @Override
      public synchronized void add(byte[] partial) {
        T part = decode.apply(partial);
        ledger.record(tileIndex.applyAsInt(part), 0, 0);
        parts.add(part);
      }

      @Override
      public synchronized Result finish() {
        ledger.checkComplete();
        return finish.apply(parts);
      }

      @Override
      public long flops() {
        return 0;
      }

      @Override
      public long kernelNanos() {
        return 0;
      }
    };
  }
}
