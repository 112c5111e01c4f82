package org.nlspark.core.resample;

import java.util.SplittableRandom;

/**
 * The one seeding rule (DESIGN §4): replicate r's draw depends only on (seed, r), never on
 * partition, batch, thread or retry. The pair is mixed with SplitMix64's finaliser so nearby seeds
 * and replicate indices give unrelated streams.
 */
public final class Seeds {
  private Seeds() {}

  /** A fresh generator for replicate {@code replicate} of a run seeded with {@code seed}. */
  public static SplittableRandom forReplicate(long seed, long replicate) {
    return new SplittableRandom(replicateSeed(seed, replicate));
  }

  /** The seed of {@link #forReplicate}'s generator. */
  static long replicateSeed(long seed, long replicate) {
    return mix(mix(seed) ^ (replicate * 0x9E3779B97F4A7C15L + 0x632BE59BD9B4E019L));
  }

  /** The same stream as {@link #forReplicate}, as a small final class the JIT keeps off the heap. */
  static SplitMix streamForReplicate(long seed, long replicate) {
    return new SplitMix().reset(replicateSeed(seed, replicate));
  }

  /** SplitMix64 finaliser (Steele, Lea, Flood 2014). */
  static long mix(long z) {
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }
}
