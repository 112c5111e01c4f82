package org.nlspark.spark.io;

import java.util.Locale;

/**
 * The one check that what a reader is about to allocate fits the Java heap that is free now, so
 * a refusal (exit 3, in the reader's own words) comes before an OutOfMemoryError halfway
 * through the data.
 */
public final class HeapCheck {
  private HeapCheck() {}

  /** Heap bytes free now: the largest heap less what is in use. */
  public static long free() {
    Runtime r = Runtime.getRuntime();
    return r.maxMemory() - (r.totalMemory() - r.freeMemory());
  }

  /**
   * Whether {@code needed} bytes fit the free heap; when they do not at first, decided again
   * after a collection (what looked used may be garbage). A caller that is refused reports
   * {@link #free()} as it is after that collection.
   */
  public static boolean fits(long needed) {
    if (needed <= free()) {
      return true;
    }
    System.gc(); // what looked used may be garbage; decide on what a collection leaves
    return needed <= free();
  }

  /** A size in messages: GiB from 1 GiB up, else MiB, one decimal. */
  public static String format(long n) {
    if (n >= 1L << 30) {
      return String.format(Locale.ROOT, "%.1f GiB", n / (double) (1L << 30));
    }
    return String.format(Locale.ROOT, "%.1f MiB", n / (double) (1L << 20));
  }
}
