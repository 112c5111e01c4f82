package org.nlspark.core.io.nifti;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystem;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.nlspark.core.InvalidInputException;

/**
 * Turns an {@code --input} naming several images into the ordered list of their files
 * (DESIGN §8): a text file list (one path per line, in sample order; relative paths are
 * relative to the list file; blank lines and lines starting with {@code #} are skipped), a
 * directory (its {@code .nii}/{@code .nii.gz} files, sorted by name), or a glob (the files it
 * matches, sorted by name). Names sort by the unsigned bytes of their UTF-8 form, so the order
 * is the same on every machine and locale.
 *
 * <p>The rules that do not touch a file system ({@link #isGlob}, {@link #isNiftiName}, {@link
 * #isListedInDirectory}, {@link #parseList}, {@link #BYTE_ORDER}) are static so that a Hadoop
 * FileSystem front end applies the same ones; {@link #resolve} is the java.nio one.
 */
public final class ImageInputs {
  private ImageInputs() {}

  /** Orders names by the unsigned bytes of their UTF-8 encoding. */
  public static final Comparator<String> BYTE_ORDER =
      (a, b) -> Arrays.compareUnsigned(
          a.getBytes(StandardCharsets.UTF_8), b.getBytes(StandardCharsets.UTF_8));

  /**
   * Orders names as a person counts: runs of digits by their number (sub-2 before sub-10), the
   * rest by bytes; names equal so (sub-01, sub-1) by {@link #BYTE_ORDER}.
   */
  public static final Comparator<String> NATURAL_ORDER = ImageInputs::compareNatural;

  private static int compareNatural(String a, String b) {
    int i = 0;
    int j = 0;
    while (i < a.length() && j < b.length()) {
      char x = a.charAt(i);
      char y = b.charAt(j);
      if (isDigit(x) && isDigit(y)) {
        int ei = digitsEnd(a, i);
        int ej = digitsEnd(b, j);
        String na = a.substring(i, ei).replaceFirst("^0+(?=.)", "");
        String nb = b.substring(j, ej).replaceFirst("^0+(?=.)", "");
        int c = na.length() != nb.length() ? Integer.compare(na.length(), nb.length())
            : na.compareTo(nb);
        if (c != 0) {
          return c;
        }
        i = ei;
        j = ej;
      } else {
        int ea = textEnd(a, i);
        int eb = textEnd(b, j);
        int c = BYTE_ORDER.compare(a.substring(i, ea), b.substring(j, eb));
        if (c != 0) {
          return c;
        }
        i = ea;
        j = eb;
      }
    }
    int c = Integer.compare(a.length() - i, b.length() - j);
    return c != 0 ? c : BYTE_ORDER.compare(a, b);
  }

  private static boolean isDigit(char c) {
    return c >= '0' && c <= '9';
  }

  private static int digitsEnd(String s, int from) {
    int e = from;
    while (e < s.length() && isDigit(s.charAt(e))) {
      e++;
    }
    return e;
  }

  private static int textEnd(String s, int from) {
    int e = from;
    while (e < s.length() && !isDigit(s.charAt(e))) {
      e++;
    }
    return e;
  }

  /**
   * The files' paths without their common directory (sub-1.nii.gz, or sub-1/anat.nii.gz for a
   * glob over directories), in the given order: how summary.json and messages name samples.
   */
  public static List<String> displayNames(List<String> files) {
    String prefix = files.isEmpty() ? "" : files.get(0);
    for (String f : files) {
      int n = 0;
      while (n < prefix.length() && n < f.length() && prefix.charAt(n) == f.charAt(n)) {
        n++;
      }
      prefix = prefix.substring(0, n);
    }
    int cut = prefix.lastIndexOf('/') + 1;
    List<String> names = new java.util.ArrayList<>();
    for (String f : files) {
      names.add(f.substring(cut));
    }
    return names;
  }

  /**
   * The warning of DESIGN §8 for files taken in the byte order of their names (a directory or
   * a glob) where the numbers in the names order them otherwise (sub-10 before sub-2); null when
   * the two orders agree. The order is kept: scripts depend on it.
   *
   * @param what the option and path as typed ("--input subjects/")
   */
  public static String byteOrderWarning(String what, List<String> files) {
    List<String> names = displayNames(files);
    List<String> natural = new java.util.ArrayList<>(names);
    natural.sort(NATURAL_ORDER);
    int k = 0;
    while (k < names.size() && names.get(k).equals(natural.get(k))) {
      k++;
    }
    if (k == names.size()) {
      return null;
    }
    List<String> shown = names.subList(0, Math.min(names.size(), 6));
    return what + " takes its " + names.size() + " files in the byte order of their names ("
        + String.join(", ", shown) + (shown.size() < names.size() ? ", ..." : "")
        + "), not in the order of the numbers in them (" + natural.get(k) + " before "
        + names.get(k) + "), and design rows, --target values and exchangeability blocks are"
        + " matched to samples in that order; give a list file in the order you mean, or"
        + " zero-padded names (sub-02)";
  }

  /** Whether a path holds glob characters ({@code * ? [ {}), as Hadoop's globStatus reads them. */
  public static boolean isGlob(String path) {
    return path.indexOf('*') >= 0 || path.indexOf('?') >= 0 || path.indexOf('[') >= 0
        || path.indexOf('{') >= 0;
  }

  /** Whether a file name is a NIfTI image: ends with {@code .nii} or {@code .nii.gz}. */
  public static boolean isNiftiName(String fileName) {
    String lower = fileName.toLowerCase(Locale.ROOT);
    return lower.endsWith(".nii") || lower.endsWith(".nii.gz");
  }

  /**
   * Whether a file name is per-vertex surface data: GIFTI ({@code .gii}, a mesh's {@code
   * .surf.gii} excepted), FreeSurfer MGH ({@code .mgh}, {@code .mgz}) or a CIFTI-2 dense file
   * ({@code .dscalar.nii}, {@code .dtseries.nii}: grayordinates).
   */
  public static boolean isSurfaceDataName(String fileName) {
    String lower = fileName.toLowerCase(Locale.ROOT);
    return lower.endsWith(".gii") && !lower.endsWith(".surf.gii") || lower.endsWith(".mgh")
        || lower.endsWith(".mgz") || lower.endsWith(".dscalar.nii")
        || lower.endsWith(".dtseries.nii");
  }

  /**
   * Whether a file in an input directory is one of its samples: a NIfTI or surface data name
   * not starting with {@code .} or {@code _} (hidden files and markers such as {@code
   * _SUCCESS}).
   */
  public static boolean isListedInDirectory(String fileName) {
    return (isNiftiName(fileName) || isSurfaceDataName(fileName)) && !fileName.startsWith(".")
        && !fileName.startsWith("_");
  }

  /**
   * The entries of a list file, in order: each line trimmed; blank lines and {@code #} comments
   * skipped. Entries are returned as written; resolving relative ones is the caller's.
   *
   * @throws InvalidInputException when the list names no file
   */
  public static List<String> parseList(String content, String listName) {
    List<String> entries = new ArrayList<>();
    for (String line : content.split("\r?\n", -1)) {
      String entry = line.strip();
      if (!entry.isEmpty() && !entry.startsWith("#")) {
        entries.add(entry);
      }
    }
    if (entries.isEmpty()) {
      throw new InvalidInputException(
          "Cannot read the input list " + listName + ": it names no file; write one image path"
              + " per line");
    }
    return entries;
  }

  /**
   * The image files an input names, in sample order.
   *
   * @param input a NIfTI file (returned alone), a list file, a directory or a glob
   * @throws InvalidInputException when it does not exist, matches nothing, or a listed file is
   *     missing
   */
  public static List<Path> resolve(Path input) {
    String text = input.toString();
    if (isGlob(text)) {
      return glob(input);
    }
    if (Files.isDirectory(input)) {
      List<Path> files;
      try (Stream<Path> s = Files.list(input)) {
        files = s.filter(p -> Files.isRegularFile(p)
                && isListedInDirectory(p.getFileName().toString()))
            .sorted(Comparator.comparing(p -> p.getFileName().toString(), BYTE_ORDER))
            .collect(Collectors.toList());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list " + text + ": " + e.getMessage(), e);
      }
      if (files.isEmpty()) {
        throw new InvalidInputException(
            "Cannot read the input directory " + text + ": it holds no .nii or .nii.gz file");
      }
      return files;
    }
    if (!Files.exists(input)) {
      throw new InvalidInputException("Cannot read the input " + text + ": it does not exist");
    }
    if (isNiftiName(input.getFileName().toString())) {
      return List.of(input);
    }
    return list(input);
  }

  private static List<Path> list(Path listFile) {
    String content;
    try {
      content = Files.readString(listFile, StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new InvalidInputException(
          "Cannot read the input list " + listFile + ": " + e.getMessage()
              + " (a list is a UTF-8 text file of image paths)", e);
    }
    Path parent = listFile.toAbsolutePath().getParent();
    List<Path> files = new ArrayList<>();
    for (String entry : parseList(content, listFile.toString())) {
      Path p = parent.resolve(entry);
      if (!Files.isRegularFile(p)) {
        throw new InvalidInputException(
            "Cannot read the input list " + listFile + ": it names " + entry + ", but " + p
                + (Files.exists(p) ? " is not a file" : " does not exist")
                + " (relative paths are relative to the list file)");
      }
      files.add(p);
    }
    return files;
  }

  private static List<Path> glob(Path pattern) {
    // Walk from the longest prefix without glob characters, as deep as the pattern reaches.
    Path root = pattern.getRoot();
    Path base = root != null ? root : Path.of("");
    int i = 0;
    int n = pattern.getNameCount();
    while (i < n - 1 && !isGlob(pattern.getName(i).toString())) {
      base = base.resolve(pattern.getName(i).toString());
      i++;
    }
    int depth = n - i;
    FileSystem fs = pattern.getFileSystem();
    PathMatcher matcher = fs.getPathMatcher("glob:" + pattern.subpath(i, n));
    boolean relative = base.toString().isEmpty();
    Path start = relative ? Path.of(".") : base;
    List<Path> files;
    if (!Files.isDirectory(start)) {
      files = List.of();
    } else {
      try (Stream<Path> s = Files.walk(start, depth)) {
        files = s.filter(p -> start.relativize(p).getNameCount() == depth
                && matcher.matches(start.relativize(p))
                && Files.isRegularFile(p))
            .map(p -> relative ? start.relativize(p) : p)
            .sorted(Comparator.comparing(Path::toString, BYTE_ORDER))
            .collect(Collectors.toList());
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot list " + start + ": " + e.getMessage(), e);
      }
    }
    if (files.isEmpty()) {
      throw new InvalidInputException(
          "Cannot read the input " + pattern + ": the glob matches no file");
    }
    return files;
  }
}
