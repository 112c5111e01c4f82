package org.nlspark.spark.output;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.spark.io.UserPaths;

/**
 * The lock of one output directory: a file {@value #NAME} created exclusively, holding the
 * writer's pid, host and process start time, so that two runs never write the same directory
 * and a lock left by a killed run (same host, process gone or pid reused) is taken over.
 */
final class OutputLock {
  static final String NAME = ".nlspark-lock";

  private final FileSystem fs;
  private final Path file;

  private OutputLock(FileSystem fs, Path file) {
    this.fs = fs;
    this.file = file;
  }

  /** Takes the lock of {@code dir} or refuses (exit 2) naming the run that holds it. */
  static OutputLock acquire(FileSystem fs, Path dir, String uri) {
    Path file = new Path(dir, NAME);
    String content = describeSelf();
    for (int attempt = 0; attempt < 3; attempt++) {
      try {
        if (create(fs, file, content)) {
          return new OutputLock(fs, file);
        }
        String holder = read(fs, file);
        if (holder == null) {
          continue; // released between our create and our read
        }
        if (!isStale(holder)) {
          throw new InvalidInputException("Cannot write --output " + uri + ": another nlspark"
              + " run is writing there (" + holder.replace('\n', ' ').trim() + "); wait for it"
              + " to finish or choose another directory. If no run is active (for example it"
              + " ran on another host and was killed), delete " + file);
        }
        // A killed run's lock: remove it and try again (a racing run may win the create).
        fs.delete(file, false);
      } catch (IOException e) {
        throw UserPaths.environment(e, "write", "--output", uri);
      }
    }
    throw new InvalidInputException("Cannot write --output " + uri + ": its lock " + file
        + " keeps changing; another run is starting there, try again later");
  }

  /** Removes the lock file; best effort (a run that failed reports its own error). */
  void release() {
    try {
      fs.delete(file, false);
    } catch (IOException e) {
      // the next run finds a stale lock and takes it over
    }
  }

  private static boolean create(FileSystem fs, Path file, String content) throws IOException {
    byte[] bytes = content.getBytes(StandardCharsets.UTF_8);
    if ("file".equals(fs.getUri().getScheme())) {
      // O_EXCL: Hadoop's local create(overwrite=false) checks and creates in two steps.
      java.nio.file.Path local = UserPaths.localFile(file);
      try {
        Files.write(local, bytes, java.nio.file.StandardOpenOption.CREATE_NEW,
            java.nio.file.StandardOpenOption.WRITE);
        return true;
      } catch (FileAlreadyExistsException e) {
        return false;
      }
    }
    if (fs.exists(file)) {
      return false;
    }
    try (OutputStream out = fs.create(file, false)) {
      out.write(bytes);
      return true;
    } catch (org.apache.hadoop.fs.FileAlreadyExistsException e) {
      return false;
    }
  }

  private static String read(FileSystem fs, Path file) throws IOException {
    try (InputStream in = fs.open(file)) {
      byte[] b = in.readNBytes(4096);
      return new String(b, StandardCharsets.UTF_8);
    } catch (java.io.FileNotFoundException | java.nio.file.NoSuchFileException e) {
      return null;
    }
  }

  static String describeSelf() {
    ProcessHandle self = ProcessHandle.current();
    return "pid=" + self.pid() + "\nhost=" + host() + "\nstarted="
        + self.info().startInstant().map(Instant::toString).orElse("?") + "\n";
  }

  private static Map<String, String> fields(String holder) {
    Map<String, String> m = new HashMap<>();
    for (String line : holder.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        m.put(line.substring(0, eq).trim(), line.substring(eq + 1).trim());
      }
    }
    return m;
  }

  private static boolean isSelf(String holder) {
    return describeSelf().trim().equals(holder.trim());
  }

  /**
   * A lock from this host whose process is gone, or whose pid now belongs to a process started
   * at another time, is stale; a lock from another host is never presumed stale.
   */
  static boolean isStale(String holder) {
    Map<String, String> f = fields(holder);
    if (!host().equals(f.get("host"))) {
      return false;
    }
    long pid;
    try {
      pid = Long.parseLong(f.getOrDefault("pid", ""));
    } catch (NumberFormatException e) {
      return false;
    }
    Optional<ProcessHandle> p = ProcessHandle.of(pid);
    if (p.isEmpty() || !p.get().isAlive()) {
      return true;
    }
    String started = f.get("started");
    String now = p.get().info().startInstant().map(Instant::toString).orElse("?");
    return started != null && !started.equals("?") && !now.equals("?") && !started.equals(now);
  }

  private static volatile String host;

  private static String host() {
    if (host == null) {
      try {
        host = java.net.InetAddress.getLocalHost().getHostName();
      } catch (IOException e) {
        host = "unknown-host";
      }
    }
    return host;
  }
}
