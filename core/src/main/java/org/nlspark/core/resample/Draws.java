package org.nlspark.core.resample;

/**
 * The four resampling schemes, each a pure function of (seed, replicate): bootstrap of rows,
 * sign flips (sampled or enumerated exactly), label permutations, permutations of a target.
 */
public final class Draws {
  private Draws() {}

  /** Bootstrap: n row indices drawn with replacement, returned as per-row counts (sum n). */
  public static void bootstrapCounts(long seed, long replicate, int n, int[] counts) {
    java.util.Arrays.fill(counts, 0, n, 0);
    SplitMix rng = Seeds.streamForReplicate(seed, replicate);
    for (int i = 0; i < n; i++) {
      counts[rng.nextInt(n)]++;
    }
  }

  /** Sampled sign flips: each sample's sign is +1 or -1 with probability 1/2. */
  public static void signFlips(long seed, long replicate, int n, double[] signs, int offset) {
    SplitMix rng = Seeds.streamForReplicate(seed, replicate);
    long bits = 0;
    for (int i = 0; i < n; i++) {
      if ((i & 63) == 0) {
        bits = rng.nextLong(); // 64 fair coin flips per draw of the generator
      }
      signs[offset + i] = ((bits >>> (i & 63)) & 1L) == 0 ? 1.0 : -1.0;
    }
  }

  /**
   * Enumerated sign flips: draw r of the 2^n distinct flips; bit i of r set means sample i is
   * negated. Draw 0 is the identity (the observed data).
   */
  public static void enumeratedSignFlips(long replicate, int n, double[] signs, int offset) {
    for (int i = 0; i < n; i++) {
      signs[offset + i] = ((replicate >>> i) & 1L) == 0 ? 1.0 : -1.0;
    }
  }

  /** A uniformly random permutation of 0..n-1 (Fisher-Yates), for labels or a target vector. */
  public static void permutation(long seed, long replicate, int n, int[] out) {
    for (int i = 0; i < n; i++) {
      out[i] = i;
    }
    SplitMix rng = Seeds.streamForReplicate(seed, replicate);
    for (int i = n - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = out[i];
      out[i] = out[j];
      out[j] = t;
    }
  }

  /** True when all 2^n sign flips fit in the requested number of permutations (n < 62). */
  public static boolean enumerateSignFlips(int n, long permutations) {
    return n < 62 && (1L << n) <= permutations;
  }
}
