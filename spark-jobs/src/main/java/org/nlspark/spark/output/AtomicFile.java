package org.nlspark.spark.output;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.spark.io.UserPaths;

/**
 * The one way nlspark writes a file into a directory on any Hadoop file system: the bytes go to a
 * temporary name there (so a reader, or a run killed halfway, never finds half a file under the
 * final name), which a rename then puts in place. {@link HadoopOutput.OutputDir} writes every
 * output, its journal and summary.json this way (its renames follow the journal), and
 * {@link HadoopReport} writes report.html this way after the commit.
 */
final class AtomicFile {
  private AtomicFile() {}

  /** What goes into the file. */
  public interface Body {
    void write(OutputStream out) throws IOException;
  }

  /**
   * Creates {@code temp} (which must not exist) and writes {@code body} into it. On any failure
   * the temporary file is removed and the cause is thrown as the IOException it is (Hadoop's
   * local streams report a full disk as an Error around one; a body may wrap one unchecked).
   */
  static void writeTemp(FileSystem fs, Path temp, Body body) throws IOException {
    try (OutputStream out = fs.create(temp, false)) {
      body.write(out);
    } catch (IOException e) {
      delete(fs, temp);
      throw e;
    } catch (UncheckedIOException e) {
      delete(fs, temp);
      throw e.getCause();
    } catch (org.apache.hadoop.fs.FSError e) {
      delete(fs, temp);
      throw UserPaths.ioCause(e);
    }
  }

  /** Renames {@code temp} to {@code target}; on failure removes {@code temp}. */
  static void rename(FileSystem fs, Path temp, Path target) throws IOException {
    if (!fs.rename(temp, target)) {
      delete(fs, temp);
      throw new IOException("rename of " + temp + " to " + target + " failed");
    }
  }

  /**
   * Writes {@code body} under {@code temp}, then puts it in place of {@code target} (replacing
   * a file there).
   */
  static void write(FileSystem fs, Path temp, Path target, Body body) throws IOException {
    writeTemp(fs, temp, body);
    try {
      if (fs.exists(target)) {
        fs.delete(target, false);
      }
    } catch (IOException e) {
      delete(fs, temp);
      throw e;
    }
    rename(fs, temp, target);
  }

  private static void delete(FileSystem fs, Path temp) {
    try {
      fs.delete(temp, false);
    } catch (IOException | RuntimeException ignored) {
      // best effort: the next run on the directory removes nlspark's temporary files
    }
  }
}
