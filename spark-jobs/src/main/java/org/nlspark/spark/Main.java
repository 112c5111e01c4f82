package org.nlspark.spark;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.cli.Commands;
import org.nlspark.spark.cli.Interruption;
import org.nlspark.spark.cli.NlsparkCommand;
import org.nlspark.spark.cli.Untrusted;
import org.nlspark.spark.cli.UsageErrors;
import org.nlspark.spark.conf.SparkLine;
import org.nlspark.spark.errors.OpenFileLimit;
import org.nlspark.spark.errors.TaskFailures;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * The command line of DESIGN §6: parses with {@link Commands}, runs the chosen command and maps
 * what it throws to the exit code: 0 done, 2 bad usage or input, 3 resources refused (including
 * any OutOfMemoryError), 130/143 interrupted, 1 internal error. A failure prints one or two
 * sentences on stderr (the stack trace only with {@code --verbose}), escaped, since file names
 * and header strings from files are not ours.
 */
public final class Main {
  /** Held so the configured java.util.logging levels are not garbage-collected away. */
  private static final java.util.logging.Logger[] QUIET_LOGGERS = {
    java.util.logging.Logger.getLogger("org.nlspark"),
    java.util.logging.Logger.getLogger("dev.ludovic.netlib"),
  };

  /**
   * Loggers of Spark's task failures and of its cleaner's races with stop(), off in
   * nlspark-log4j2.properties except with --verbose.
   */
  static final String[] VERBOSE_SPARK_LOGGERS = {
    "org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager",
    "org.apache.spark.ContextCleaner",
  };

  private Main() {}

  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", "nlspark-log4j2.properties");
    }
    // The command line speaks through its own output: the libraries' java.util.logging notes
    // (which BLAS loaded, why no GPU) go to summary.json and `env`, not to stderr.
    if (!List.of(args).contains("--verbose")) {
      QUIET_LOGGERS[0].setLevel(java.util.logging.Level.WARNING);
      QUIET_LOGGERS[1].setLevel(java.util.logging.Level.SEVERE);
    } else {
      // nlspark's logging files hide Spark's lines about failed tasks; --verbose shows them
      for (String logger : VERBOSE_SPARK_LOGGERS) {
        org.apache.logging.log4j.core.config.Configurator.setLevel(logger,
            org.apache.logging.log4j.Level.WARN);
      }
    }
    Interruption.install(Thread.currentThread(), System.err, List.of(args).contains("--verbose"));
    System.exit(run(args));
  }

  public static int run(String[] args) {
    return run(args, System.out, System.err);
  }

  public static int run(String[] args, PrintStream out, PrintStream err) {
    boolean verbose = List.of(args).contains("--verbose");
    String command = args.length == 0 || args[0].startsWith("-") ? null : args[0];
    // Before anything touches Scala: a jar on the wrong Spark line would otherwise fail at its
    // first Scala call with a NoSuchMethodError, reported as an internal error.
    String wrongLine = SparkLine.checkRuntime();
    if (wrongLine != null) {
      err.println("nlspark: " + Untrusted.escape(wrongLine));
      return 2;
    }
    try {
      CommandLine cl = Commands.commandLine();
      cl.setOut(new PrintWriter(out, true));
      cl.setErr(new PrintWriter(err, true));
      ParseResult parsed;
      try {
        parsed = cl.parseArgs(args);
      } catch (ParameterException e) {
        throw UsageErrors.of(e);
      }
      Integer help = CommandLine.executeHelpRequest(parsed);
      if (help != null) {
        return help;
      }
      if (!parsed.hasSubcommand()) {
        err.println("nlspark: a command is required.");
        err.print(cl.getUsageMessage());
        return 2;
      }
      ParseResult sub = parsed.subcommand();
      NlsparkCommand c = sub.commandSpec().commandLine().getCommand();
      int code = c.run(out, err, args);
      if (code == 0 && out.checkError()) {
        // the result line went nowhere (a full disk, /dev/full, a closed pipe): not "done"
        err.println((command == null ? "nlspark" : "nlspark " + Untrusted.escape(command))
            + ": Cannot write to standard output (a full disk, or a closed pipe); the results"
            + " themselves are in the output directory");
        return 3;
      }
      int signal = Interruption.exitCode();
      if (code == 0 && signal != 0) {
        // The signal came while the results were being committed: the commit was finished
        // (DESIGN: never half-written), and the exit still says the run was interrupted.
        err.println("nlspark " + Untrusted.escape(command) + ": interrupted ("
            + Interruption.signalName() + ") while committing; the new results are complete.");
        return signal;
      }
      return code;
    } catch (Throwable t) {
      return fail(command, t, verbose, err);
    }
  }

  /** Prints what went wrong and returns the exit code (DESIGN §6). */
  static int fail(String command, Throwable thrown, boolean verbose, PrintStream err) {
    Throwable t = thrown instanceof RuntimeException
        ? TaskFailures.unwrap((RuntimeException) thrown) : thrown;
    String platform = SparkLine.incompatibleJava(t);
    if (platform != null) {
      t = new InvalidInputException(platform, t); // the platform, not nlspark: exit 2
    } else if (!(t instanceof InvalidInputException) && !(t instanceof ResourceRefusedException)
        && OpenFileLimit.causedBy(t)) {
      t = OpenFileLimit.refusal("Cannot finish: ", t); // ulimit -n, wherever it ran out: exit 3
    }
    String who = command == null ? "nlspark" : "nlspark " + Untrusted.escape(command);
    int code = exitCode(t);
    if (code == 130 || code == 143) {
      String signal = Interruption.signalName();
      err.println(who + ": interrupted" + (signal == null ? "" : " (" + signal + ")")
          + "; no new results were written.");
    } else if (code == 3 && outOfMemory(t) != null) {
      err.println(who + ": " + outOfMemoryAdvice(outOfMemory(t)));
    } else if (code == 2 || code == 3) {
      err.println(who + ": " + Untrusted.escape(t.getMessage()));
    } else {
      err.println(who + " failed with an internal error: " + Untrusted.escape(t.toString())
          + ".");
      if (!verbose) {
        err.println("Run again with --verbose for the stack trace, and report it.");
      }
    }
    if (verbose) {
      thrown.printStackTrace(err);
    }
    return code;
  }

  /** The exit code of a failure (a signal received meanwhile decides first). */
  static int exitCode(Throwable t) {
    int signal = Interruption.exitCode();
    if (signal != 0) {
      return signal;
    }
    if (t instanceof InvalidInputException) {
      return 2;
    }
    if (t instanceof ResourceRefusedException || outOfMemory(t) != null) {
      return 3;
    }
    if (interrupted(t)) {
      return 130;
    }
    return 1;
  }

  /**
   * The OutOfMemoryError in the chain, or the message of one that a Spark task reported (the
   * task's error reaches the driver as text in a SparkException), or null.
   */
  static String outOfMemory(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof OutOfMemoryError) {
        return String.valueOf(c.getMessage());
      }
      String m = c.getMessage();
      if (m != null && m.contains("java.lang.OutOfMemoryError")) {
        return m.replaceAll("(?s).*java\\.lang\\.OutOfMemoryError:?\\s*([^\\n]*).*", "$1");
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return null;
  }

  static String outOfMemoryAdvice(String what) {
    long maxMib = Runtime.getRuntime().maxMemory() / (1024 * 1024);
    return "Cannot finish: the Java heap ran out (" + Untrusted.escape(what) + "; the heap is "
        + maxMib + " MiB). Give nlspark more memory (NLSPARK_JAVA_OPTS=-Xmx" + suggestGb(maxMib)
        + "g bin/nlspark ..., or spark-submit --driver-memory " + suggestGb(maxMib) + "g), or"
        + " ask for less (fewer --samples, no --save-samples, a smaller --memory-budget-gb).";
  }

  private static long suggestGb(long maxMib) {
    return Math.max(2, 2 * ((maxMib + 1023) / 1024));
  }

  private static boolean interrupted(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      if (c instanceof InterruptedException
          || c instanceof java.nio.channels.ClosedByInterruptException
          || c instanceof java.io.InterruptedIOException
              && !(c instanceof java.net.SocketTimeoutException)) {
        return true;
      }
      if (c.getCause() == c) {
        break;
      }
    }
    return false;
  }
}
