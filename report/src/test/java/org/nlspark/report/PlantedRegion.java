package org.nlspark.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The check "the report's peak lies in the planted region", for any finished output directory
 * whose effect was planted around a known point: reads the first (largest) cluster's peak in mm
 * from the directory's report.html.
 */
public final class PlantedRegion {
  private static final Pattern PEAK_MM =
      Pattern.compile("<td class=\"peak-mm\">([-0-9.]+), ([-0-9.]+), ([-0-9.]+)</td>");

  private PlantedRegion() {}

  /** The peak (x, y, z) mm of the first cluster on the page of {@code dir}; null when none. */
  public static double[] reportedPeakMm(Path dir) throws IOException {
    return reportedPeakMm(dir, null);
  }

  /**
   * As {@link #reportedPeakMm(Path)}, in the page's section of one run ({@code "one-sample"}
   * for the demo's sub-directory of that name), or the whole page when {@code section} is null.
   */
  public static double[] reportedPeakMm(Path dir, String section) throws IOException {
    String html = Files.readString(dir.resolve(Report.FILE), StandardCharsets.UTF_8);
    if (section != null) {
      int start = html.indexOf("<section id=\"" + section + "\"");
      if (start < 0) {
        throw new AssertionError("report.html of " + dir + " has no section " + section);
      }
      html = html.substring(start, html.indexOf("</section>", start));
    }
    Matcher m = PEAK_MM.matcher(html);
    if (!m.find()) {
      return null;
    }
    return new double[] {
      Double.parseDouble(m.group(1)), Double.parseDouble(m.group(2)),
      Double.parseDouble(m.group(3))};
  }

  /** Throws AssertionError unless the reported peak is within {@code radiusMm} of the centre. */
  public static void assertPeakWithin(Path dir, double[] centreMm, double radiusMm)
      throws IOException {
    assertPeakWithin(dir, null, centreMm, radiusMm);
  }

  /** As above, for the peak of one run's section (see {@link #reportedPeakMm(Path, String)}). */
  public static void assertPeakWithin(Path dir, String section, double[] centreMm,
      double radiusMm) throws IOException {
    double[] peak = reportedPeakMm(dir, section);
    if (peak == null) {
      throw new AssertionError("report.html of " + dir + " lists no cluster");
    }
    double d = Math.sqrt(Math.pow(peak[0] - centreMm[0], 2) + Math.pow(peak[1] - centreMm[1], 2)
        + Math.pow(peak[2] - centreMm[2], 2));
    if (d > radiusMm) {
      throw new AssertionError(String.format(java.util.Locale.ROOT,
          "the reported peak (%.1f, %.1f, %.1f) mm is %.1f mm from the planted centre"
              + " (%.1f, %.1f, %.1f), more than %.1f mm", peak[0], peak[1], peak[2], d,
          centreMm[0], centreMm[1], centreMm[2], radiusMm));
    }
  }
}
