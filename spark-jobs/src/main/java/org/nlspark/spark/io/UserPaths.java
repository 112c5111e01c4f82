package org.nlspark.spark.io;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.errors.OpenFileLimit;

/**
 * Turns the paths users type into Hadoop paths, and the file-system errors of their environment
 * into exit 2 (theirs to fix) or exit 3 (a resource refused: a full disk, the open-file limit)
 * with a message naming the flag.
 */
public final class UserPaths {
  private UserPaths() {}

  /** A URI scheme followed by a slash: {@code hdfs://nn/x}, {@code file:/x}, {@code s3a://b/k}. */
  private static final Pattern SCHEME = Pattern.compile("^([A-Za-z][A-Za-z0-9+.-]*):/.*");

  /**
   * The Hadoop path of a user's string. Strings with a scheme are URIs; anything else is a local
   * path, built from a URI so that a colon in a file name ({@code /data/scan:1.npy}), which
   * Hadoop's string constructor takes for a scheme, is just a character.
   */
  public static Path toPath(String uri, String flag) {
    if (uri == null || uri.isBlank()) {
      throw new InvalidInputException(flag + " must name a path, but was empty");
    }
    if (uri.indexOf('\0') >= 0) {
      throw new InvalidInputException("Cannot use " + flag + ": the path holds a NUL character");
    }
    try {
      if (SCHEME.matcher(uri).matches()) {
        return new Path(uri);
      }
      if (uri.indexOf(':') < 0) {
        return new Path(uri);
      }
      java.nio.file.Path local = java.nio.file.Paths.get(uri).toAbsolutePath().normalize();
      return new Path(new URI("file", null, local.toString(), null));
    } catch (IllegalArgumentException | URISyntaxException e) {
      throw new InvalidInputException("Cannot use " + flag + " " + uri
          + ": it is not a valid path or URI (" + e.getMessage() + ")");
    }
  }

  /** Whether {@code path} (qualified or not) names the local file system. */
  /**
   * A local directory as a plain path for messages (file:/a/b -> /a/b); other schemes as they
   * are. Through Hadoop's Path, not URI.create: the string is a path, not an encoded URI, and
   * may hold characters a URI may not ('[', spaces).
   */
  public static String displayPath(String dir) {
    return dir.startsWith("file:") ? new Path(dir).toUri().getPath() : dir;
  }

  public static boolean isLocal(Path path) {
    String scheme = path.toUri().getScheme();
    return scheme == null || scheme.equals("file");
  }

  /** The local file of a local Hadoop path. */
  public static java.nio.file.Path localFile(Path path) {
    return java.nio.file.Paths.get(path.toUri().getPath());
  }

  /**
   * The file system of a path; a scheme with no file system on the class path (gs:, s3a:
   * without their connector jars) is the user's to fix (exit 2), blamed on {@code flag}.
   */
  public static FileSystem fileSystem(Path path, Configuration conf, String flag, String uri) {
    String scheme = path.toUri().getScheme();
    try {
      return path.getFileSystem(conf);
    } catch (org.apache.hadoop.fs.UnsupportedFileSystemException e) {
      throw new InvalidInputException("Cannot use " + flag + " " + uri + ": no file system for"
          + " scheme '" + scheme + "' on this class path; " + connectorAdvice(scheme));
    } catch (IOException e) {
      throw environment(e, "use", flag, uri);
    } catch (RuntimeException e) {
      if (e.getCause() instanceof java.net.UnknownHostException) {
        throw new InvalidInputException("Cannot use " + flag + " " + uri + ": unknown host ("
            + e.getCause().getMessage() + "); check the host name in the URI");
      }
      if (e.getCause() instanceof ClassNotFoundException) {
        throw new InvalidInputException("Cannot use " + flag + " " + uri + ": the file system"
            + " class for scheme '" + scheme + "' is missing (" + e.getCause().getMessage()
            + "); " + connectorAdvice(scheme));
      }
      throw e;
    }
  }

  /** Which jar a scheme needs. */
  static String connectorAdvice(String scheme) {
    switch (scheme == null ? "" : scheme.toLowerCase(Locale.ROOT)) {
      case "s3a":
      case "s3":
      case "s3n":
        return "add the S3A connector (org.apache.hadoop:hadoop-aws of the same Hadoop version,"
            + " with its AWS SDK bundle) to the class path, or copy the file locally";
      case "gs":
        return "add the Google Cloud Storage connector (com.google.cloud.bigdataoss:"
            + "gcs-connector, shaded) to the class path, or copy the file locally";
      case "abfs":
      case "abfss":
      case "wasb":
      case "wasbs":
        return "add the Azure connector (org.apache.hadoop:hadoop-azure) to the class path";
      case "dbfs":
        return "run on Databricks, or use the file's /dbfs/... local path";
      default:
        return "the known schemes are file:, hdfs:, s3a:, gs: and dbfs:; check the spelling";
    }
  }

  /**
   * Checks a local file before it is opened: a FIFO, device or socket would block or stream
   * forever, so only regular files pass; a symlink loop and a dangling link are named as such.
   */
  static void checkLocalInput(java.nio.file.Path file, String flag, String uri) {
    BasicFileAttributes attributes;
    try {
      attributes = Files.readAttributes(file, BasicFileAttributes.class);
    } catch (NoSuchFileException e) {
      if (Files.isSymbolicLink(file)) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri
            + ": it is a symbolic link to a file that does not exist; fix the link or the path");
      }
      throw missing(flag + " " + uri, file);
    } catch (IOException e) {
      throw environment(e, "read", flag, uri);
    }
    if (attributes.isDirectory()) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri
          + ": it is a directory, not an .npy file");
    }
    if (!attributes.isRegularFile()) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri
          + ": it is not a regular file (a FIFO, device or socket, which nlspark does not read"
          + " from); save the array to a file first");
    }
    if (!Files.isReadable(file)) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri
          + ": permission denied; check the file's permissions");
    }
  }

  /**
   * The error a user sees for a failed file-system operation: environment problems are exit 2
   * or 3 with what to do; anything unrecognised stays an I/O error (exit 1).
   */
  public static RuntimeException environment(IOException e, String verb, String flag, String uri) {
    return environment(e, "Cannot " + verb + " " + flag + " " + uri + ": ");
  }

  /** A failed read of {@code flag uri}, as {@link #environment} words it. */
  public static RuntimeException readFailure(IOException e, String flag, String uri) {
    return environment(e, "read", flag, uri);
  }

  /** {@link #environment(IOException, String, String, String)} after a ready prefix. */
  public static RuntimeException environment(IOException e, String what) {
    String reason = reason(e);
    String lower = reason.toLowerCase(Locale.ROOT);
    if (OpenFileLimit.isEmfile(reason) || OpenFileLimit.causedBy(e)) {
      return OpenFileLimit.refusal(what, e); // ulimit -n: exit 3, whichever call ran out
    }
    if (lower.contains("no space left") || lower.contains("disk quota exceeded")
        || lower.contains("quota exceeded") || lower.contains("file too large")) {
      return new ResourceRefusedException(what + "the file system is full (" + reason
          + "); free space or choose another --output directory");
    }
    if (lower.contains("read-only file system")) {
      return new InvalidInputException(what + "the file system is read-only; choose a writable"
          + " directory");
    }
    if (lower.contains("levels of symbolic links") || lower.contains("symlink loop")) {
      return new InvalidInputException(what + "symlink loop (a symbolic link that leads back to"
          + " itself); fix the link");
    }
    if (lower.contains("file name too long") || lower.contains("name too long")) {
      return new InvalidInputException(what + "a name in the path is too long for the file"
          + " system (most allow 255 bytes per name); choose a shorter path");
    }
    if (lower.contains("operation not permitted")) {
      return new InvalidInputException(what + "operation not permitted (an immutable or"
          + " append-only file or directory, see lsattr, or a file system that forbids it);"
          + " choose another path or lift the restriction");
    }
    if (e instanceof AccessDeniedException || lower.contains("permission denied")
        || e instanceof org.apache.hadoop.security.AccessControlException) {
      return new InvalidInputException(what + "permission denied; check the permissions or"
          + " choose another path");
    }
    if (e instanceof ConnectException || e.getCause() instanceof ConnectException
        || lower.contains("connection refused")) {
      return new InvalidInputException(what + "cannot reach the file system's server"
          + " (connection refused); check the host and port in the URI and that the service is"
          + " running");
    }
    if (e instanceof java.net.UnknownHostException
        || e.getCause() instanceof java.net.UnknownHostException) {
      return new InvalidInputException(what + "unknown host (" + reason + "); check the URI");
    }
    if (e instanceof FileNotFoundException || e instanceof NoSuchFileException) {
      return new InvalidInputException(what + "no such file or directory; check the path");
    }
    if (lower.contains("not a directory")) { // ENOTDIR: a file where the path needs a directory
      String file = fileInTheWay(e);
      return new InvalidInputException(what + (file == null ? "a name in the path is a file"
          : file + " is a file") + ", not a directory; check the path");
    }
    if (e instanceof org.apache.hadoop.fs.UnsupportedFileSystemException) {
      return new InvalidInputException(what + reason);
    }
    return new UncheckedIOException(what + reason, e);
  }

  /** The regular file among the parents of the path {@code e} names, or null. */
  private static String fileInTheWay(IOException e) {
    String file = e instanceof FileSystemException ? ((FileSystemException) e).getFile() : null;
    if (file == null) {
      return null;
    }
    try {
      for (java.nio.file.Path p = java.nio.file.Paths.get(file).getParent(); p != null;
          p = p.getParent()) {
        if (Files.isRegularFile(p)) {
          return p.toString();
        }
      }
    } catch (RuntimeException ignored) {
      // an unparsable path: the message names none
    }
    return null;
  }

  private static String reason(IOException e) {
    if (e instanceof FileSystemException && ((FileSystemException) e).getReason() != null) {
      return ((FileSystemException) e).getReason();
    }
    String m = e.getMessage();
    return m == null ? e.getClass().getSimpleName() : m;
  }

  /** Hadoop's local streams report a failed write (disk full) as an Error around it. */
  public static IOException ioCause(Throwable e) {
    return e.getCause() instanceof IOException ? (IOException) e.getCause()
        : new IOException(String.valueOf(e.getMessage()), e);
  }

  /** The one message for an input that is not there: "Cannot read WHAT: no such file; ...". */
  public static InvalidInputException noSuchFile(String what) {
    return noSuchFile(what, "check the path");
  }

  /** {@link #noSuchFile(String)} with the advice that fits the input in place of the default. */
  public static InvalidInputException noSuchFile(String what, String advice) {
    return new InvalidInputException("Cannot read " + what + ": no such file; " + advice);
  }

  /**
   * {@link #noSuchFile(String)} for a local path, or, when a parent of it is a regular file
   * ({@code design.csv/X.npy}), the message naming that file: JDKs differ in whether they report
   * such a path as missing or as "Not a directory".
   */
  public static InvalidInputException missing(String what, java.nio.file.Path local) {
    try {
      for (java.nio.file.Path p = local.getParent(); p != null; p = p.getParent()) {
        if (Files.isRegularFile(p)) {
          return new InvalidInputException("Cannot read " + what + ": " + p + " is a file, not"
              + " a directory; check the path");
        }
      }
    } catch (RuntimeException ignored) {
      // an unusual path: the plain message below
    }
    return noSuchFile(what);
  }

  /** The one way inputs are looked up: the file's status, or {@link #noSuchFile(String)}. */
  public static FileStatus status(FileSystem fs, Path path, String what) throws IOException {
    try {
      return fs.getFileStatus(path);
    } catch (java.io.FileNotFoundException e) {
      Path q = fs.makeQualified(path);
      throw isLocal(q) ? missing(what, localFile(q)) : noSuchFile(what);
    }
  }
}
