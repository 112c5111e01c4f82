package org.nlspark.spark.output;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.report.Report;
import org.nlspark.report.ReportFiles;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.UserPaths;

/**
 * report.html of a finished output directory on any Hadoop file system. It is written after
 * the run's commit, as the last file (a temporary name renamed into place); it is not among
 * summary.json's outputs because it describes them, summary.json included. A later run on the
 * directory replaces it.
 */
public final class HadoopReport {
  private static final long MAX_READ = 1L << 31;

  private HadoopReport() {}

  /** The directory's files, read through Hadoop. */
  public static ReportFiles files(Configuration conf, String dir) {
    Path root = UserPaths.toPath(dir, "DIR");
    FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(root, conf, "DIR", dir));
    return new ReportFiles() {
      @Override
      public String location() {
        // a local directory as a plain path, as the user would type it
        return dir.startsWith("file:") ? root.toUri().getPath() : dir;
      }

      @Override
      public byte[] read(String name) throws IOException {
        Path p = new Path(root, name);
        if (!fs.exists(p) || !fs.getFileStatus(p).isFile()) {
          return null;
        }
        return readAll(fs, p);
      }

      @Override
      public byte[] readPath(String path) throws IOException {
        Path p = UserPaths.toPath(path, "the mask named in summary.json");
        if (!p.isAbsolute() && p.toUri().getScheme() == null) {
          p = new Path(root, path);
        }
        // raw local reads: the checksummed one builds a ".name.crc" sibling, which a colon in
        // the name (ma:sk.nii.gz) makes an invalid URI
        return readAll(NpyInputs.withoutChecksums(p.getFileSystem(conf)), p);
      }

      @Override
      public java.util.List<String> subdirectories() throws IOException {
        if (!fs.exists(root) || !fs.getFileStatus(root).isDirectory()) {
          return java.util.List.of();
        }
        java.util.List<String> names = new java.util.ArrayList<>();
        for (org.apache.hadoop.fs.FileStatus s : fs.listStatus(root)) {
          if (s.isDirectory()) {
            names.add(s.getPath().getName());
          }
        }
        java.util.Collections.sort(names);
        return names;
      }
    };
  }

  private static byte[] readAll(FileSystem fs, Path p) throws IOException {
    if (fs.getFileStatus(p).getLen() > MAX_READ) {
      throw new IOException(p + " is larger than 2 GiB; the report does not read it");
    }
    try (FSDataInputStream in = fs.open(p)) {
      return in.readAllBytes();
    }
  }

  /** Renders and writes report.html into {@code dir}; returns its path. */
  public static String write(Configuration conf, String dir) {
    return write(conf, dir, null);
  }

  /**
   * The same with a grey underlay under the maps ({@code --underlay}: a 3-D NIfTI on the run's
   * grid, local path or Hadoop URI; null for none).
   */
  public static String write(Configuration conf, String dir, String underlay) {
    byte[] under = null;
    if (underlay != null) {
      Path u = UserPaths.toPath(underlay, "--underlay");
      FileSystem ufs = UserPaths.fileSystem(u, conf, "--underlay", underlay);
      try {
        if (!ufs.isFile(u)) {
          throw UserPaths.noSuchFile("the underlay " + underlay,
              "give --underlay a 3-D NIfTI on the run's grid");
        }
        long size = ufs.getFileStatus(u).getLen();
        if (size > MAX_READ) {
          throw new org.nlspark.core.InvalidInputException("Cannot read the underlay "
              + underlay + ": it has " + size + " bytes, more than a 3-D image needs");
        }
        under = new byte[(int) size];
        try (FSDataInputStream in = ufs.open(u)) {
          in.readFully(0, under);
        }
      } catch (IOException e) {
        throw UserPaths.environment(e, "read", "the underlay", underlay);
      }
    }
    ReportFiles runs = files(conf, dir);
    String html = Report.render(runs, under, underlay);
    refuseAnotherPage(runs);
    HadoopOutput.OutputDir.pause("report");
    Path root = UserPaths.toPath(dir, "DIR");
    FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(root, conf, "DIR", dir));
    Path target = new Path(root, Report.FILE);
    Path temp = new Path(root, Report.TEMP_PREFIX + ProcessHandle.current().pid() + "-"
        + System.nanoTime());
    try {
      AtomicFile.write(fs, temp, target, out -> out.write(html.getBytes(StandardCharsets.UTF_8)));
    } catch (IOException e) {
      throw UserPaths.environment(e, "write", "the report of", dir);
    }
    return target.toString();
  }

  /**
   * A directory without a summary.json of its own (its runs in sub-directories) gets one page
   * for them all, but never over a report.html that nlspark did not write: nothing there says
   * that file is ours to replace (exit 2).
   */
  private static void refuseAnotherPage(ReportFiles files) {
    try {
      if (files.read("summary.json") != null) {
        return; // nlspark's (render refused any other): its report.html is the run's
      }
      byte[] page = files.read(Report.FILE);
      if (page != null && !Report.isNlsparksPage(page)) {
        throw new org.nlspark.core.InvalidInputException("Cannot write a report of "
            + files.location() + ": it has no summary.json of its own, and its report.html was"
            + " not written by nlspark, so it is left as it is; name a run's own directory, or"
            + " move that report.html away");
      }
    } catch (IOException e) {
      throw UserPaths.environment(e, "Cannot write a report of " + files.location() + ": ");
    }
  }

  /**
   * Writes report.html after a run's commit. A failure here leaves the results (already in
   * place) as they are, removes a report of an earlier run that would describe other files,
   * and is returned as a message instead of thrown: the run itself succeeded.
   *
   * @return null when written, else why not
   */
  public static String writeAfterRun(Configuration conf, String dir) {
    try {
      write(conf, dir);
      return null;
    } catch (org.nlspark.core.ResourceRefusedException e) {
      removeReport(conf, dir);
      // a full disk or the open-file limit is the user's to know about by the exit code too
      // (3), said once, with the fix before `nlspark report`
      String said = e.getMessage();
      String fix = "free space";
      int raise = said.indexOf("; raise the limit with ulimit -n");
      if (org.nlspark.spark.errors.OpenFileLimit.isEmfile(said) && raise >= 0) {
        fix = said.substring(raise + 2).replaceFirst(" and run again$", "");
        said = said.substring(0, raise);
      } else {
        said = said.replaceFirst("; free space or choose another --output directory$", "");
      }
      throw new org.nlspark.core.ResourceRefusedException(said + "; the results are in place,"
          + " only report.html is missing: " + fix + ", then run nlspark report "
          + org.nlspark.spark.io.UserPaths.displayPath(dir), e);
    } catch (RuntimeException | LinkageError | InternalError e) {
      // InternalError/LinkageError: AWT without fonts or native libraries on this host
      removeReport(conf, dir);
      return "report.html not written: " + e.getMessage();
    }
  }

  /** Removes a report of an earlier run, which would describe other files. */
  private static void removeReport(Configuration conf, String dir) {
    try {
      Path target = new Path(UserPaths.toPath(dir, "DIR"), Report.FILE);
      target.getFileSystem(conf).delete(target, false);
    } catch (IOException | RuntimeException ignored) {
      // nothing more to do: the message says the report is missing
    }
  }


  /** {@link #writeAfterRun}, with the reason on stderr when the report could not be written. */
  public static void writeOrWarn(Configuration conf, String dir) {
    String failed = writeAfterRun(conf, dir);
    if (failed != null) {
      System.err.println("nlspark: " + failed);
    }
  }

  /**
   * The run's mask for the result line ({@link Report#mask}); null without a grid. The grid
   * entry is taken from {@code summary}, else from the summary.json written in {@code dir}.
   */
  @SuppressWarnings("unchecked")
  public static NiftiMask mask(Configuration conf, String dir, Map<String, Object> summary) {
    try {
      ReportFiles files = files(conf, dir);
      Map<String, Object> s = summary;
      if (s == null || !s.containsKey("grid")) {
        byte[] json = files.read("summary.json");
        Object parsed = json == null ? null
            : Json.parse(new String(json, StandardCharsets.UTF_8));
        if (!(parsed instanceof Map)) {
          return null;
        }
        s = (Map<String, Object>) parsed;
      }
      return Report.mask(files, s);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /** Whether report.html exists in {@code dir}. */
  public static boolean exists(Configuration conf, String dir) {
    try {
      Path target = new Path(UserPaths.toPath(dir, "DIR"), Report.FILE);
      return target.getFileSystem(conf).exists(target);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }
}
