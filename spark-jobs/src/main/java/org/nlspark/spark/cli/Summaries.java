package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.result.Output;
import org.nlspark.report.Report;
import org.nlspark.spark.io.HadoopReport;
import org.nlspark.spark.io.NiftiOutputs;

/** summary.json of the tile commands, the command line as recorded, and the progress switch. */
public final class Summaries {
  /** Set to 1 by bin/nlspark when stderr is a terminal: enables the progress line. */
  public static final String STDERR_TTY_ENV = "NLSPARK_STDERR_TTY";

  private Summaries() {}

  /** summary.json: core's summary plus the command line that produced it and the files. */
  public static Map<String, Object> summary(RunReport report, String[] argv) {
    Map<String, Object> m = new LinkedHashMap<>(report.summary());
    m.put("command_line", commandLine(argv));
    List<String> files = new ArrayList<>();
    for (Output o : report.result.outputs()) {
      files.add(o.name() + ".npy");
    }
    files.addAll(NiftiOutputs.fileNames(report));
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
   * The result line after the run line: what was found and where the report is, e.g.
   * "312 voxels p_fwer < 0.05, max t 7.9 at (-42, 18, 6) mm; report: out/report.html".
   * Null when there is neither a finding nor a report.
   */
  public static String resultLine(Configuration conf, Map<String, Object> summary,
      String written) {
    String found = Report.findingsLine(summary, HadoopReport.mask(conf, written, summary));
    String report = HadoopReport.exists(conf, written)
        ? displayPath(written) + "/" + Report.FILE : null;
    String notes = summary.get("result_notes") instanceof java.util.List
        ? String.join("; ", ((java.util.List<?>) summary.get("result_notes")).stream()
            .map(String::valueOf).toList()) : "";
    if (found == null && report == null && notes.isEmpty()) {
      return null;
    }
    String line = found == null ? "" : found;
    if (!notes.isEmpty()) { // how the p-values were drawn, and what they cannot reach
      line += (line.isEmpty() ? "" : "; ") + notes;
    }
    if (report != null) {
      line += (line.isEmpty() ? "" : "; ") + "report: " + report;
    }
    return Untrusted.escape(line);
  }

  /** Prints {@link #resultLine} when there is one. */
  public static void printResultLine(java.io.PrintStream out, Configuration conf,
      Map<String, Object> summary, String written) {
    String line = resultLine(conf, summary, written);
    if (line != null) {
      out.println(line);
    }
  }

  /** A local directory as a plain path (file:/a/b -> /a/b); other schemes as they are. */
  static String displayPath(String dir) {
    return dir.startsWith("file:") ? java.net.URI.create(dir).getPath() : dir;
  }

  public static boolean progressWanted(boolean quiet) {
    return !quiet && "1".equals(System.getenv(STDERR_TTY_ENV));
  }
}
