package org.nlspark.spark.cli;

import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.spark.sql.SparkSession;

/**
 * Ctrl-C (SIGINT) and SIGTERM: the run stops, cleans up and exits 130 or 143 with the word
 * "interrupted", not an internal error with stack traces. The handler records the signal, cancels
 * the Spark jobs and interrupts the command's thread; the command unwinds through its
 * try-with-resources (so a half-written output directory is removed) and the exit code is
 * chosen from the recorded signal. A command that does not unwind within the grace period is
 * ended with {@code System.exit}, which still runs the shutdown hooks (the temp-dir cleanup);
 * a second signal ends at once.
 */
public final class Interruption {
  /** How long the command may take to unwind after a signal. */
  static final long GRACE_MS = 10_000;

  private static final AtomicInteger SIGNAL = new AtomicInteger();

  private Interruption() {}

  /** The exit code of the signal received (130 or 143), or 0 when none was. */
  public static int exitCode() {
    int s = SIGNAL.get();
    return s == 0 ? 0 : 128 + s;
  }

  /** The name of the signal received, or null. */
  public static String signalName() {
    switch (SIGNAL.get()) {
      case 2:
        return "SIGINT";
      case 15:
        return "SIGTERM";
      default:
        return null;
    }
  }

  /** Records a signal as the handler does; for tests of the exit-code mapping. */
  public static void record(int signalNumber) {
    SIGNAL.compareAndSet(0, signalNumber);
  }

  /** Forgets a recorded signal (tests). */
  public static void reset() {
    SIGNAL.set(0);
  }

  /**
   * Installs the handlers for the rest of this JVM. Only the process entry point calls this; an
   * embedding program (a notebook, spark-submit) keeps its own signal handling.
   */
  public static void install(Thread commandThread, PrintStream err) {
    install(commandThread, err, false);
  }

  /**
   * {@link #install(Thread, PrintStream)}; unless {@code verbose}, what Spark's threads log or
   * throw while they are being stopped (rejected tasks, a context stopped under them) is not
   * printed after the "interrupted" line: the run's one sentence says what happened.
   */
  @SuppressWarnings("sunapi")
  public static void install(Thread commandThread, PrintStream err, boolean verbose) {
    for (String name : new String[] {"INT", "TERM"}) {
      try {
        sun.misc.Signal.handle(new sun.misc.Signal(name), s -> onSignal(s.getNumber(),
            commandThread, err, verbose));
      } catch (IllegalArgumentException | UnsupportedOperationException e) {
        // This platform or the JVM's options (-Xrs) reserve the signal: keep the default.
      }
    }
  }

  private static void onSignal(int number, Thread commandThread, PrintStream err,
      boolean verbose) {
    if (!SIGNAL.compareAndSet(0, number)) {
      Runtime.getRuntime().halt(exitCode());
      return;
    }
    if (!verbose) {
      silenceLibraries();
    }
    err.println("nlspark: interrupted (" + signalName() + "); stopping and cleaning up");
    Thread stopper = new Thread(() -> {
      try {
        scala.Option<SparkSession> s = SparkSession.getActiveSession();
        if (s.isEmpty()) {
          s = SparkSession.getDefaultSession();
        }
        if (s.isDefined()) {
          s.get().sparkContext().cancelAllJobs();
        }
      } catch (RuntimeException ignored) {
        // Spark stopping on its own: nothing left to cancel.
      }
      commandThread.interrupt();
      try {
        Thread.sleep(GRACE_MS);
      } catch (InterruptedException e) {
        return;
      }
      System.exit(exitCode());
    }, "nlspark-interrupt");
    stopper.setDaemon(true);
    stopper.start();
  }

  /**
   * From now on: Spark's logging off, uncaught exceptions of its threads unprinted, and
   * System.err (where libraries print stacks directly) discarded.
   */
  private static void silenceLibraries() {
    try {
      org.apache.logging.log4j.core.config.Configurator.setAllLevels(
          org.apache.logging.log4j.LogManager.ROOT_LOGGER_NAME,
          org.apache.logging.log4j.Level.OFF);
    } catch (RuntimeException | LinkageError e) {
      // another logging back end: its lines may still show
    }
    Thread.setDefaultUncaughtExceptionHandler((t, e) -> { });
    // what Spark's and Scala's threads print themselves (a rejected callback's stack): nlspark's
    // own lines go to the stream Main and this handler were given, which stays open
    System.setErr(new PrintStream(java.io.OutputStream.nullOutputStream()));
  }
}
