package org.nlspark.spark.errors;

import java.lang.management.ManagementFactory;
import java.lang.management.OperatingSystemMXBean;
import java.util.Locale;
import org.nlspark.core.ResourceRefusedException;

/**
 * The per-process limit on open files ({@code ulimit -n}) as a resource (exit 3): refused
 * before Spark starts when too few are left for it, and said in one sentence wherever the
 * operating system's "Too many open files" (EMFILE, errno 24) surfaces later (Spark's event
 * loops, a file opened for reading or writing, a process Hadoop forks). bin/nlspark refuses a
 * limit too low for the JVM itself to start (it opens every jar of the class path).
 */
public final class OpenFileLimit {
  /**
   * Descriptors Spark's driver opens after this point in local mode, with room for the run's
   * own files: its RPC and block-manager event loops, shuffle and spill files, the inputs read
   * in parallel and the outputs written. A run of the fault suite needs about 50.
   */
  public static final int SPARK_HEADROOM = 128;

  private OpenFileLimit() {}

  /**
   * Refuses to start Spark when the open-file limit leaves fewer than {@link #SPARK_HEADROOM}
   * descriptors free; does nothing where the JVM cannot say (not a Unix).
   */
  public static void checkHeadroom() {
    long limit = limit();
    long open = open();
    if (limit > 0 && open >= 0) {
      checkHeadroom(limit, open);
    }
  }

  /** {@link #checkHeadroom()} for a given limit and count of open descriptors. */
  static void checkHeadroom(long limit, long open) {
    if (limit - open < SPARK_HEADROOM) {
      throw new ResourceRefusedException("Cannot start Spark: too many open files for the"
          + " open-file limit (ulimit -n " + limit + "): " + open + " are open already and"
          + " Spark needs about " + SPARK_HEADROOM + " more; " + raise(limit));
    }
  }

  /** Whether the chain of {@code t} holds the operating system's "Too many open files". */
  public static boolean causedBy(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String m = c.getMessage();
      if (m != null && isEmfile(m)) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }

  /** Whether an error message is the operating system's EMFILE (Java's and errno's words). */
  public static boolean isEmfile(String message) {
    String lower = message.toLowerCase(Locale.ROOT);
    return lower.contains("too many open files") || lower.contains("error=24,");
  }

  /**
   * The refusal for a failure that ran out of descriptors, after a ready prefix ("Cannot write
   * --output X (p.npy): ").
   */
  public static ResourceRefusedException refusal(String what, Throwable cause) {
    long limit = limit();
    return new ResourceRefusedException(what + "too many open files (the open-file limit is "
        + (limit > 0 ? "ulimit -n " + limit : "unknown") + "); " + raise(limit), cause);
  }

  private static String raise(long limit) {
    long suggested = 4096;
    while (limit > 0 && suggested < 4 * limit) {
      suggested *= 2;
    }
    return "raise the limit with ulimit -n " + suggested + " (or more; ulimit -Hn is the"
        + " highest allowed) and run again";
  }

  /** The soft limit on open files of this process, or -1 where the JVM cannot say. */
  static long limit() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.UnixOperatingSystemMXBean
        ? ((com.sun.management.UnixOperatingSystemMXBean) os).getMaxFileDescriptorCount() : -1;
  }

  /** The descriptors this process has open, or -1 where the JVM cannot say. */
  static long open() {
    OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
    return os instanceof com.sun.management.UnixOperatingSystemMXBean
        ? ((com.sun.management.UnixOperatingSystemMXBean) os).getOpenFileDescriptorCount() : -1;
  }
}
