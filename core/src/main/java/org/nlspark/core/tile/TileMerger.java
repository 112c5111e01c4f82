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
}
