package org.nlspark.spark.cli;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Where embedded Spark spills (its blockmgr-* and spark-* directories): one directory per run
 * under java.io.tmpdir, named {@code nlspark-spill-PID-STARTMILLIS} after the JVM that owns it.
 * Spark removes its own sub-directories when it stops normally; a run killed with SIGKILL
 * leaves them (gigabytes for a large study). Each start therefore removes the spill
 * directories whose owner is gone: no live process has that PID with that start time. Only
 * names of exactly this form are touched, so nothing that is not nlspark's is removed.
 */
final class SpillDirectories {
  static final String PREFIX = "nlspark-spill-";
  private static final Pattern NAME = Pattern.compile("nlspark-spill-([0-9]+)-([0-9]+)");

  private SpillDirectories() {}

  /** Removes stale spill directories in {@code tmpdir}, then names (not creates) this run's. */
  static String forThisRun(String tmpdir) {
    if (tmpdir == null) {
      return null;
    }
    Path base = Paths.get(tmpdir);
    removeStale(base);
    ProcessHandle self = ProcessHandle.current();
    Optional<java.time.Instant> started = self.info().startInstant();
    if (started.isEmpty()) {
      return null; // no start time to prove ownership with: Spark's default place
    }
    Path mine = base.resolve(PREFIX + self.pid() + "-" + started.get().toEpochMilli());
    Runtime.getRuntime().addShutdownHook(new Thread(() -> deleteTree(mine),
        "nlspark-spill-cleanup"));
    return mine.toString();
  }

  /** Deletes the spill directories under {@code base} whose owning process is gone. */
  static void removeStale(Path base) {
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(base, PREFIX + "*")) {
      for (Path p : entries) {
        Matcher m = NAME.matcher(p.getFileName().toString());
        if (m.matches() && Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)
            && !alive(Long.parseLong(m.group(1)), Long.parseLong(m.group(2)))) {
          deleteTree(p);
        }
      }
    } catch (IOException | RuntimeException e) {
      // best effort: a directory we cannot list holds nothing we could remove
    }
  }

  /** Whether a live process has this PID and started at this millisecond. */
  static boolean alive(long pid, long startMillis) {
    Optional<ProcessHandle> h = ProcessHandle.of(pid);
    if (h.isEmpty() || !h.get().isAlive()) {
      return false;
    }
    Optional<java.time.Instant> started = h.get().info().startInstant();
    // without a start time the owner cannot be told from a reused PID: keep it
    return started.isEmpty() || started.get().toEpochMilli() == startMillis;
  }

  /** Deletes a directory tree without following symbolic links out of it. */
  static void deleteTree(Path root) {
    try {
      Files.walkFileTree(root, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
          Files.deleteIfExists(file);
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult postVisitDirectory(Path dir, IOException e) throws IOException {
          Files.deleteIfExists(dir);
          return FileVisitResult.CONTINUE;
        }
      });
    } catch (IOException | RuntimeException e) {
      // best effort: the next start tries again
    }
  }
}
