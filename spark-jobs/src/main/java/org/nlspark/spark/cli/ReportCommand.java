package org.nlspark.spark.cli;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.nlspark.core.io.Json;
import org.nlspark.spark.output.HadoopReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code nlspark report DIR}: writes report.html again from a finished output directory. */
@Command(sortOptions = false, name = "report",
    description = {"Writes DIR/report.html from a finished output directory (summary.json, the"
        + " .npy outputs and, with a grid, mask.nii.gz): one self-contained page of what was run"
        + " and what it found. Every run writes it; this regenerates it, optionally over an"
        + " underlay image."},
    customSynopsis = "nlspark report DIR [--underlay FILE] [--quiet]")
final class ReportCommand extends NlsparkCommand {
  @Parameters(index = "0", paramLabel = "DIR", arity = "0..1",
      description = "the output directory of a finished run (local path or Hadoop URI)")
  String dir;

  @Option(names = "--underlay", order = 0, paramLabel = "FILE", description = "a 3-D NIfTI on"
      + " the run's grid drawn in grey under the maps (e.g. the mean of the input images, or an"
      + " anatomical image resampled to the mask's grid); default: the mask")
  String underlay;

  @Option(names = "--quiet", order = 1, description = "print nothing when done")
  boolean quiet;

  @Option(names = "--verbose", order = 2, description = "stack traces on errors")
  boolean verbose;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = 3, description = "this help")
  boolean help;

  @Override
  public String name() {
    return "report";
  }

  @Override
  public void validate() {
    // nothing to check before reading: DIR is required when the command runs
  }

  @Override
  protected int run() {
    require("DIR", dir);
    Configuration conf = new Configuration();
    String written = HadoopReport.write(conf, dir, underlay);
    if (!quiet) {
      out.println("report: " + Untrusted.escape(org.nlspark.spark.io.UserPaths.displayPath(written)));
      byte[] summary = null;
      try {
        summary = HadoopReport.files(conf, dir).read("summary.json");
      } catch (java.io.IOException e) {
        // the report was written from it a moment ago; without it the lines say less
      }
      if (summary != null) {
        Object parsed = Json.parse(new String(summary, java.nio.charset.StandardCharsets.UTF_8));
        if (parsed instanceof Map) {
          @SuppressWarnings("unchecked")
          Map<String, Object> m = (Map<String, Object>) parsed;
          for (String found : org.nlspark.report.Report.findingsLines(m,
              HadoopReport.mask(conf, dir, m))) {
            out.println(Untrusted.escape(found));
          }
        }
      }
    }
    return 0;
  }
}
