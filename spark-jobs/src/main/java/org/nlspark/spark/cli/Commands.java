package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.TypeConversionException;

/**
 * The command line of DESIGN §6 as picocli declarations: the tool, its commands in help order,
 * and the number formats. Help is generated from these declarations, so a command lists exactly
 * the options it accepts.
 */
public final class Commands {
  private Commands() {}

  /** The top level: {@code nlspark <command> [options]}. */
  @Command(sortOptions = false, name = "nlspark",
      customSynopsis = "nlspark <command> [options]   (nlspark <command> --help for its options)",
      description = {"Resampling statistics for brain data on Apache Spark: permutation tests"
          + " (max-T, TFCE, clusters), GLM and bootstrap intervals over samples x voxels.",
          "Inputs: NIfTI images (a 4-D file, a list file, a directory or a glob of 3-D files)"
              + " with --mask, a Parquet dataset, or an .npy (n_samples, n_voxels) array."},
      subcommands = {BootstrapCommand.class, OneSampleCommand.class, TwoSampleCommand.class,
          CorrelationCommand.class, IscCommand.class, TimeSeriesCorrelationCommand.class,
          RidgeBootstrapCommand.class, GlmCommand.class, EnvCommand.class, DemoCommand.class,
          ReportCommand.class,
          CommandLine.HelpCommand.class},
      commandListHeading = "%nCommands:%n",
      footer = {"", "Exit codes: 0 done, 1 internal error, 2 bad usage or input, 3 resources"
          + " refused (memory, GPU), 130/143 interrupted (SIGINT/SIGTERM).",
          "Settings beyond flags are Spark properties spark.nlspark.* (spark-submit --conf KEY=V,"
              + " or NLSPARK_JAVA_OPTS=-DKEY=V bin/nlspark ...)."})
  static final class Tool {
    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;
  }

  /** A fresh parser (its commands hold the parsed values, so one per invocation). */
  public static CommandLine commandLine() {
    CommandLine cl = new CommandLine(new Tool());
    // A path may start with '@' (picocli would read it as an argument file).
    cl.setExpandAtFiles(false);
    cl.setUsageHelpAutoWidth(false);
    cl.setUsageHelpWidth(100);
    cl.registerConverter(Long.class, Commands::wholeNumber);
    cl.registerConverter(Integer.class, s -> {
      long v = wholeNumber(s);
      if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
        throw new TypeConversionException("must be at most " + Integer.MAX_VALUE);
      }
      return (int) v;
    });
    cl.registerConverter(Double.class, Commands::finiteNumber);
    return cl;
  }

  /** The names of the commands, in help order (without {@code help}). */
  public static List<String> names() {
    List<String> names = new ArrayList<>();
    for (String n : commandLine().getSubcommands().keySet()) {
      if (!n.equals("help")) {
        names.add(n);
      }
    }
    return names;
  }

  static long wholeNumber(String s) {
    try {
      return Long.parseLong(s.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new TypeConversionException("must be a whole number");
    }
  }

  static double finiteNumber(String s) {
    try {
      double d = Double.parseDouble(s.trim());
      if (Double.isFinite(d)) {
        return d;
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new TypeConversionException("must be a finite number");
  }
}
