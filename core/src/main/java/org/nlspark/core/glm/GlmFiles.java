package org.nlspark.core.glm;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import org.nlspark.core.InvalidInputException;

/**
 * Readers of the model's text files, in either of two forms:
 * <ul>
 *   <li>CSV or TSV with a header row (tab-separated when the header holds a tab). Designs: one
 *       row per sample, the header naming the columns. t contrasts: one row per contrast, one
 *       weight per design column; a first column headed {@code name} holds contrast names.
 *       F contrasts: one row per F-test, either 0/1 flags over the t contrasts (as FSL's
 *       design.fts) or the 1-based numbers of the t contrasts it joins.
 *   <li>FSL VEST ({@code design.mat}, {@code design.con}, {@code design.fts}, {@code design.grp}):
 *       {@code /NumWaves}, {@code /NumPoints} or {@code /NumContrasts}, optional
 *       {@code /ContrastName<i>} lines, then {@code /Matrix} and whitespace-separated rows.
 * </ul>
 * Exchangeability blocks: one row per sample of one integer id, or one per level (PALM's
 * multi-level blocks), comma-, tab- or space-separated (an optional header line), or VEST.
 */
public final class GlmFiles {
  private GlmFiles() {}

  /** Reads a design matrix. */
  public static GlmDesign readDesign(Path file) {
    return readDesign(lines(file, "design"), file.toString());
  }

  /** Reads a design matrix from the lines of a file ({@code source} names it in messages). */
  public static GlmDesign readDesign(List<String> lines, String source) {
    Table t = read(lines, source, "design");
    return new GlmDesign(t.rows, t.names, source);
  }

  /**
   * Reads t contrasts and, when {@code fFile} is not null, F contrasts over them.
   */
  public static GlmContrasts readContrasts(Path tFile, Path fFile) {
    return readContrasts(lines(tFile, "contrasts"), tFile.toString(),
        fFile == null ? null : lines(fFile, "F contrasts"),
        fFile == null ? null : fFile.toString());
  }

  /**
   * As {@link #readContrasts(Path, Path)}, from the files' lines ({@code fLines} may be null).
   * A CSV/TSV contrast keeps its header's column names (matched to the design by name, {@link
   * GlmContrasts#matchedTo}); a VEST one is positional.
   */
  public static GlmContrasts readContrasts(List<String> tLines, String tFile, List<String> fLines,
      String fFile) {
    Table t = read(tLines, tFile, "contrasts");
    String[] names = t.rowNames;
    if (t.rows.length == 0) {
      throw new InvalidInputException("Cannot read the contrasts " + tFile + ": the file holds no"
          + " contrast; give one row per t contrast");
    }
    int[][] f = fLines == null ? new int[0][] : readF(fLines, fFile, names);
    return new GlmContrasts(t.rows, names, t.vest ? null : t.names, f, tFile,
        fLines == null ? "f-contrasts" : fFile);
  }

  /**
   * F contrasts over the t contrasts {@code tNames}: a VEST {@code design.fts} holds rows of 0/1
   * flags, one per t contrast (its /NumWaves must be their number), as randomise reads it. A
   * CSV/TSV whose header names t contrasts holds 0/1 flags over the named ones (any order, a t
   * contrast left out is not joined). A header naming no t contrast keeps the older positional
   * forms (flags over all t contrasts in order, or t contrast numbers), refused when a row could
   * be read both ways with different meanings.
   */
  private static int[][] readF(List<String> fLines, String fFile, String[] tNames) {
    Table ft = read(fLines, fFile, "F contrasts");
    int tCount = tNames.length;
    if (ft.vest && ft.names.length != tCount) {
      throw new InvalidInputException("Cannot read the F contrasts " + fFile + ": its rows have "
          + ft.names.length + " values (/NumWaves) but there are " + tCount + " t contrasts; a"
          + " VEST F contrast file holds one 0/1 flag per t contrast");
    }
    int[] byName = ft.vest ? null : tContrastsNamed(ft.names, tNames, fFile);
    int[][] f = new int[ft.rows.length][];
    for (int i = 0; i < ft.rows.length; i++) {
      f[i] = byName != null ? namedFlags(ft.rows[i], byName, tNames, fFile, ft.lines[i])
          : ft.vest ? flags(ft.rows[i], fFile, ft.lines[i])
          : fRow(ft.rows[i], tCount, fFile, ft.lines[i]);
    }
    return f;
  }

  /**
   * The t contrast each header column of a CSV F file names, or null when it names none (the
   * positional forms); refused when some columns name t contrasts and others do not.
   */
  private static int[] tContrastsNamed(String[] header, String[] tNames, String fFile) {
    int[] at = new int[header.length];
    int named = 0;
    List<String> unknown = new ArrayList<>();
    for (int c = 0; c < header.length; c++) {
      at[c] = List.of(tNames).indexOf(header[c]);
      if (at[c] >= 0) {
        named++;
        for (int d = 0; d < c; d++) {
          if (at[d] == at[c]) {
            throw new InvalidInputException("Cannot read the F contrasts " + fFile + ": the"
                + " header names the t contrast '" + header[c] + "' twice");
          }
        }
      } else {
        unknown.add(header[c]);
      }
    }
    if (named == 0) {
      return null;
    }
    if (!unknown.isEmpty()) {
      throw new InvalidInputException("Cannot read the F contrasts " + fFile + ": the header"
          + " column '" + unknown.get(0) + "' names no t contrast"
          + GlmContrasts.didYouMean(unknown.get(0), tNames) + "; the header names the t"
          + " contrasts each F contrast joins (the t contrasts: " + String.join(", ", tNames)
          + ")");
    }
    return at;
  }

  private static int[] namedFlags(double[] row, int[] byName, String[] tNames, String file,
      int line) {
    List<Integer> out = new ArrayList<>();
    for (int c = 0; c < row.length; c++) {
      if (row[c] != 0.0 && row[c] != 1.0) {
        throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
            + " holds " + row[c] + " for the t contrast '" + tNames[byName[c]] + "'; give 1 to"
            + " join it, 0 to leave it out");
      }
      if (row[c] == 1.0) {
        out.add(byName[c]);
      }
    }
    if (out.isEmpty()) {
      throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
          + " selects no t contrast");
    }
    return out.stream().sorted().mapToInt(Integer::intValue).toArray();
  }

  private static int[] flags(double[] row, String file, int line) {
    List<Integer> out = new ArrayList<>();
    for (int i = 0; i < row.length; i++) {
      if (row[i] != 0.0 && row[i] != 1.0) {
        throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
            + " holds " + row[i] + "; a VEST F contrast row holds one 0/1 flag per t contrast");
      }
      if (row[i] == 1.0) {
        out.add(i);
      }
    }
    if (out.isEmpty()) {
      throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
          + " selects no t contrast");
    }
    return out.stream().mapToInt(Integer::intValue).toArray();
  }

  /** Reads exchangeability blocks: one row of integer ids per sample. */
  public static int[][] readBlocks(Path file) {
    return readBlocks(lines(file, "exchangeability blocks"), file.toString());
  }

  /**
   * Reads exchangeability blocks from the lines of a file: one row per sample, one block id
   * (one column), or one id per level (PALM's multi-level {@code -eb} file: the columns split by
   * commas, tabs or spaces, every row the same length); an optional header line, or VEST.
   */
  public static int[][] readBlocks(List<String> lines, String file) {
    lines = withoutBom(lines);
    List<int[]> rows = new ArrayList<>();
    List<Integer> lineOf = new ArrayList<>();
    if (isVest(lines)) {
      Table t = readVest(lines, file, "exchangeability blocks");
      for (int i = 0; i < t.rows.length; i++) {
        int[] row = new int[t.rows[i].length];
        for (int j = 0; j < row.length; j++) {
          row[j] = blockId(Double.toString(t.rows[i][j]), t.rows[i][j], file, t.lines[i]);
        }
        rows.add(row);
        lineOf.add(t.lines[i]);
      }
    } else {
      boolean first = true;
      for (int i = 0; i < lines.size(); i++) {
        String s = lines.get(i).trim();
        if (s.isEmpty()) {
          continue;
        }
        String[] cells = s.split("\\s*[,\\t ]\\s*");
        Double[] values = new Double[cells.length];
        boolean numbers = true;
        for (int j = 0; j < cells.length; j++) {
          values[j] = number(cells[j]);
          numbers &= values[j] != null;
        }
        if (!numbers && first) {
          first = false; // a header line
          continue;
        }
        first = false;
        int[] row = new int[cells.length];
        for (int j = 0; j < cells.length; j++) {
          row[j] = blockId(cells[j], values[j], file, i + 1);
        }
        rows.add(row);
        lineOf.add(i + 1);
      }
    }
    for (int r = 1; r < rows.size(); r++) {
      if (rows.get(r).length != rows.get(0).length) {
        throw new InvalidInputException("Cannot read the exchangeability blocks " + file
            + ": line " + lineOf.get(r) + " has " + rows.get(r).length + " values but line "
            + lineOf.get(0) + " has " + rows.get(0).length + "; give every sample one id per"
            + " level");
      }
    }
    return rows.toArray(new int[0][]);
  }

  private static int blockId(String text, Double v, String file, int line) {
    if (v == null || v != Math.rint(v) || Math.abs(v) > Integer.MAX_VALUE) {
      throw new InvalidInputException("Cannot read the exchangeability blocks " + file + ": line "
          + line + " is not an integer block id: '" + text + "'");
    }
    return (int) (double) v;
  }

  /** A row of a CSV F file whose header names no t contrast: flags over all, or numbers. */
  private static int[] fRow(double[] row, int tCount, String file, int line) {
    boolean flags = row.length == tCount;
    boolean any = false;
    for (double x : row) {
      flags &= x == 0.0 || x == 1.0;
      any |= x == 1.0;
    }
    int[] asFlags = null;
    if (flags && any) {
      List<Integer> out = new ArrayList<>();
      for (int i = 0; i < row.length; i++) {
        if (row[i] == 1.0) {
          out.add(i);
        }
      }
      asFlags = out.stream().mapToInt(Integer::intValue).toArray();
    }
    int[] asNumbers = new int[row.length];
    java.util.BitSet seen = new java.util.BitSet();
    for (int i = 0; i < row.length && asNumbers != null; i++) {
      double x = row[i];
      if (x != Math.rint(x) || x < 1 || x > tCount || seen.get((int) x)) {
        asNumbers = null;
      } else {
        seen.set((int) x);
        asNumbers[i] = (int) x - 1;
      }
    }
    if (asNumbers != null) {
      Arrays.sort(asNumbers);
    }
    if (asFlags != null && asNumbers != null && !Arrays.equals(asFlags, asNumbers)) {
      throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
          + " reads both as 0/1 flags over the " + tCount + " t contrasts and as t contrast"
          + " numbers, with different meanings; name the t contrasts in the header and give 0/1"
          + " flags under them");
    }
    if (asFlags != null) {
      return asFlags;
    }
    if (asNumbers != null) {
      return asNumbers;
    }
    if (flags) {
      throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
          + " selects no t contrast");
    }
    throw new InvalidInputException("Cannot read the F contrasts " + file + ": line " + line
        + " is neither a 0/1 flag row of " + tCount + " values nor distinct t contrast numbers"
        + " in [1, " + tCount + "]; name the t contrasts in the header and give 0/1 flags under"
        + " them");
  }

  /** Rows with their source line numbers; names of the columns and (contrasts) of the rows. */
  private static final class Table {
    double[][] rows;
    int[] lines;
    String[] names;
    String[] rowNames;
    boolean vest; // positional columns (EV1..), as randomise reads them
  }

  private static Table read(List<String> lines, String file, String what) {
    lines = withoutBom(lines);
    if (file != null && file.toLowerCase(Locale.ROOT).endsWith(".npy")
        || !lines.isEmpty() && lines.get(0).startsWith("\uFFFDNUMPY")) {
      throw new InvalidInputException("Cannot read the " + what + " " + file + ": it is a numpy"
          + " .npy array, and the " + what + " is a text table (CSV or TSV with a header row, or"
          + " FSL's VEST format); write it with numpy.savetxt(name, array, delimiter=',',"
          + " header=..., comments='')");
    }
    return isVest(lines) ? readVest(lines, file, what) : readDelimited(lines, file, what);
  }

  private static List<String> lines(Path file, String what) {
    try {
      return Files.readAllLines(file, StandardCharsets.UTF_8);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException("Cannot read the " + what + " " + file + ": no such file");
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read the " + what + " " + file + ": " + e, e);
    }
  }

  /** Without the byte order mark some editors put first, which would join the first name. */
  private static List<String> withoutBom(List<String> lines) {
    if (lines.isEmpty() || !lines.get(0).startsWith("\uFEFF")) {
      return lines;
    }
    List<String> out = new ArrayList<>(lines);
    out.set(0, out.get(0).substring(1));
    return out;
  }

  private static boolean isVest(List<String> lines) {
    for (String l : lines) {
      String s = l.trim();
      if (!s.isEmpty()) {
        return s.startsWith("/");
      }
    }
    return false;
  }

  private static Table readVest(List<String> lines, String file, String what) {
    int waves = -1;
    int points = -1;
    Map<Integer, String> contrastNames = new TreeMap<>(); // /ContrastName<i> by its i
    boolean inMatrix = false;
    List<double[]> rows = new ArrayList<>();
    List<Integer> at = new ArrayList<>();
    for (int i = 0; i < lines.size(); i++) {
      String s = lines.get(i).trim();
      if (s.isEmpty()) {
        continue;
      }
      if (!inMatrix) {
        String[] kv = s.split("\\s+", 2);
        String key = kv[0];
        String value = kv.length > 1 ? kv[1].trim() : "";
        if (key.equals("/Matrix")) {
          inMatrix = true;
        } else if (key.equals("/NumWaves")) {
          waves = vestCount(value, key, file, what, i + 1);
        } else if (key.equals("/NumPoints") || key.equals("/NumContrasts")) {
          points = vestCount(value, key, file, what, i + 1);
        } else if (key.startsWith("/ContrastName")) {
          int index = vestCount(key.substring("/ContrastName".length()), key, file, what, i + 1);
          if (index < 1 || contrastNames.put(index, value) != null) {
            throw new InvalidInputException("Cannot read the " + what + " " + file + ": line "
                + (i + 1) + " (" + key + ") " + (index < 1 ? "numbers no contrast"
                : "names contrast " + index + " a second time"));
          }
        } else if (!key.startsWith("/")) {
          throw new InvalidInputException("Cannot read the " + what + " " + file + ": line "
              + (i + 1) + " comes before /Matrix but is not a /Key line: '" + s + "'");
        }
        continue;
      }
      String[] cells = s.split("\\s+");
      rows.add(parseRow(cells, file, what, i + 1, null));
      at.add(i + 1);
    }
    if (!inMatrix) {
      throw new InvalidInputException("Cannot read the " + what + " " + file + ": the VEST file"
          + " has no /Matrix line");
    }
    Table t = new Table();
    t.vest = true;
    t.rows = rows.toArray(new double[0][]);
    t.lines = at.stream().mapToInt(Integer::intValue).toArray();
    for (int r = 0; r < t.rows.length; r++) {
      if (waves >= 0 && t.rows[r].length != waves) {
        throw new InvalidInputException("Cannot read the " + what + " " + file + ": line "
            + t.lines[r] + " has " + t.rows[r].length + " values but /NumWaves is " + waves);
      }
    }
    if (points >= 0 && t.rows.length != points) {
      throw new InvalidInputException("Cannot read the " + what + " " + file + ": /Matrix has "
          + t.rows.length + " rows but the header says " + points);
    }
    int k = waves >= 0 ? waves : t.rows.length == 0 ? 0 : t.rows[0].length;
    t.names = new String[k];
    for (int j = 0; j < k; j++) {
      t.names[j] = "EV" + (j + 1);
    }
    t.rowNames = new String[t.rows.length];
    for (int r = 0; r < t.rows.length; r++) {
      String name = contrastNames.get(r + 1);
      t.rowNames[r] = name != null && !name.isEmpty() ? name : "C" + (r + 1);
    }
    return t;
  }

  private static int vestCount(String value, String key, String file, String what, int line) {
    try {
      int v = Integer.parseInt(value.trim());
      if (v >= 0) {
        return v;
      }
    } catch (NumberFormatException e) {
      // reported below
    }
    throw new InvalidInputException("Cannot read the " + what + " " + file + ": " + key
        + " on line " + line + " must be a count, but was: '" + value + "'");
  }

  private static Table readDelimited(List<String> lines, String file, String what) {
    int h = 0;
    while (h < lines.size() && lines.get(h).trim().isEmpty()) {
      h++;
    }
    if (h == lines.size()) {
      throw new InvalidInputException("Cannot read the " + what + " " + file + ": the file is"
          + " empty; give a header row and one row per line");
    }
    String header = lines.get(h);
    String sep = header.contains("\t") ? "\t" : ",";
    String[] names = split(header, sep);
    for (String name : names) {
      if (number(name) != null) {
        throw new InvalidInputException("Cannot read the " + what + " " + file + ": its first"
            + " row '" + header.trim() + "' is not a header (it holds the number " + name
            + "); add a header row naming the columns");
      }
    }
    boolean named = names.length > 0 && names[0].toLowerCase(Locale.ROOT).equals("name");
    List<double[]> rows = new ArrayList<>();
    List<String> rowNames = new ArrayList<>();
    List<Integer> at = new ArrayList<>();
    for (int i = h + 1; i < lines.size(); i++) {
      if (lines.get(i).trim().isEmpty()) {
        continue;
      }
      String[] cells = split(lines.get(i), sep);
      if (cells.length != names.length) {
        throw new InvalidInputException("Cannot read the " + what + " " + file + ": line "
            + (i + 1) + " has " + cells.length + " values but the header has " + names.length);
      }
      if (named) {
        rowNames.add(cells[0]);
        String[] rest = new String[cells.length - 1];
        System.arraycopy(cells, 1, rest, 0, rest.length);
        cells = rest;
      } else {
        rowNames.add("C" + (rowNames.size() + 1));
      }
      rows.add(parseRow(cells, file, what, i + 1, named ? drop(names) : names));
      at.add(i + 1);
    }
    Table t = new Table();
    t.rows = rows.toArray(new double[0][]);
    t.lines = at.stream().mapToInt(Integer::intValue).toArray();
    t.names = named ? drop(names) : names;
    t.rowNames = rowNames.toArray(new String[0]);
    return t;
  }

  private static String[] drop(String[] a) {
    String[] out = new String[a.length - 1];
    System.arraycopy(a, 1, out, 0, out.length);
    return out;
  }

  private static String[] split(String line, String sep) {
    String[] cells = line.trim().split(sep, -1);
    for (int i = 0; i < cells.length; i++) {
      cells[i] = cells[i].trim();
    }
    return cells;
  }

  private static double[] parseRow(String[] cells, String file, String what, int line,
      String[] names) {
    double[] row = new double[cells.length];
    for (int j = 0; j < cells.length; j++) {
      Double v = number(cells[j]);
      if (v == null) {
        throw new InvalidInputException("Cannot read the " + what + " " + file + ": line " + line
            + ", column " + (j + 1) + (names != null ? " (" + names[j] + ")" : "")
            + " is not a number: '" + cells[j] + "'");
      }
      if (Math.abs(v) > MAX_MAGNITUDE && !Double.isInfinite(v)) {
        throw new InvalidInputException("Cannot read the " + what + " " + file + ": line " + line
            + ", column " + (j + 1) + (names != null ? " (" + names[j] + ")" : "") + " holds "
            + cells[j] + ", beyond 1e150 in magnitude (the model multiplies values in pairs, and"
            + " such products overflow); rescale the column");
      }
      row[j] = v;
    }
    return row;
  }

  /** A number, NaN and Inf included (the model refuses them with its own message), or null. */
  /**
   * The largest magnitude a design or contrast value may have: the model multiplies values in
   * pairs (X'X, c'(X'X)^-1 c), and 1e150 squared stays far from Double.MAX_VALUE (1.8e308).
   */
  static final double MAX_MAGNITUDE = 1e150;

  private static Double number(String s) {
    String t = s.trim();
    if (t.isEmpty()) {
      return null;
    }
    String lower = t.toLowerCase(Locale.ROOT);
    if (lower.equals("nan") || lower.equals("na")) {
      return Double.NaN;
    }
    if (lower.equals("inf") || lower.equals("+inf") || lower.equals("infinity")) {
      return Double.POSITIVE_INFINITY;
    }
    if (lower.equals("-inf") || lower.equals("-infinity")) {
      return Double.NEGATIVE_INFINITY;
    }
    if (!Character.isDigit(t.charAt(t.length() - 1)) && t.charAt(t.length() - 1) != '.') {
      return null; // Double.parseDouble accepts "1d", "2f": not numbers in a text table
    }
    try {
      return Double.parseDouble(t);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
