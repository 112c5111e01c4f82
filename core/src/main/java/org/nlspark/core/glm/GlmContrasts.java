package org.nlspark.core.glm;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.InvalidInputException;

/**
 * t contrasts (rows of weights, one per t-test), their names, the design columns the weights
 * belong to, and F contrasts as sets of 0-based t-contrast indices; the sources name the files
 * for messages.
 *
 * <p>{@code columns} is null when the weights are positional (FSL VEST files, arrays): weight j
 * is then design column j, as randomise reads them. When it names columns (a CSV header, a
 * DataFrame), the weights are matched to the design by name ({@link #matchedTo}): in any order,
 * a design column the contrast does not name weighs 0, and a name that is no design column is
 * refused, so that what the user wrote is what is tested.
 */
public record GlmContrasts(double[][] t, String[] tNames, String[] columns, int[][] f,
    String source, String fSource) {
  public GlmContrasts {
    f = f == null ? new int[0][] : f;
  }

  /** Positional weights (no column names). */
  public GlmContrasts(double[][] t, String[] tNames, int[][] f, String source, String fSource) {
    this(t, tNames, null, f, source, fSource);
  }

  public static GlmContrasts of(double[][] t, int[][] f) {
    String[] names = new String[t.length];
    for (int i = 0; i < t.length; i++) {
      names[i] = "C" + (i + 1);
    }
    return new GlmContrasts(t, names, f, "contrasts", "f-contrasts");
  }

  /** True when the weights are positional. */
  public boolean positional() {
    return columns == null;
  }

  /**
   * The weights in the design's column order (positional contrasts unchanged; their length is
   * checked by {@link GlmModel#prepare}). Refused (exit 2): a contrast column that names no
   * design column (with the nearest name), a column named twice, a name the design holds twice.
   */
  public GlmContrasts matchedTo(GlmDesign design) {
    if (columns == null) {
      return this;
    }
    String[] names = design.names();
    if (Arrays.equals(columns, names)) {
      return this;
    }
    Map<String, Integer> at = new HashMap<>();
    List<String> twice = new ArrayList<>();
    for (int j = 0; j < names.length; j++) {
      if (at.putIfAbsent(names[j], j) != null) {
        twice.add(names[j]);
      }
    }
    int[] to = new int[columns.length];
    Map<String, Integer> seen = new HashMap<>();
    for (int c = 0; c < columns.length; c++) {
      String name = columns[c];
      if (seen.putIfAbsent(name, c) != null) {
        throw new InvalidInputException("Cannot read the contrasts " + source + ": they name"
            + " the column '" + name + "' twice; give each design column at most once");
      }
      Integer j = at.get(name);
      if (j == null) {
        throw new InvalidInputException("Cannot match the contrasts " + source + " to the design "
            + design.source() + ": the contrast column '" + name + "' names no design column"
            + didYouMean(name, names) + "; contrast columns are matched to the design's by name"
            + " (the design's: " + String.join(", ", names) + ")");
      }
      if (twice.contains(name)) {
        throw new InvalidInputException("Cannot match the contrasts " + source + " to the design "
            + design.source() + ": the design has two columns named '" + name + "', so the"
            + " contrast's weight for it could mean either; rename one of them");
      }
      to[c] = j;
    }
    double[][] matched = new double[t.length][names.length];
    for (int r = 0; r < t.length; r++) {
      if (t[r].length != columns.length) {
        throw new InvalidInputException("Cannot read the contrasts " + source + ": contrast "
            + (r + 1) + " (" + tNames[r] + ") has " + t[r].length + " weights but the header"
            + " names " + columns.length + " columns");
      }
      for (int c = 0; c < columns.length; c++) {
        matched[r][to[c]] = t[r][c];
      }
    }
    return new GlmContrasts(matched, tNames, names.clone(), f, source, fSource);
  }

  /** ", did you mean 'x'?" for the design column nearest to {@code name}, or "". */
  static String didYouMean(String name, String[] candidates) {
    String best = null;
    int bestDistance = Integer.MAX_VALUE;
    for (String c : candidates) {
      int d = c.equalsIgnoreCase(name) ? 0
          : distance(name.toLowerCase(Locale.ROOT), c.toLowerCase(Locale.ROOT));
      if (d < bestDistance) {
        bestDistance = d;
        best = c;
      }
    }
    int allowed = Math.max(1, Math.min(3, name.length() / 3));
    return best != null && bestDistance <= allowed ? " (did you mean '" + best + "'?)" : "";
  }

  /** Levenshtein distance. */
  private static int distance(String a, String b) {
    int[] prev = new int[b.length() + 1];
    int[] cur = new int[b.length() + 1];
    for (int j = 0; j <= b.length(); j++) {
      prev[j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      cur[0] = i;
      for (int j = 1; j <= b.length(); j++) {
        int sub = prev[j - 1] + (a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1);
        cur[j] = Math.min(sub, Math.min(prev[j] + 1, cur[j - 1] + 1));
      }
      int[] s = prev;
      prev = cur;
      cur = s;
    }
    return prev[b.length()];
  }
}
