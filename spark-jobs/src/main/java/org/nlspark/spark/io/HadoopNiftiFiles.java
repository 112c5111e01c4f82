package org.nlspark.spark.io;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.ImageInputs;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.io.nifti.NiftiWriter;

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
    Path path = new Path(uri);
    try {
      FileSystem fs = HadoopFiles.fileSystem(path, conf, flag, uri);
      if (ImageInputs.isGlob(uri)) {
        FileStatus[] matches = fs.globStatus(path);
        List<String> files = matches == null ? List.of() : sortedFiles(matches, false);
        if (files.isEmpty()) {
          throw new InvalidInputException("Cannot read " + what + ": the glob matches no file");
        }
        return files;
      }
      FileStatus status;
      try {
        status = fs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        throw new InvalidInputException("Cannot read " + what + ": it does not exist");
      }
      if (status.isDirectory()) {
        List<String> files = sortedFiles(fs.listStatus(path), true);
        if (files.isEmpty()) {
          throw new InvalidInputException(
              "Cannot read the input directory " + what + ": it holds no .nii or .nii.gz file");
        }
        return files;
      }
      if (ImageInputs.isNiftiName(path.getName())) {
        return List.of(status.getPath().toString());
      }
      return listed(fs, status, what);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + what + ": " + e.getMessage(), e);
    }
  }

  private static List<String> sortedFiles(FileStatus[] statuses, boolean directoryListing) {
    return Arrays.stream(statuses)
        .filter(FileStatus::isFile)
        .filter(s -> !directoryListing || ImageInputs.isListedInDirectory(s.getPath().getName()))
        .map(s -> s.getPath().toString())
        .sorted(directoryListing
            ? Comparator.comparing((String p) -> new Path(p).getName(), ImageInputs.BYTE_ORDER)
            : ImageInputs.BYTE_ORDER)
        .collect(Collectors.toList());
  }

  private static List<String> listed(FileSystem fs, FileStatus list, String what)
      throws IOException {
    if (list.getLen() > MAX_LIST_BYTES) {
      throw new InvalidInputException("Cannot read the input list " + what + ": it has "
          + list.getLen() + " bytes, more than the " + MAX_LIST_BYTES + " a list of paths may"
          + " have; is it an image without a .nii/.nii.gz name?");
    }
    String content;
    try (InputStream in = fs.open(list.getPath())) {
      content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
    }
    Path parent = list.getPath().getParent();
    List<String> files = new ArrayList<>();
    for (String entry : ImageInputs.parseList(content, what)) {
      Path p = new Path(entry);
      Path resolved = p.isAbsolute() || p.toUri().getScheme() != null ? p : new Path(parent, p);
      FileSystem entryFs = resolved.getFileSystem(fs.getConf());
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
   * Opens a NIfTI image for reading volume by volume; the reader owns the stream (close it).
   *
   * @throws InvalidInputException when the file is missing, a directory, or not valid NIfTI
   */
  public static NiftiReader open(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    Path path = new Path(uri);
    try {
      FileSystem fs = HadoopFiles.fileSystem(path, conf, flag, uri);
      FileStatus status;
      try {
        status = fs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        throw new InvalidInputException("Cannot read " + what + ": no such file; check the path");
      }
      if (status.isDirectory()) {
        throw new InvalidInputException(
            "Cannot read " + what + ": it is a directory, not a NIfTI file");
      }
      FSDataInputStream in = fs.open(path);
      return NiftiReader.open(in, status.getLen(), what);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + what + ": " + e.getMessage(), e);
    }
  }

  /** Reads a mask ({@code --mask}): a 3-D NIfTI, non-zero = analysed. */
  public static NiftiMask readMask(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    Path path = new Path(uri);
    try {
      FileSystem fs = HadoopFiles.fileSystem(path, conf, flag, uri);
      FileStatus status;
      try {
        status = fs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        throw new InvalidInputException("Cannot read " + what + ": no such file; check the path");
      }
      return NiftiMask.read(fs.open(path), status.getLen(), what);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + what + ": " + e.getMessage(), e);
    }
  }

  /** Writes a float32 map ({@link NiftiWriter#writeMap}) to a new file on {@code fs}. */
  public static void writeMap(FileSystem fs, Path file, NiftiMask mask, float[] values,
      float outside) {
    try (OutputStream out = fs.create(file, false)) {
      NiftiWriter.writeMap(out, mask, values, outside);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  /** Writes the mask as uint8 ({@link NiftiWriter#writeMask}) to a new file on {@code fs}. */
  public static void writeMask(FileSystem fs, Path file, NiftiMask mask) {
    try (OutputStream out = fs.create(file, false)) {
      NiftiWriter.writeMask(out, mask);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
