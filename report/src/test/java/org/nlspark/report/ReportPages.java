package org.nlspark.report;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/** The tests' way to write a page into a local directory; runs write it through Hadoop. */
final class ReportPages {
  private ReportPages() {}

  /**
   * Writes report.html into a local directory (a temporary file renamed into place, so a
   * reader never sees half a page). Returns the file written.
   */
  static Path write(Path dir) {
    String html = Report.render(ReportFiles.of(dir));
    Path target = dir.resolve(Report.FILE);
    try {
      // nlspark's temporary prefix: a run on this directory removes one a crash left behind
      Path temp = dir.resolve(Report.TEMP_PREFIX + ProcessHandle.current().pid() + "-"
          + System.nanoTime());
      try {
        Files.writeString(temp, html, StandardCharsets.UTF_8);
        Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING,
            StandardCopyOption.ATOMIC_MOVE);
      } finally {
        Files.deleteIfExists(temp);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + target + ": " + e.getMessage(), e);
    }
    return target;
  }
}
