package org.nlspark.spark.io;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.ImageInputs;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;

/**
 * NIfTI inputs and outputs on any Hadoop file system: the ordering and list rules of core's
 * {@link ImageInputs} applied with {@code globStatus} and {@code listStatus}, and core's reader
 * and writer handed Hadoop streams. Nothing here parses NIfTI.
 */
public final class HadoopNiftiFiles {
  /** A list file larger than this is not a list of paths (64 MiB holds a million long paths). */
  static final long MAX_LIST_BYTES = 64L << 20;

  private HadoopNiftiFiles() {}

  /**
   * The image files {@code uri} names, in sample order (DESIGN §8): a NIfTI file alone; a
   * directory's {@code .nii}/{@code .nii.gz} files and a glob's matches, sorted by the bytes of
   * their names; a list file's entries in its order, relative ones against its directory.
   *
   * @param flag the option that named it, for messages ("--input")
   * @throws InvalidInputException when it does not exist, matches nothing, or lists a missing
   *     file
   */
  public static List<String> resolveInputs(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    Path path = UserPaths.toPath(uri, flag);
    refuseAnalyze(path.getName(), what, null);
    try {
      FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
      // an existing path is taken as it is, brackets and all ("run[1]/" is a directory name)
      if (ImageInputs.isGlob(uri) && !exists(fs, path)) {
        FileStatus[] matches = fs.globStatus(path);
        List<String> files = matches == null ? List.of() : sortedFiles(matches, false, what);
        if (files.isEmpty()) {
          throw new InvalidInputException("Cannot read " + what + ": the glob matches no file");
        }
        return files;
      }
      checkLocal(fs.makeQualified(path), what, true);
      FileStatus status;
      try {
        status = fs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        Path q = fs.makeQualified(path);
        InvalidInputException inTheWay = UserPaths.isLocal(q)
            ? UserPaths.missing(what, UserPaths.localFile(q)) : null;
        throw inTheWay != null && inTheWay.getMessage().contains("not a directory") ? inTheWay
            : new InvalidInputException("Cannot read " + what + ": it does not exist");
      }
      if (status.isDirectory()) {
        List<String> files = UserPaths.isLocal(status.getPath())
            ? localDirectory(status.getPath(), what)
            : sortedFiles(fs.listStatus(path), true, what);
        if (files.isEmpty()) {
          throw new InvalidInputException(
              "Cannot read the input directory " + what + ": it holds no .nii or .nii.gz file"
                  + " (nor .gii, .mgh or .mgz surface data)");
        }
        return files;
      }
      if (ImageInputs.isNiftiName(path.getName())
          || ImageInputs.isSurfaceDataName(path.getName())) {
        return List.of(status.getPath().toString());
      }
      return listed(fs, status, what);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /**
   * Whether {@link #resolveInputs} orders {@code uri}'s files by the bytes of their names: a
   * glob or a directory (a list file keeps its own order; one image has none to choose).
   */
  public static boolean sortsByName(Configuration conf, String uri, String flag) {
    Path path = UserPaths.toPath(uri, flag);
    try {
      FileSystem fs = UserPaths.fileSystem(path, conf, flag, uri);
      if (ImageInputs.isGlob(uri) && !exists(fs, path)) {
        return true;
      }
      return fs.getFileStatus(path).isDirectory();
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  private static boolean exists(FileSystem fs, Path path) {
    try {
      return fs.exists(path);
    } catch (IOException | RuntimeException e) {
      return false;
    }
  }

  /**
   * On the local file system, refuses before anything is opened what would block or mislead:
   * a FIFO, device or socket (an open would wait for a writer for ever), a symlink loop, a
   * dangling link; {@code directoryAllowed} says whether a directory is a valid answer. A
   * missing file passes (the caller names what is missing). Other file systems pass.
   */
  public static void checkLocal(Path qualified, String what, boolean directoryAllowed) {
    if (!UserPaths.isLocal(qualified)) {
      return;
    }
    java.nio.file.Path file = UserPaths.localFile(qualified);
    java.nio.file.attribute.BasicFileAttributes a;
    try {
      a = java.nio.file.Files.readAttributes(file,
          java.nio.file.attribute.BasicFileAttributes.class);
    } catch (java.nio.file.NoSuchFileException e) {
      if (java.nio.file.Files.isSymbolicLink(file)) {
        throw new InvalidInputException("Cannot read " + what + ": it is a symbolic link to a"
            + " file that does not exist; fix the link or the path");
      }
      return;
    } catch (IOException e) {
      throw UserPaths.environment(e, "Cannot read " + what + ": ");
    }
    if (a.isDirectory()) {
      if (!directoryAllowed) {
        throw new InvalidInputException("Cannot read " + what + ": it is a directory, not a"
            + " file");
      }
      return;
    }
    if (!a.isRegularFile()) {
      throw new InvalidInputException("Cannot read " + what + ": it is not a regular file (a"
          + " FIFO, device or socket, which nlspark does not read from); save it to a file"
          + " first");
    }
  }

  /**
   * A local directory's images, every entry seen (Hadoop's listing drops the entries it cannot
   * stat, such as a symlink loop, which would silently lose a subject): each {@code .nii} or
   * {@code .nii.gz} entry must be a regular file or a link to one; sub-directories are skipped.
   */
  private static List<String> localDirectory(Path dir, String what) throws IOException {
    List<String> files = new ArrayList<>();
    java.nio.file.Path local = UserPaths.localFile(dir);
    try (java.nio.file.DirectoryStream<java.nio.file.Path> entries =
        java.nio.file.Files.newDirectoryStream(local)) {
      for (java.nio.file.Path e : entries) {
        String name = e.getFileName().toString();
        if (!ImageInputs.isListedInDirectory(name)) {
          continue;
        }
        Path child = new Path(dir.toUri().getScheme(), dir.toUri().getAuthority(),
            e.toAbsolutePath().toString());
        checkLocal(child, what + " (its entry " + name + ")", true);
        if (java.nio.file.Files.isDirectory(e)) {
          continue;
        }
        files.add(child.toString());
      }
    }
    files.sort(Comparator.comparing((String p) -> new Path(p).getName(), ImageInputs.BYTE_ORDER));
    return files;
  }

  /** Analyze pairs (.hdr/.img) are not NIfTI-1 single files; say so instead of misreading. */
  private static void refuseAnalyze(String name, String what, String entry) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    if (lower.endsWith(".hdr") || lower.endsWith(".img") || lower.endsWith(".img.gz")
        || lower.endsWith(".hdr.gz")) {
      throw new InvalidInputException("Cannot read " + what + ": "
          + (entry == null ? "" : "it names " + entry + ", ")
          + ".hdr/.img pairs (Analyze or two-file NIfTI) are not supported; convert them to"
          + " single .nii or .nii.gz files (e.g. nibabel: nib.save(nib.load(f), f[:-4] +"
          + " '.nii.gz'))");
    }
  }

  private static List<String> sortedFiles(FileStatus[] statuses, boolean directoryListing,
      String what) {
    List<String> files = new ArrayList<>();
    for (FileStatus s : statuses) {
      String name = s.getPath().getName();
      if (s.isDirectory() || (directoryListing && !ImageInputs.isListedInDirectory(name))) {
        continue;
      }
      checkLocal(s.getPath(), what + " (its match " + name + ")", false); // a FIFO is refused
      files.add(s.getPath().toString());
    }
    files.sort(directoryListing
        ? Comparator.comparing((String p) -> new Path(p).getName(), ImageInputs.BYTE_ORDER)
        : ImageInputs.BYTE_ORDER);
    return files;
  }

  private static List<String> listed(FileSystem fs, FileStatus list, String what)
      throws IOException {
    if (list.getLen() > MAX_LIST_BYTES) {
      throw new InvalidInputException("Cannot read the input list " + what + ": it has "
          + list.getLen() + " bytes, more than the " + MAX_LIST_BYTES + " a list of paths may"
          + " have; is it an image without a .nii/.nii.gz name?");
    }
    checkLocal(list.getPath(), "the input list " + what, false);
    String content;
    try (InputStream in = fs.open(list.getPath())) {
      content = listText(in.readAllBytes(), list.getPath().getName(), what);
    }
    if (content.startsWith("\uFEFF")) {
      content = content.substring(1); // a byte-order mark some editors write
    }
    Path parent = list.getPath().getParent();
    List<String> files = new ArrayList<>();
    for (String entry : ImageInputs.parseList(content, what)) {
      Path resolved = entryPath(parent, entry, what);
      refuseAnalyze(resolved.getName(), "the input list " + what, entry);
      FileSystem entryFs = NpyInputs.withoutChecksums(resolved.getFileSystem(fs.getConf()));
      checkLocal(entryFs.makeQualified(resolved), "the input list " + what + " (its entry "
          + entry + ")", false);
      FileStatus status;
      try {
        status = entryFs.getFileStatus(resolved);
      } catch (FileNotFoundException e) {
        throw new InvalidInputException("Cannot read the input list " + what + ": it names "
            + entry + ", but " + resolved + " does not exist (relative paths are relative to"
            + " the list file)");
      }
      if (!status.isFile()) {
        throw new InvalidInputException("Cannot read the input list " + what + ": it names "
            + entry + ", but " + resolved + " is not a file");
      }
      files.add(status.getPath().toString());
    }
    return files;
  }

  /**
   * A list file's bytes as text, or exit 2 naming what the file is when it is not text (a NUL
   * byte, gzip, bytes that are not UTF-8) or is a format nlspark does not read: its bytes are
   * never printed.
   */
  static String listText(byte[] bytes, String name, String what) {
    String lower = name.toLowerCase(java.util.Locale.ROOT);
    String head = new String(bytes, 0, Math.min(bytes.length, 4096), StandardCharsets.ISO_8859_1);
    if (lower.endsWith(".gii.gz")) {
      throw new InvalidInputException("Cannot read " + what + ": it is a gzip-compressed GIFTI"
          + " file; decompress it (gunzip " + name + "): GIFTI compresses its data inside the"
          + " file");
    }
    if (head.contains("<GIFTI")) {
      throw new InvalidInputException("Cannot read " + what + ": it is a GIFTI file without a"
          + " .gii name; name it .func.gii or .shape.gii to read it as surface data");
    }
    if (bytes.length >= 2 && (bytes[0] & 0xff) == 0x1f && (bytes[1] & 0xff) == 0x8b) {
      throw new InvalidInputException("Cannot read " + what + ": it is gzip-compressed, not a"
          + " text list of image paths; a compressed image must be named .nii.gz, and a list"
          + " file must be plain text");
    }
    boolean text = true;
    for (byte b : bytes) {
      if (b == 0) {
        text = false;
        break;
      }
    }
    if (text) {
      try {
        return StandardCharsets.UTF_8.newDecoder()
            .onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
            .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
            .decode(java.nio.ByteBuffer.wrap(bytes)).toString();
      } catch (java.nio.charset.CharacterCodingException e) {
        // not UTF-8: refused below as binary
      }
    }
    throw new InvalidInputException("Cannot read " + what + ": it is a binary file, not a NIfTI"
        + " image (.nii, .nii.gz) nor a text list of image paths (one per line, UTF-8)");
  }

  /**
   * A list entry as a path: with a scheme, as it is; absolute, on the list's file system;
   * relative, against the list's directory. A colon is a character of the name, never a
   * scheme ({@code scan:1.nii.gz}).
   */
  private static Path entryPath(Path parent, String entry, String what) {
    try {
      if (entry.matches("^[A-Za-z][A-Za-z0-9+.-]*:/.*")) {
        return new Path(entry);
      }
      String path = entry.startsWith("/") ? entry : parent.toUri().getPath() + "/" + entry;
      return new Path(parent.toUri().getScheme(), parent.toUri().getAuthority(), path);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("Cannot read the input list " + what + ": its entry "
          + entry + " is not a valid path (" + e.getMessage() + ")");
    }
  }

  /**
   * Opens a NIfTI image for reading volume by volume; the reader owns the stream (close it).
   *
   * @throws InvalidInputException when the file is missing, a directory, or not valid NIfTI
   */
  public static NiftiReader open(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    Path path = UserPaths.toPath(uri, flag);
    try {
      FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
      FileStatus status = imageStatus(fs, path, what, "");
      FSDataInputStream in = fs.open(path);
      return NiftiReader.open(in, status.getLen(), what);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /** Reads a mask ({@code --mask}): a 3-D NIfTI, non-zero = analysed. */
  public static NiftiMask readMask(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    Path path = UserPaths.toPath(uri, flag);
    refuseAnalyze(path.getName(), what, null);
    try {
      FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
      FileStatus status = imageStatus(fs, path, what, "; name a .nii or .nii.gz file");
      return NiftiMask.read(fs.open(path), status.getLen(), what);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /**
   * The status of a NIfTI file about to be opened, after the checks every image input gets: it
   * exists (else, a dangling link or loop named as such, or the one "no such file"), it is not a
   * directory ({@code advice} ends that message), and a local file is a regular one.
   */
  static FileStatus imageStatus(FileSystem fs, Path path, String what, String advice)
      throws IOException {
    FileStatus status;
    try {
      status = fs.getFileStatus(path);
    } catch (FileNotFoundException e) {
      checkLocal(fs.makeQualified(path), what, false); // a dangling link or a loop
      Path q = fs.makeQualified(path);
      throw UserPaths.isLocal(q) ? UserPaths.missing(what, UserPaths.localFile(q))
          : UserPaths.noSuchFile(what);
    }
    if (status.isDirectory()) {
      throw new InvalidInputException(
          "Cannot read " + what + ": it is a directory, not a NIfTI file" + advice);
    }
    checkLocal(fs.makeQualified(path), what, false);
    return status;
  }
}
