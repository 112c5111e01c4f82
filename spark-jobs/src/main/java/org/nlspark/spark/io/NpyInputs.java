package org.nlspark.spark.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Locale;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.io.NpyReader;

/**
 * Reads {@code .npy} inputs on any Hadoop file system (file:, hdfs:, gs:, s3a:, dbfs:). Parsing
 * and validation of {@code .npy} are core's {@link NpyReader}; this class only opens streams,
 * after checking what can be checked without reading: that an input is a regular file (a FIFO
 * would block forever) and that its header's size fits the heap. Output directories are the
 * {@code output} package's.
 */
public final class NpyInputs {
  private NpyInputs() {}

  /** Reads a 2-D (n_samples, n_voxels) array as a DataMatrix; {@code flag} names it in messages. */
  public static DataMatrix readMatrix(Configuration conf, String uri, String flag) {
    NpyArray a = readNpy(conf, uri, flag, 2);
    long rows = a.shape()[0];
    long cols = a.shape()[1];
    return DataMatrix.of((int) rows, (int) cols, a.data(), flag + " " + uri);
  }

  /** Reads a 1-D (n_samples,) array. */
  public static double[] readVector(Configuration conf, String uri, String flag) {
    return readNpy(conf, uri, flag, 1).data();
  }

  /**
   * Opens {@code uri} and hands the stream and file length to core's reader. Refused before
   * opening: a missing file, a directory, a FIFO/device/socket ("not a regular file"), a
   * symlink loop; refused from the header before the data is read: an array larger than the
   * free heap (exit 3).
   */
  public static NpyArray readNpy(Configuration conf, String uri, String flag, int expectedRank) {
    Path path = UserPaths.toPath(uri, flag);
    // Inputs come from numpy, without Hadoop's .crc side files (whose names a colon breaks).
    FileSystem fs = withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
    try {
      FileStatus status = npyStatus(fs, path, uri, flag);
      String name = flag + " " + uri;
      try (FSDataInputStream in = fs.open(path)) {
        NpyHeader header = NpyHeader.parse(in, name);
        checkFitsHeap(header, status.getLen(), name);
        in.seek(0);
        return NpyReader.read(in, status.getLen(), name, expectedRank);
      }
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    } catch (UncheckedIOException e) {
      throw UserPaths.environment(e.getCause(), "read", flag, uri);
    } catch (org.apache.hadoop.fs.FSError e) {
      throw UserPaths.environment(UserPaths.ioCause(e), "read", flag, uri);
    }
  }

  /**
   * The checks of an {@code .npy} input that need no byte of it: it exists, is a regular file
   * (not a directory, FIFO or device), and its path is usable. Readers of row ranges run these
   * on the driver before describing the file, so their messages are those of {@link #readNpy}.
   */
  public static void checkNpyInput(Configuration conf, String uri, String flag) {
    Path path = UserPaths.toPath(uri, flag);
    FileSystem fs = withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
    try {
      npyStatus(fs, path, uri, flag);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  private static FileStatus npyStatus(FileSystem fs, Path path, String uri, String flag)
      throws IOException {
    if (UserPaths.isLocal(fs.makeQualified(path))) {
      UserPaths.checkLocalInput(UserPaths.localFile(fs.makeQualified(path)), flag, uri);
    }
    FileStatus status = UserPaths.status(fs, path, flag + " " + uri);
    if (status.isDirectory()) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri
          + ": it is a directory, not an .npy file");
    }
    if (!status.isFile()) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri
          + ": it is not a regular file");
    }
    return status;
  }

  /**
   * The column count (voxels) an {@code .npy} header declares, read without the data, for
   * sizing outputs before the computation; -1 for anything that is not a readable 2-D
   * {@code .npy} (the run's own reading reports those).
   */
  public static long npyColumns(Configuration conf, String uri) {
    if (uri == null || !uri.endsWith(".npy")) {
      return -1;
    }
    try {
      Path path = new Path(uri);
      FileSystem fs = withoutChecksums(path.getFileSystem(conf));
      Path qualified = fs.makeQualified(path);
      // A FIFO would block the open: only regular files are peeked at.
      if (UserPaths.isLocal(qualified)
          && !java.nio.file.Files.isRegularFile(UserPaths.localFile(qualified))) {
        return -1;
      }
      FileStatus status = fs.getFileStatus(path);
      if (!status.isFile()) {
        return -1;
      }
      try (FSDataInputStream in = fs.open(path)) {
        long[] shape = NpyHeader.parse(in, uri).shape();
        return shape.length == 2 ? shape[1] : -1;
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
  }

  /**
   * Refuses (exit 3) an array whose values, held as float64, would not fit the heap that is
   * free now, so the refusal comes from the header and not from an OutOfMemoryError halfway
   * through the data. A header that does not match the file's size is left to core's reader,
   * whose message says "truncated or corrupt".
   */
  static void checkFitsHeap(NpyHeader header, long fileSize, String name) {
    long count = header.elementCount();
    long onDisk = fileSize - header.dataOffset();
    if (count <= 0 || onDisk <= 0 || onDisk % count != 0
        || (onDisk / count != 4 && onDisk / count != 8)) {
      return;
    }
    long needed = count > Long.MAX_VALUE / 8 ? Long.MAX_VALUE : count * 8;
    if (HeapCheck.fits(needed)) {
      return;
    }
    long free = HeapCheck.free();
    throw new ResourceRefusedException(String.format(Locale.ROOT, "Cannot read %s: its header"
        + " declares shape %s, which needs %s as float64 values, but only %s of the %s Java heap"
        + " is free; give nlspark more memory (NLSPARK_JAVA_OPTS=-Xmx<size> for bin/nlspark,"
        + " --driver-memory under spark-submit) or split the input", name,
        NpyHeader.formatShape(header.shape()), HeapCheck.format(needed), HeapCheck.format(free),
        HeapCheck.format(Runtime.getRuntime().maxMemory())));
  }

  /** The local file system without its .crc side files (outputs are read by numpy, not Hadoop). */
  public static FileSystem withoutChecksums(FileSystem fs) {
    return fs instanceof LocalFileSystem ? ((LocalFileSystem) fs).getRawFileSystem() : fs;
  }
}
