package org.nlspark.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Enumeration;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.cli.Commands;
import org.nlspark.spark.cli.NlsparkCommand;
import org.nlspark.spark.api.PythonCall;
import org.nlspark.spark.cli.UsageErrors;
import org.nlspark.spark.errors.TaskFailures;
import picocli.CommandLine;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.ParseResult;

/**
 * One command of the command line run inside the caller's Spark session: the one entry point
 * of the Python package ({@code python/nlspark}, over py4j). It lives beside {@link Main}, whose
 * failure rules it shares (the api package stays below cli). The same parser and the same
 * command code as {@link Main}, so the same arguments write the same bytes. Failures are thrown
 * rather than mapped to exit codes: {@link InvalidInputException} (exit 2),
 * {@link ResourceRefusedException} (exit 3, an OutOfMemoryError included, with Main's advice),
 * anything else as it came (exit 1).
 */
public final class CommandRunner {
  private CommandRunner() {}

  /**
   * Runs {@code args} (command name first, as on the command line) in {@code spark}, which the
   * command uses and never stops.
   *
   * @return what the command printed: {@code [stdout, stderr]} (result line, warnings)
   */
  public static String[] run(SparkSession spark, String[] args) {
    SparkSession.setActiveSession(spark);
    boolean quiet = spark.sparkContext().isLocal() && TaskFailureLogs.quiet();
    try {
      return runQuietly(spark, args);
    } finally {
      if (quiet) {
        TaskFailureLogs.restore();
      }
    }
  }

  private static String[] runQuietly(SparkSession spark, String[] args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    try (PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
        PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8)) {
      CommandLine cl = Commands.commandLine();
      ParseResult parsed;
      try {
        parsed = cl.parseArgs(args);
      } catch (ParameterException pe) {
        throw UsageErrors.of(pe);
      }
      if (!parsed.hasSubcommand()) {
        throw new InvalidInputException("Cannot run nlspark: a command is required");
      }
      NlsparkCommand command = parsed.subcommand().commandSpec().commandLine().getCommand();
      command.run(o, e, args);
    } catch (RuntimeException t) {
      RuntimeException u = TaskFailures.unwrap(t);
      String oom = Main.outOfMemory(u);
      if (oom != null && !(u instanceof ResourceRefusedException)) {
        throw new ResourceRefusedException(Main.outOfMemoryAdvice(oom));
      }
      throw u;
    } catch (OutOfMemoryError t) {
      throw new ResourceRefusedException(Main.outOfMemoryAdvice(String.valueOf(t.getMessage())));
    }
    return new String[] {
      out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8)};
  }

  /**
   * As {@link #run(SparkSession, String[])}, for a call from Python: {@code callJson} (an
   * object: the call as written and each input as the user gave it) goes to summary.json and the
   * report in place of the command line, whose staged files are gone after the call
   * ({@link PythonCall}).
   */
  public static String[] run(SparkSession spark, String[] args, String callJson) {
    Object call = org.nlspark.core.io.Json.parse(callJson);
    if (!(call instanceof java.util.Map)) {
      throw new IllegalArgumentException("[BUG] the Python call is not a JSON object");
    }
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> map = (java.util.Map<String, Object>) call;
    PythonCall.set(map);
    try {
      return run(spark, args);
    } finally {
      PythonCall.set(null);
    }
  }

  /**
   * The stack a failed task prints in this JVM (local masters: "ERROR Executor: Exception in
   * task", then TaskSetManager's "Lost task") is off while commands run, as the command line's
   * log4j2 configuration keeps Executor off: the failure comes back to the caller as one
   * exception, its stack in the Py4J cause. Counted, so overlapping runs restore once.
   */
  static final class TaskFailureLogs {
    private static final String[] NAMES = {
      "org.apache.spark.executor.Executor", "org.apache.spark.scheduler.TaskSetManager"};
    private static int running;
    private static final java.util.Map<String, org.apache.logging.log4j.Level> before =
        new java.util.HashMap<>();

    private TaskFailureLogs() {}

    /** Turns the loggers off for the first run; false when logging is not log4j 2's core. */
    static synchronized boolean quiet() {
      try {
        if (running == 0) {
          org.apache.logging.log4j.core.LoggerContext ctx = context();
          org.apache.logging.log4j.core.config.Configuration c = ctx.getConfiguration();
          before.clear();
          for (String name : NAMES) {
            org.apache.logging.log4j.core.config.LoggerConfig own = c.getLoggers().get(name);
            before.put(name, own == null ? null : own.getLevel());
            if (own == null) {
              c.addLogger(name, new org.apache.logging.log4j.core.config.LoggerConfig(name,
                  org.apache.logging.log4j.Level.OFF, true));
            } else {
              own.setLevel(org.apache.logging.log4j.Level.OFF);
            }
          }
          ctx.updateLoggers();
        }
        running++;
        return true;
      } catch (ClassCastException | LinkageError e) {
        return false; // another logging backend: its own settings stay
      }
    }

    /** After the last run, each logger as it was (one without its own level gets none). */
    static synchronized void restore() {
      if (--running > 0) {
        return;
      }
      org.apache.logging.log4j.core.LoggerContext ctx = context();
      for (String name : NAMES) {
        org.apache.logging.log4j.Level level = before.get(name);
        if (level == null) {
          ctx.getConfiguration().removeLogger(name);
        } else {
          ctx.getConfiguration().getLoggers().get(name).setLevel(level);
        }
      }
      ctx.updateLoggers();
    }

    private static org.apache.logging.log4j.core.LoggerContext context() {
      // Spark's own context (this jar may sit in a child class loader)
      return (org.apache.logging.log4j.core.LoggerContext)
          org.apache.logging.log4j.LogManager.getContext(
              org.apache.spark.SparkContext.class.getClassLoader(), false);
    }
  }

  /**
   * Copies a finished output directory (a Python Result's) into {@code toDir} under the command
   * line's --output rules ({@link org.nlspark.spark.output.ResultCopy}); returns the directory.
   */
  public static String copyResult(SparkSession spark, String fromDir, String toDir,
      boolean overwrite) {
    return org.nlspark.spark.output.ResultCopy.copy(spark.sparkContext().hadoopConfiguration(),
        fromDir, toDir, overwrite);
  }

  /**
   * Every command's defaults as a run resolves them (JSON of {@link
   * org.nlspark.spark.api.CommandDefaults#table()}), for the Python package's
   * {@code nlspark.defaults()} and its check that its keywords default to the same.
   */
  public static String defaults() {
    return org.nlspark.spark.api.CommandDefaults.json();
  }

  /**
   * The version of the jar this class was loaded from (its Maven pom.properties), or null when
   * it was loaded from a class directory; the Python package checks it against its own.
   */
  public static String version() {
    try {
      Path where = Path.of(CommandRunner.class.getProtectionDomain().getCodeSource().getLocation()
          .toURI());
      if (!Files.isRegularFile(where)) {
        return null;
      }
      try (JarFile jar = new JarFile(where.toFile())) {
        for (Enumeration<JarEntry> en = jar.entries(); en.hasMoreElements(); ) {
          JarEntry entry = en.nextElement();
          if (entry.getName().matches("META-INF/maven/org\\.nlspark/[^/]+/pom\\.properties")) {
            Properties p = new Properties();
            try (InputStream in = jar.getInputStream(entry)) {
              p.load(in);
            }
            return p.getProperty("version");
          }
        }
      }
      return null;
    } catch (IOException | java.net.URISyntaxException | SecurityException e) {
      return null;
    }
  }
}
