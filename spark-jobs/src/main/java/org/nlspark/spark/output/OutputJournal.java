package org.nlspark.spark.output;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.spark.io.UserPaths;

/**
 * The renames that put a run's finished files in place, written to {@value #NAME} in the output
 * directory before the first rename and removed after the last step, so that a run killed in
 * between is completed by the next one ({@link #recover}).
 *
 * <p>Order (each step idempotent): move each old file aside to its backup name; rename each
 * finished temporary file to its final name; delete the backups; delete the journal. Since every
 * old file is aside before the first new file moves, "temporary file gone" means "that final
 * file is new", which is what makes both completing and rolling back safe.
 *
 * <p>Format: text lines, fields separated by a tab, names relative to the directory:
 * {@code nlspark-journal 1}, {@code new TEMP FINAL}, {@code old FINAL BACKUP}, {@code end}.
 */
final class OutputJournal {
  static final String NAME = ".nlspark-journal";
  static final String HEADER = "nlspark-journal 1";

  record Move(String from, String to) {}

  final List<Move> fresh = new ArrayList<>(); // temp -> final
  final List<Move> old = new ArrayList<>(); // final -> backup

  /** Writes the journal atomically (temporary name, then rename). */
  void write(FileSystem fs, Path dir, String runId) throws IOException {
    StringBuilder b = new StringBuilder(HEADER).append('\n');
    for (Move m : fresh) {
      b.append("new\t").append(m.from).append('\t').append(m.to).append('\n');
    }
    for (Move m : old) {
      b.append("old\t").append(m.from).append('\t').append(m.to).append('\n');
    }
    b.append("end\n");
    Path tmp = new Path(dir, OutputDirNames.TEMP_PREFIX + runId + "-journal");
    AtomicFile.writeTemp(fs, tmp, out -> {
      out.write(b.toString().getBytes(StandardCharsets.UTF_8));
      if (out instanceof org.apache.hadoop.fs.Syncable) {
        ((org.apache.hadoop.fs.Syncable) out).hsync();
      }
    });
    AtomicFile.rename(fs, tmp, new Path(dir, NAME));
  }

  /** Reads {@code dir}'s journal, or null when there is none. */
  static OutputJournal read(FileSystem fs, Path dir, String uri) throws IOException {
    Path file = new Path(dir, NAME);
    String text;
    try (InputStream in = fs.open(file)) {
      text = new String(in.readNBytes(1 << 20), StandardCharsets.UTF_8);
    } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return null;
    }
    OutputJournal j = new OutputJournal();
    String[] lines = text.split("\n", -1);
    boolean ended = false;
    if (lines.length == 0 || !lines[0].equals(HEADER)) {
      throw corrupt(file, uri);
    }
    for (int i = 1; i < lines.length && !ended; i++) {
      String[] f = lines[i].split("\t", -1);
      if (f.length == 1 && f[0].equals("end")) {
        ended = true;
      } else if (f.length == 3 && (f[0].equals("new") || f[0].equals("old"))
          && OutputDirNames.isSafeRelative(f[1]) && OutputDirNames.isSafeRelative(f[2])) {
        (f[0].equals("new") ? j.fresh : j.old).add(new Move(f[1], f[2]));
      } else {
        throw corrupt(file, uri);
      }
    }
    if (!ended) {
      throw corrupt(file, uri);
    }
    return j;
  }

  private static InvalidInputException corrupt(Path file, String uri) {
    return new InvalidInputException("Cannot write --output " + uri + ": its journal " + file
        + " of an interrupted run is not readable, so nlspark cannot tell old files from new"
        + " ones; check the directory by hand and delete the journal");
  }

  /**
   * Completes an interrupted commit: every new file is present (as a temporary or in place),
   * so the run's results are complete; otherwise (a file lost by hand) the old files are put
   * back. Either way the directory ends with one complete set and no journal.
   */
  void recover(FileSystem fs, Path dir) throws IOException {
    boolean complete = true;
    for (Move m : fresh) {
      if (!fs.exists(new Path(dir, m.from)) && !fs.exists(new Path(dir, m.to))) {
        complete = false;
      }
    }
    if (complete) {
      complete(fs, dir, null);
    } else {
      rollBack(fs, dir);
    }
  }

  /** Performs (or finishes) every step; {@code pause} runs after the first rename. */
  void complete(FileSystem fs, Path dir, Runnable pause) throws IOException {
    boolean anyRenamed = false;
    for (Move m : old) {
      Path fin = new Path(dir, m.from);
      Path backup = new Path(dir, m.to);
      if (fs.exists(backup) || !fs.exists(fin) || isNewInPlace(fs, dir, m.from)) {
        continue;
      }
      rename(fs, fin, backup);
      if (!anyRenamed && pause != null) {
        pause.run();
      }
      anyRenamed = true;
    }
    for (Move m : fresh) {
      Path tmp = new Path(dir, m.from);
      Path fin = new Path(dir, m.to);
      if (!fs.exists(tmp)) {
        continue; // already in place
      }
      if (fs.exists(fin)) {
        throw new IOException(m.to + " appeared while the results were put in place");
      }
      Path parent = fin.getParent();
      if (!fs.exists(parent)) {
        fs.mkdirs(parent);
      }
      rename(fs, tmp, fin);
      if (!anyRenamed && pause != null) {
        pause.run();
      }
      anyRenamed = true;
    }
    for (Move m : old) {
      fs.delete(new Path(dir, m.to), false);
      removeEmptyParents(fs, dir, m.from);
    }
    fs.delete(new Path(dir, NAME), false);
  }

  /** Puts the old files back and removes the new ones. */
  void rollBack(FileSystem fs, Path dir) throws IOException {
    for (Move m : fresh) {
      Path tmp = new Path(dir, m.from);
      Path fin = new Path(dir, m.to);
      if (!fs.exists(tmp) && fs.exists(fin)) {
        fs.delete(fin, false);
      }
    }
    for (Move m : old) {
      Path fin = new Path(dir, m.from);
      Path backup = new Path(dir, m.to);
      if (fs.exists(backup) && !fs.exists(fin)) {
        rename(fs, backup, fin);
      }
    }
    for (Move m : fresh) {
      fs.delete(new Path(dir, m.from), false);
      removeEmptyParents(fs, dir, m.to);
    }
    fs.delete(new Path(dir, NAME), false);
  }

  private boolean isNewInPlace(FileSystem fs, Path dir, String name) throws IOException {
    for (Move m : fresh) {
      if (m.to.equals(name) && !fs.exists(new Path(dir, m.from))) {
        return true;
      }
    }
    return false;
  }

  private static void rename(FileSystem fs, Path from, Path to) throws IOException {
    if (UserPaths.isLocal(from) && UserPaths.isLocal(to)) {
      // one rename(2), with its errno: Hadoop's local rename falls back to copy and delete,
      // which leaves a copy behind when the delete is refused (an immutable file)
      java.nio.file.Files.move(UserPaths.localFile(from), UserPaths.localFile(to),
          java.nio.file.StandardCopyOption.ATOMIC_MOVE);
      return;
    }
    if (!fs.rename(from, to)) {
      throw new IOException("rename of " + from.getName() + " to " + to + " failed");
    }
  }

  /** Removes the sub-directories of {@code rel} left empty (never {@code dir} itself). */
  static void removeEmptyParents(FileSystem fs, Path dir, String rel) throws IOException {
    Path p = new Path(dir, rel).getParent();
    String top = dir.toUri().getPath().replaceAll("/+$", "");
    while (p != null && p.toUri().getPath().replaceAll("/+$", "").length() > top.length()) {
      if (!fs.exists(p) || fs.listStatus(p).length > 0) {
        return;
      }
      fs.delete(p, false);
      p = p.getParent();
    }
  }
}
