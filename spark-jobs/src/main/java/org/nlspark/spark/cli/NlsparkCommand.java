package org.nlspark.spark.cli;

import java.io.PrintStream;
import org.nlspark.core.InvalidInputException;

/**
 * One command of the command line. picocli fills the annotated fields from the arguments; the
 * caller then hands over the streams and the raw arguments (for summary.json) and calls
 * {@link #run}. Failures propagate as exceptions, which the caller maps to exit codes.
 */
public abstract class NlsparkCommand {
  protected PrintStream out;
  protected PrintStream err;
  /** The whole command line as given, command name first. */
  protected String[] argv;

  /** The command's name, as typed. */
  public abstract String name();

  /** Runs the command; returns its exit code (0 when done). */
  public final int run(PrintStream out, PrintStream err, String[] argv) {
    this.out = out;
    this.err = err;
    this.argv = argv.clone();
    return run();
  }

  /**
   * Checks every option without starting Spark or reading a file; throws the exit-2 (or 3)
   * error. {@link #run} starts with it.
   */
  public abstract void validate();

  /**
   * A required option's value; checked here, not by picocli, so that a misspelt option is
   * reported (with a suggestion) before the missing one it was meant to be.
   */
  final String require(String flag, String value) {
    if (value == null || value.isEmpty()) {
      throw new InvalidInputException("Cannot run " + name() + ": " + flag + " is required");
    }
    return value;
  }

  protected abstract int run();
}
