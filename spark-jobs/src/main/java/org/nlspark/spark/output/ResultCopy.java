package org.nlspark.spark.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.OutputFormat;
import org.nlspark.report.Report;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.UserPaths;

/**
 * A finished local output directory copied into another under the command line's output rules
 * ({@link HadoopOutput.OutputDir}: replace exactly what an earlier nlspark run listed, refuse
 * anything else, rename into place, remove the earlier run's listed files this one lacks).
 * The Python package's {@code Result.write}.
 */
public final class ResultCopy {
  private ResultCopy() {}

  /**
   * Copies every regular file of {@code from} (names starting with '.' are bookkeeping) into
   * {@code to}; report.html after the commit, as a run writes it.
   *
   * @return the directory written, fully qualified
   */
  @SuppressWarnings("unchecked")
  public static String copy(Configuration conf, String from, String to, boolean overwrite) {
    java.nio.file.Path src = java.nio.file.Path.of(from);
    TreeSet<String> names = new TreeSet<>();
    try (Stream<java.nio.file.Path> files = Files.list(src)) {
      files.filter(p -> !p.getFileName().toString().startsWith(".")
              && Files.isRegularFile(p, LinkOption.NOFOLLOW_LINKS))
          .forEach(p -> names.add(p.getFileName().toString()));
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", "the results in", from);
    }
    if (!names.contains("summary.json")) {
      throw new InvalidInputException("Cannot copy the results in " + from + ": it has no"
          + " summary.json, so it is not an nlspark output directory");
    }
    boolean report = names.remove(Report.FILE);
    Object summary;
    try {
      summary = Json.parse(Files.readString(src.resolve("summary.json"), StandardCharsets.UTF_8));
    } catch (IOException | RuntimeException e) {
      throw new InvalidInputException("Cannot copy the results in " + from + ": its"
          + " summary.json cannot be read (" + e.getMessage() + ")");
    }
    // As written when it lists exactly the files copied; else commit() writes the list anew,
    // so that a later overwrite replaces exactly these files.
    boolean asIs = OutputFormat.isNlsparks(summary) && summary instanceof Map<?, ?> m
        && m.get("outputs") instanceof List<?> listed
        && new TreeSet<>(listed.stream().map(String::valueOf).toList()).equals(names);
    String target;
    HadoopOutput.OutputDir out = HadoopOutput.OutputDir.open(conf, to, overwrite);
    try {
      FileSystem fs = fileSystem(conf, out.target(), to);
      Path reportPath = new Path(out.target(), Report.FILE);
      if (report && fs.exists(reportPath) && !fs.getFileStatus(reportPath).isFile()) {
        throw new InvalidInputException("Cannot write --output " + to + ": " + Report.FILE
            + " there is not a file, so --overwrite does not replace it; move it away or"
            + " choose another directory");
      }
      for (String name : names) {
        if (name.equals("summary.json") && !asIs) {
          out.writeJson(name, new java.util.LinkedHashMap<>((Map<String, Object>) summary));
        } else {
          out.writeFile(name, src.resolve(name));
        }
      }
      target = out.commit();
    } catch (IOException e) {
      throw UserPaths.environment(e, "check", "--output", to);
    } finally {
      out.close();
    }
    writeReport(conf, src, target, to, report);
    return target;
  }

  /** report.html follows the commit (it describes the files); an earlier run's one goes. */
  private static void writeReport(Configuration conf, java.nio.file.Path src, String target,
      String to, boolean report) {
    FileSystem fs = fileSystem(conf, target, to);
    Path dest = new Path(target, Report.FILE);
    try {
      if (report) {
        Path temp = new Path(target, Report.TEMP_PREFIX + ProcessHandle.current().pid() + "-"
            + System.nanoTime());
        AtomicFile.write(fs, temp, dest, o -> Files.copy(src.resolve(Report.FILE), o));
      } else if (fs.exists(dest)) {
        fs.delete(dest, false);
      }
    } catch (IOException e) {
      throw UserPaths.environment(e, "write", "--output", to + " (" + Report.FILE + ")");
    }
  }

  private static FileSystem fileSystem(Configuration conf, String dir, String to) {
    Path p = new Path(dir);
    return NpyInputs.withoutChecksums(UserPaths.fileSystem(p, conf, "--output", to));
  }
}
