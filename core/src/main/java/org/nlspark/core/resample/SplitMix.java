package org.nlspark.core.resample;

/**
 * The stream of {@code java.util.SplittableRandom} (SplitMix64, Steele, Lea and Flood 2014)
 * for the two methods the draws use, as a mutable value that one kernel reuses for every
 * replicate instead of allocating a generator per replicate. Bit for bit the JDK's stream:
 * the draws, and so every output, are unchanged (checked against SplittableRandom in the tests).
 */
final class SplitMix {
  private static final long GOLDEN_GAMMA = 0x9e3779b97f4a7c15L;
  private long seed;

  /** Restarts the stream as {@code new SplittableRandom(seed)} would. */
  SplitMix reset(long seed) {
    this.seed = seed;
    return this;
  }

  long nextLong() {
    long z = (seed += GOLDEN_GAMMA);
    z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
    z = (z ^ (z >>> 27)) * 0x94d049bb133111ebL;
    return z ^ (z >>> 31);
  }

  int nextInt() {
    long z = (seed += GOLDEN_GAMMA);
    z = (z ^ (z >>> 33)) * 0x62a9d9ed799705f5L;
    return (int) (((z ^ (z >>> 28)) * 0xcb24d0a5c88c35b3L) >>> 32);
  }

  /** SplittableRandom.nextInt(bound): a mask for powers of two, else rejection on the top bits. */
  int nextInt(int bound) {
    int r = nextInt();
    int m = bound - 1;
    if ((bound & m) == 0) {
      return r & m;
    }
    for (int u = r >>> 1; u + m - (r = u % bound) < 0; u = nextInt() >>> 1) {
      // rejected: u fell in the last, incomplete interval of bound
    }
    return r;
  }
}
