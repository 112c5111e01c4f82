package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.result.Output;
import org.nlspark.report.Report;
import org.nlspark.spark.output.HadoopReport;
import org.nlspark.spark.output.NiftiOutputs;

/** summary.json of the tile commands, the command line as recorded, and the progress switch. */
public final class Summaries {
  /** Set to 1 by bin/nlspark when stderr is a terminal: enables the progress line. */
  public static final String STDERR_TTY_ENV = "NLSPARK_STDERR_TTY";

  private Summaries() {}

  /** summary.json: core's summary plus the command line that produced it and the files. */
  public static Map<String, Object> summary(RunReport report, String[] argv) {
    Map<String, Object> m = new LinkedHashMap<>(report.summary());
    Map<String, Object> python = org.nlspark.spark.api.PythonCall.current();
    // a Python run's command line names staged files that are gone: its call is what reproduces
    m.put("command_line", python == null ? commandLine(argv) : null);
    if (python != null) {
      m.put("python", python);
    }
    List<String> files = new ArrayList<>();
    for (Output o : report.result.outputs()) {
      files.add(o.name() + ".npy");
    }
    files.addAll(NiftiOutputs.fileNames(report));
    files.addAll(org.nlspark.spark.output.SurfaceOutputs.fileNames(report));
    if (org.nlspark.spark.api.PythonCall.stagedMask(report)) {
      files.add(NiftiOutputs.MASK_FILE);
    }
    files.addAll(org.nlspark.spark.api.PythonCall.stagedSurfaceFiles(report).values());
    files.add("summary.json");
    m.put("files", files);
    return m;
  }

  /** The command as a shell would take it back (each argument quoted where needed). */
  public static String commandLine(String[] argv) {
    StringBuilder b = new StringBuilder("nlspark");
    for (String a : argv) {
      b.append(' ');
      if (a.matches("[A-Za-z0-9_./:=@%+,-]+")) {
        b.append(a);
      } else {
        b.append('\'').append(a.replace("'", "'\\''")).append('\'');
      }
    }
    return b.toString();
  }

  /** Each of the run's notices (RunWarnings) as one "warning:" line, quiet or not. */
  public static void printWarnings(RunReport report, java.io.PrintStream err) {
    for (String w : org.nlspark.core.engine.RunWarnings.of(report)) {
      err.println("warning: " + w);
    }
  }

  /**
   * The result lines after the run line: where the report is, the notes on the draws ("note:
   * tstat1 tested by sign flips ..."), then what each inference found (one line per inference and
   * contrast, {@link Report#findingsLines}; the findings come last,
   * nearest the prompt), e.g. "report: out/report.html" and "max-T: 87 voxels p_fwer < 0.05,
   * peak t 11.0 at (26, 8, 14) mm, two-tailed". Empty when there is neither.
   */
  public static List<String> resultLines(Configuration conf, Map<String, Object> summary,
      String written) {
    List<String> lines = new ArrayList<>();
    if (HadoopReport.exists(conf, written)) {
      lines.add("report: " + Untrusted.escape(
          org.nlspark.spark.io.UserPaths.displayPath(written) + "/" + Report.FILE));
    }
    // What each glm contrast tested, by the design's column names.
    for (String tested : Report.contrastLines(summary)) {
      lines.add("contrast: " + Untrusted.escape(tested));
    }
    // How the p-values were drawn and what they cannot reach (RunWarnings.resultNotes).
    if (summary.get("result_notes") instanceof List) {
      for (Object note : (List<?>) summary.get("result_notes")) {
        lines.add("note: " + Untrusted.escape(String.valueOf(note)));
      }
    }
    for (String found : Report.findingsLines(summary,
        HadoopReport.mask(conf, written, summary))) {
      lines.add(Untrusted.escape(found));
    }
    return lines;
  }

  /** Prints {@link #resultLines}. */
  public static void printResultLine(java.io.PrintStream out, Configuration conf,
      Map<String, Object> summary, String written) {
    for (String line : resultLines(conf, summary, written)) {
      out.println(line);
    }
  }

  /**
   * The first line a person at a terminal sees (stderr, only with the progress line: a
   * terminal and not --quiet), before Spark starts: what will run on what, e.g. "nlspark
   * one-sample: 5000 replicates of subjects.txt (mask mask.nii.gz) into out; starting Spark on
   * local[*] ...". The samples x voxels and the tiles follow on the progress line and the run line.
   */
  public static void printStartLine(java.io.PrintStream err, boolean quiet, String command,
      long replicates, String input, String mask, String output, String master) {
    if (!progressWanted(quiet)) {
      return;
    }
    err.println(Untrusted.escape("nlspark " + command + ": " + (replicates > 0 ? replicates
        + " replicates of " : "") + input + (mask == null ? "" : " (mask " + mask + ")")
        + " into " + output + "; starting Spark on " + (master == null ? "local[*]" : master)
        + " ..."));
    err.flush();
  }


  public static boolean progressWanted(boolean quiet) {
    return !quiet && "1".equals(System.getenv(STDERR_TTY_ENV));
  }
}
