package org.nlspark.core.accumulate;

/** Range arithmetic shared by the accumulators indexed by replicate number. */
final class ReplicateRange {
  private ReplicateRange() {}

  static void checkNew(String what, long first, long length) {
    if (first < 0 || length < 0 || length > Integer.MAX_VALUE - 8
        || first > Long.MAX_VALUE - length) {
      throw new IllegalArgumentException(
          "Cannot create " + what + " for replicates [" + first + ", " + first + " + " + length
              + "): first must be >= 0 and length in [0, " + (Integer.MAX_VALUE - 8) + "]");
    }
  }

  static void checkInside(String what, long first, int length, long from, long rows) {
    if (rows < 0 || from < first || from + rows > first + length) {
      throw new IllegalArgumentException(
          "Cannot update " + what + ": replicates [" + from + ", " + (from + rows)
              + ") lie outside its range [" + first + ", " + (first + length) + ")");
    }
  }

  /** Union [min first, max end) of two overlapping or adjacent ranges; a gap is a broken invariant. */
  static long[] union(String what, long firstA, int lengthA, long firstB, int lengthB) {
    long endA = firstA + lengthA;
    long endB = firstB + lengthB;
    if (Math.max(firstA, firstB) > Math.min(endA, endB)) {
      throw new IllegalStateException(
          "[BUG] Cannot merge " + what + " over replicates [" + firstA + ", " + endA + ") and ["
              + firstB + ", " + endB + "): the ranges leave a gap; merge adjacent windows first");
    }
    long first = Math.min(firstA, firstB);
    long length = Math.max(endA, endB) - first;
    if (length > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException(
          "Cannot merge " + what + ": " + length + " replicates exceed one array");
    }
    return new long[] {first, length};
  }
}
