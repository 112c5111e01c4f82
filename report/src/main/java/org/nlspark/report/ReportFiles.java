package org.nlspark.report;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * The files of a finished output directory, on whatever file system holds it: the report reads
 * through this so that core's readers work on local and Hadoop directories alike.
 */
public interface ReportFiles {
  /** The directory, as the user named it (for messages and the page's header). */
  String location();

  /**
   * The bytes of {@code name} (relative to the directory, '/'-separated), or null when it does
   * not exist.
   */
  byte[] read(String name) throws IOException;

  /** The bytes of a path named inside summary.json (absolute, or relative to the directory). */
  byte[] readPath(String path) throws IOException;

  /** The names of the directory's immediate sub-directories, sorted. */
  java.util.List<String> subdirectories() throws IOException;

  /** A local directory. */
  static ReportFiles of(Path dir) {
    return new ReportFiles() {
      @Override
      public String location() {
        return dir.toString();
      }

      @Override
      public byte[] read(String name) throws IOException {
        Path p = dir.resolve(name);
        try {
          return Files.isRegularFile(p) ? Files.readAllBytes(p) : null;
        } catch (NoSuchFileException e) {
          return null;
        }
      }

      @Override
      public byte[] readPath(String path) throws IOException {
        String local = path.startsWith("file:") ? java.net.URI.create(path).getPath() : path;
        Path p = dir.resolve(local);
        if (!Files.isRegularFile(p)) {
          throw new NoSuchFileException(p.toString());
        }
        return Files.readAllBytes(p);
      }

      @Override
      public java.util.List<String> subdirectories() throws IOException {
        if (!Files.isDirectory(dir)) {
          return java.util.List.of();
        }
        try (java.util.stream.Stream<Path> entries = Files.list(dir)) {
          return entries.filter(Files::isDirectory).map(e -> e.getFileName().toString())
              .sorted().toList();
        }
      }
    };
  }
}
