package org.nlspark.spark.io;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.result.Output;

/**
 * Reads inputs and writes output directories on any Hadoop file system (file:, hdfs:, gs:, s3a:,
 * dbfs:). Parsing and validation of {@code .npy} are core's {@link NpyReader}; this class only
 * opens streams.
 *
 * <p>An output directory is written atomically (DESIGN §6): every file goes into a hidden
 * temporary sibling, which is renamed into place at the end; on any failure the sibling is
 * deleted (also when the JVM is killed), so a reader sees either no directory or a complete one.
 * With {@code --overwrite} an existing directory is moved aside, replaced, then deleted.
 */
public final class HadoopFiles {
  private HadoopFiles() {}

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

  /** Opens {@code uri} and hands the stream and file length to core's reader. */
  public static NpyArray readNpy(Configuration conf, String uri, String flag, int expectedRank) {
    Path path = toPath(uri, flag);
    try {
      FileSystem fs = fileSystem(path, conf, flag, uri);
      FileStatus status;
      try {
        status = fs.getFileStatus(path);
      } catch (FileNotFoundException e) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri
            + ": no such file; check the path");
      }
      if (status.isDirectory()) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri
            + ": it is a directory, not an .npy file");
      }
      try (FSDataInputStream in = fs.open(path)) {
        return NpyReader.read(in, status.getLen(), flag + " " + uri, expectedRank);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + flag + " " + uri + ": " + e.getMessage(), e);
    }
  }

  /**
   * The file system of a path; a scheme with no file system on the class path (gs:, s3a: without
   * their connector jars) is the user's to fix (exit 2), not an internal error.
   */
  static FileSystem fileSystem(Path path, Configuration conf, String flag, String uri)
      throws IOException {
    try {
      return path.getFileSystem(conf);
    } catch (org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new InvalidInputException("Cannot use " + flag + " " + uri + ": no file system for"
          + " scheme '" + path.toUri().getScheme() + "' on this class path; add its Hadoop"
          + " connector jar (e.g. gcs-connector, hadoop-aws) or use another path");
    } catch (RuntimeException e) {
      if (e.getCause() instanceof ClassNotFoundException) {
        throw new InvalidInputException("Cannot use " + flag + " " + uri + ": the file system"
            + " class for scheme '" + path.toUri().getScheme() + "' is missing ("
            + e.getCause().getMessage() + "); add its Hadoop connector jar");
      }
      throw e;
    }
  }

  private static Path toPath(String uri, String flag) {
    if (uri == null || uri.isBlank()) {
      throw new InvalidInputException(flag + " must name a file, but was empty");
    }
    try {
      return new Path(uri);
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException("Cannot read " + flag + ": '" + uri
          + "' is not a valid path or URI (" + e.getMessage() + ")");
    }
  }

  /** The local file system without its .crc side files (outputs are read by numpy, not Hadoop). */
  static FileSystem withoutChecksums(FileSystem fs) {
    return fs instanceof LocalFileSystem ? ((LocalFileSystem) fs).getRawFileSystem() : fs;
  }

  /**
   * An output directory being written. {@link #open} checks the target before any work is done
   * (an existing non-empty directory is refused unless {@code overwrite}); {@link #commit}
   * renames the finished temporary directory into place; {@link #close} without a commit deletes
   * the temporary directory.
   */
  public static final class OutputDir implements AutoCloseable {
    private final FileSystem fs;
    private final Path target;
    private final Path temp;
    private final boolean overwrite;
    private volatile boolean committed;

    private final Runnable cleanup = this::close;

    private OutputDir(FileSystem fs, Path target, Path temp, boolean overwrite) {
      this.fs = fs;
      this.target = target;
      this.temp = temp;
      this.overwrite = overwrite;
      // Runs before Hadoop closes its file systems (higher priority), so a killed run leaves
      // no half-written temporary directory.
      org.apache.hadoop.util.ShutdownHookManager.get().addShutdownHook(cleanup,
          FileSystem.SHUTDOWN_HOOK_PRIORITY + 1);
    }

    private void releaseShutdownHook() {
      try {
        org.apache.hadoop.util.ShutdownHookManager.get().removeShutdownHook(cleanup);
      } catch (IllegalStateException e) {
        // shutdown in progress: the hook is running or has run
      }
    }

    /** Checks the target and creates the temporary sibling. */
    public static OutputDir open(Configuration conf, String uri, boolean overwrite) {
      checkTarget(conf, uri, overwrite);
      Path target = toPath(uri, "--output");
      try {
        FileSystem fs = withoutChecksums(fileSystem(target, conf, "--output", uri));
        Path qualified = fs.makeQualified(target);
        Path parent = qualified.getParent();
        if (parent == null) {
          throw new InvalidInputException("Cannot write --output " + uri
              + ": it is a file system root; choose a sub-directory");
        }
        Path temp = new Path(parent, "." + qualified.getName() + ".tmp-" + UUID.randomUUID());
        if (!fs.mkdirs(temp)) {
          throw new UncheckedIOException(new IOException("Cannot create " + temp));
        }
        return new OutputDir(fs, qualified, temp, overwrite);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write --output " + uri + ": " + e.getMessage(), e);
      }
    }

    /**
     * Refuses a target that exists as a file, or as a non-empty directory without
     * {@code overwrite} (exit 2), and — since overwrite replaces the whole directory — a target
     * that is, or contains, the working directory or any input. Also checks that the nearest
     * existing ancestor is a directory. Call before the computation so nothing is wasted.
     */
    public static void checkTarget(Configuration conf, String uri, boolean overwrite,
        String... inputs) {
      Path target = toPath(uri, "--output");
      try {
        FileSystem fs = fileSystem(target, conf, "--output", uri);
        Path qualified = fs.makeQualified(target);
        refuseOverlap(conf, fs, qualified, uri, inputs);
        if (!fs.exists(target)) {
          for (Path p = qualified.getParent(); p != null; p = p.getParent()) {
            if (fs.exists(p)) {
              if (!fs.getFileStatus(p).isDirectory()) {
                throw new InvalidInputException("Cannot write --output " + uri + ": " + p
                    + " is a file, not a directory; choose another path");
              }
              break;
            }
          }
          return;
        }
        FileStatus status = fs.getFileStatus(target);
        if (!status.isDirectory()) {
          throw new InvalidInputException("Cannot write --output " + uri
              + ": it exists and is a file; choose a directory path");
        }
        if (!overwrite && fs.listStatus(target).length > 0) {
          throw new InvalidInputException("Cannot write --output " + uri
              + ": the directory exists and is not empty; choose another directory or pass"
              + " --overwrite");
        }
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot check --output " + uri + ": " + e.getMessage(), e);
      }
    }

    /** The output directory is replaced whole, so it must not hold the inputs or the cwd. */
    private static void refuseOverlap(Configuration conf, FileSystem fs, Path target, String uri,
        String... inputs) throws IOException {
      java.util.List<Path> guarded = new java.util.ArrayList<>();
      if (fs.getUri().getScheme() != null && fs.getUri().getScheme().equals("file")) {
        guarded.add(fs.makeQualified(new Path(System.getProperty("user.dir"))));
      }
      for (String in : inputs) {
        if (in != null && !in.isBlank()) {
          Path p = toPath(in, "--input");
          guarded.add(p.getFileSystem(conf).makeQualified(p));
        }
      }
      String t = target.toUri().normalize().toString().replaceAll("/+$", "");
      for (Path g : guarded) {
        String s = g.toUri().normalize().toString().replaceAll("/+$", "");
        if (s.equals(t) || s.startsWith(t + "/")) {
          throw new InvalidInputException("Cannot write --output " + uri + ": it is or contains "
              + g + ", which the run reads or works in, and the output directory is replaced"
              + " whole; choose a separate directory");
        }
      }
    }

    public void writeNpy(Output output) {
      writeNpy(output.name() + ".npy", output.shape(), output.values());
    }

    public void writeNpy(String fileName, long[] shape, double[] values) {
      try (OutputStream out = fs.create(new Path(temp, fileName), false)) {
        NpyWriter.writeFloat64(out, shape, values);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + fileName + ": " + e.getMessage(), e);
      }
    }

    public void writeJson(String fileName, Map<String, Object> value) {
      try (OutputStream out = fs.create(new Path(temp, fileName), false)) {
        out.write((Json.write(value) + "\n").getBytes(StandardCharsets.UTF_8));
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write " + fileName + ": " + e.getMessage(), e);
      }
    }

    /**
     * Moves the finished directory into place. With overwrite an existing directory is first
     * renamed to a hidden backup sibling and deleted only after the new one is in place, so a
     * failed rename never loses the old results.
     */
    public String commit() {
      try {
        Path backup = null;
        if (fs.exists(target)) {
          if (!overwrite && fs.listStatus(target).length > 0) {
            throw new InvalidInputException("Cannot write --output " + target
                + ": the directory appeared and is not empty while the job ran; pass --overwrite");
          }
          backup = new Path(target.getParent(), "." + target.getName() + ".old-"
              + UUID.randomUUID());
          if (!fs.rename(target, backup)) {
            throw new IOException("rename of " + target + " to " + backup + " failed");
          }
        }
        Path parent = target.getParent();
        if (!fs.exists(parent)) {
          fs.mkdirs(parent);
        }
        if (!fs.rename(temp, target)) {
          if (backup != null) {
            fs.rename(backup, target); // put the old results back
          }
          throw new IOException("rename of " + temp + " to " + target + " failed");
        }
        committed = true;
        releaseShutdownHook();
        if (backup != null) {
          fs.delete(backup, true);
        }
        return target.toString();
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot write --output " + target + ": " + e.getMessage(),
            e);
      }
    }

    public String target() {
      return target.toString();
    }

    /** Deletes the temporary directory unless committed; idempotent. */
    @Override
    public synchronized void close() {
      if (committed) {
        return;
      }
      releaseShutdownHook();
      try {
        fs.delete(temp, true);
      } catch (IOException e) {
        // Best effort: the run already failed and that error is what the user must see.
      }
      committed = true;
    }
  }
}
