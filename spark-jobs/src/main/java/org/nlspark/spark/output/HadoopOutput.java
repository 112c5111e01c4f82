package org.nlspark.spark.output;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.UUID;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.OutputFormat;
import org.nlspark.core.result.Output;
import org.nlspark.spark.conf.TestHooks;
import org.nlspark.spark.io.HeapCheck;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.UserPaths;

/**
 * Output directories on any Hadoop file system (file:, hdfs:, gs:, s3a:, dbfs:), following
 * DESIGN §6; see {@link OutputDir}. Inputs are read by the {@code io} package.
 */
public final class HadoopOutput {
  private HadoopOutput() {}

  /**
   * An output directory being written (DESIGN §6). The directory itself is never renamed or
   * deleted (it may be a mount point): finished files go into it under temporary names
   * ({@code .nlspark-tmp-*}) and are renamed into place by {@link #commit}, following a journal
   * ({@link OutputJournal}) so that a run killed between two renames is completed by the next
   * run. With {@code overwrite}, exactly the files listed in the previous {@code summary.json}
   * ("outputs") are replaced; nothing else in the directory is touched. A lock file
   * ({@link OutputLock}) keeps two runs apart; {@link #preflight} takes it before the
   * computation.
   *
   * <p>Signals: the writer and the shutdown hook synchronize on this object, so the hook waits
   * for the file being written to be closed, then removes every temporary file; a commit in
   * progress is finished first. A run killed with SIGKILL leaves temporary files and a lock,
   * which the next run on the directory removes.
   */
  public static final class OutputDir implements AutoCloseable {
    private static final Map<String, Reservation> RESERVED = new HashMap<>();

    private final Reservation reservation;
    private final FileSystem fs;
    private final Path dir;
    private final String uri;
    private final boolean overwrite;
    private final Map<String, String> temps = new LinkedHashMap<>(); // final name -> temp name
    private final Map<String, Map<String, Object>> json = new LinkedHashMap<>();
    private int fileCount;
    private boolean committed;
    private boolean closed;
    private boolean aborted;

    private OutputDir(Reservation reservation, boolean overwrite) {
      this.reservation = reservation;
      this.fs = reservation.fs;
      this.dir = reservation.dir;
      this.uri = reservation.uri;
      this.overwrite = overwrite;
    }

    /**
     * The lock on an output directory taken by {@link #preflight}; {@link #open} in the same
     * process takes it over. Closing it (or the JVM exiting) releases it unless an open
     * OutputDir holds it.
     */
    public static final class Reservation implements AutoCloseable {
      final FileSystem fs;
      final Path dir;
      final String uri;
      final String key;
      final String runId = UUID.randomUUID().toString().substring(0, 8);
      final boolean createdDir;
      private final OutputLock lock;
      private OutputDir writer;
      private boolean released;
      private final Runnable hook = this::onShutdown;

      private Reservation(FileSystem fs, Path dir, String uri, String key, boolean createdDir,
          OutputLock lock) {
        this.fs = fs;
        this.dir = dir;
        this.uri = uri;
        this.key = key;
        this.createdDir = createdDir;
        this.lock = lock;
        // Runs first (before Spark stops and Hadoop closes its file systems): a signal stops
        // the writing at the next file boundary instead of after Spark's slower shutdown.
        org.apache.hadoop.util.ShutdownHookManager.get().addShutdownHook(hook,
            Integer.MAX_VALUE - 1);
      }

      /** The directory, fully qualified. */
      public String directory() {
        return dir.toString();
      }

      private void onShutdown() {
        OutputDir w;
        synchronized (RESERVED) {
          w = writer;
        }
        if (w != null) {
          w.abort(); // waits for the file being written, then removes the temporaries
        }
        release();
      }

      /** Releases the lock unless an OutputDir took it over; idempotent. */
      @Override
      public void close() {
        synchronized (RESERVED) {
          if (writer != null) {
            return;
          }
        }
        release();
      }

      void release() {
        synchronized (RESERVED) {
          if (released) {
            return;
          }
          released = true;
          RESERVED.remove(key);
        }
        try {
          org.apache.hadoop.util.ShutdownHookManager.get().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
          // shutdown in progress: this hook is what is running
        }
        lock.release();
        if (createdDir) {
          try {
            if (fs.listStatus(dir).length == 0) {
              fs.delete(dir, false); // a directory this run created and never filled
            }
          } catch (IOException e) {
            // best effort
          }
        }
      }
    }

    /**
     * Checks an output directory before the computation and takes its lock: the path must be a
     * directory or creatable (nearest existing ancestor a directory); it must not be or contain
     * an input (real paths compared, so symlinks count); another live run must not hold it; a
     * run killed while committing there is completed and stale temporary files are removed;
     * without {@code overwrite} it must be empty; it must be writable; and on a local file
     * system it must have {@code expectedBytes} free (0 skips that check). Returns the lock;
     * {@link #open} in this process takes it over, and it is released at exit in any case.
     */
    public static Reservation preflight(Configuration conf, String uri, boolean overwrite,
        long expectedBytes, String... inputs) {
      Target t = Target.of(conf, uri, inputs);
      synchronized (RESERVED) {
        Reservation held = RESERVED.get(t.key);
        if (held != null) {
          if (held.writer != null) {
            throw new InvalidInputException("Cannot write --output " + uri + ": this process"
                + " is already writing there; wait for that write to finish");
          }
          checkContents(held.fs, held.dir, uri, overwrite);
          checkSpace(held.fs, held.dir, uri, expectedBytes);
          return held;
        }
      }
      boolean created = t.createIfMissing();
      OutputLock lock;
      try {
        lock = OutputLock.acquire(t.fs, t.dir, uri);
      } catch (RuntimeException e) {
        if (created) {
          deleteIfEmpty(t.fs, t.dir);
        }
        throw e;
      }
      Reservation r = new Reservation(t.fs, t.dir, uri, t.key, created, lock);
      synchronized (RESERVED) {
        RESERVED.put(t.key, r);
      }
      try {
        recover(t.fs, t.dir, uri);
        checkContents(t.fs, t.dir, uri, overwrite);
        checkSpace(t.fs, t.dir, uri, expectedBytes);
      } catch (RuntimeException e) {
        r.release();
        throw e;
      }
      return r;
    }

    /** Takes the directory (its lock taken now, or by an earlier {@link #preflight}). */
    public static OutputDir open(Configuration conf, String uri, boolean overwrite) {
      Reservation r = preflight(conf, uri, overwrite, 0);
      synchronized (RESERVED) {
        OutputDir d = new OutputDir(r, overwrite);
        r.writer = d;
        return d;
      }
    }

    /**
     * Without overwrite the directory must hold nothing but nlspark's own bookkeeping. With
     * overwrite, a summary.json or report.html there must be nlspark's: a summary.json without
     * {@link OutputFormat}'s mark is another tool's (every run writes summary.json, so the run
     * is refused now rather than after its computation), and report.html is nlspark's only
     * beside a summary.json that is. {@link #commit} checks every other name it writes.
     */
    private static void checkContents(FileSystem fs, Path dir, String uri, boolean overwrite) {
      if (overwrite) {
        try {
          PreviousRun previous = PreviousRun.of(fs, dir);
          if (previous.foreignSummary) {
            throw new InvalidInputException("Cannot write --output " + uri + ": summary.json"
                + " there was not written by nlspark (it lacks \"" + OutputFormat.KEY + "\"), so"
                + " --overwrite replaces nothing in that directory; move summary.json away or"
                + " choose another directory");
          }
          Path report = new Path(dir, org.nlspark.report.Report.FILE);
          if (previous.listed == null && fs.exists(report)) {
            throw notListed(uri, org.nlspark.report.Report.FILE);
          }
        } catch (IOException e) {
          throw UserPaths.environment(e, "check", "--output", uri);
        }
        return;
      }
      try {
        for (FileStatus s : fs.listStatus(dir)) {
          if (!s.getPath().getName().startsWith(OutputDirNames.OWN_PREFIX)) {
            throw new InvalidInputException("Cannot write --output " + uri + ": the directory"
                + " exists and is not empty; choose another directory or pass --overwrite");
          }
        }
      } catch (IOException e) {
        throw UserPaths.environment(e, "check", "--output", uri);
      }
    }

    private static void checkSpace(FileSystem fs, Path dir, String uri, long expectedBytes) {
      if (expectedBytes <= 0 || !"file".equals(fs.getUri().getScheme())) {
        return;
      }
      long usable;
      try {
        usable = java.nio.file.Files.getFileStore(UserPaths.localFile(dir)).getUsableSpace();
      } catch (IOException e) {
        return; // no answer from the file system: the write itself will tell
      }
      if (usable < expectedBytes) {
        throw new ResourceRefusedException("Cannot write --output " + uri + ": the results need"
            + " about " + HeapCheck.format(expectedBytes) + " but its file system has "
            + HeapCheck.format(usable)
            + " free; free space or choose another directory");
      }
    }

    /** Completes a commit a killed run left half done, and removes stale temporary files. */
    private static void recover(FileSystem fs, Path dir, String uri) {
      try {
        OutputJournal journal = OutputJournal.read(fs, dir, uri);
        if (journal != null) {
          journal.recover(fs, dir);
        }
        // without a journal no commit is under way: an old result set aside is a leftover
        for (FileStatus s : fs.listStatus(dir)) {
          String name = s.getPath().getName();
          if (name.startsWith(OutputDirNames.TEMP_PREFIX)
              || name.startsWith(OutputDirNames.OLD_PREFIX)) {
            fs.delete(s.getPath(), true);
          }
        }
      } catch (IOException e) {
        throw UserPaths.environment(e, "recover", "--output", uri);
      }
    }

    private static void deleteIfEmpty(FileSystem fs, Path dir) {
      try {
        if (fs.listStatus(dir).length == 0) {
          fs.delete(dir, false);
        }
      } catch (IOException e) {
        // best effort
      }
    }

    public void writeNpy(Output output) {
      writeNpy(output.name() + ".npy", output.shape(), output.values());
    }

    public synchronized void writeNpy(String fileName, long[] shape, double[] values) {
      boolean first = fileCount == 0;
      writeStream(fileName, out -> {
        if (first) {
          pause("first-write");
        }
        NpyWriter.writeFloat64(out, shape, values);
      });
    }

    /**
     * Writes a float32 NIfTI map ({@link org.nlspark.core.io.nifti.NiftiWriter#writeMap}) under
     * the same temporary-name, journal and overwrite rules as the .npy files.
     */
    public void writeNiftiMap(String fileName, org.nlspark.core.io.nifti.NiftiMask mask,
        float[] values, float outside) {
      writeStream(fileName,
          out -> org.nlspark.core.io.nifti.NiftiWriter.writeMap(out, mask, values, outside));
    }

    /** Writes the mask as a uint8 NIfTI image, like {@link #writeNiftiMap}. */
    public void writeNiftiMask(String fileName, org.nlspark.core.io.nifti.NiftiMask mask) {
      writeStream(fileName, out -> org.nlspark.core.io.nifti.NiftiWriter.writeMask(out, mask));
    }

    /** Writes bytes as they are (a list file, a text), like {@link #writeNiftiMap}. */
    public void writeBytes(String fileName, byte[] bytes) {
      writeStream(fileName, out -> out.write(bytes));
    }

    /** Writes a file by {@code body} under a temporary name, like {@link #writeBytes}. */
    public void writeWith(String fileName, AtomicFile.Body body) {
      writeStream(fileName, body);
    }

    /** Copies a local file as it is, streamed (a map may pass 2 GiB), like {@link #writeBytes}. */
    public void writeFile(String fileName, java.nio.file.Path source) {
      writeStream(fileName, out -> java.nio.file.Files.copy(source, out));
    }

    /** Writes one file under a temporary name ({@link AtomicFile}); {@link #commit} renames it. */
    private synchronized void writeStream(String fileName, AtomicFile.Body body) {
      Path temp = newTemp(fileName);
      try {
        AtomicFile.writeTemp(fs, temp, body);
      } catch (IOException e) {
        throw failedWrite(temp, fileName, e);
      }
    }

    /** Kept until {@link #commit}, where summary.json gains the list of files written. */
    public synchronized void writeJson(String fileName, Map<String, Object> value) {
      checkWritable(fileName);
      json.put(fileName, new LinkedHashMap<>(value));
    }

    private Path newTemp(String fileName) {
      checkWritable(fileName);
      String temp = OutputDirNames.TEMP_PREFIX + reservation.runId + "-" + (fileCount++);
      temps.put(fileName, temp);
      return new Path(dir, temp);
    }

    private void checkWritable(String fileName) {
      if (aborted) {
        throw new IllegalStateException("Cannot write " + fileName + ": the run is stopping");
      }
      if (committed || closed) {
        throw new IllegalStateException("[BUG] Cannot write " + fileName + " to " + uri
            + " after commit or close");
      }
      if (!OutputDirNames.isSafeRelative(fileName)
          || fileName.startsWith(OutputDirNames.OWN_PREFIX)) {
        throw new IllegalArgumentException("[BUG] output name must be a plain relative name,"
            + " but was: " + fileName);
      }
      if (temps.containsKey(fileName) || json.containsKey(fileName)) {
        throw new IllegalArgumentException("[BUG] " + fileName + " written twice");
      }
    }

    private RuntimeException failedWrite(Path temp, String fileName, IOException e) {
      try {
        fs.delete(temp, false);
      } catch (IOException ignored) {
        // the close() that follows removes it
      }
      RuntimeException r = UserPaths.environment(e, "write", "--output",
          uri + " (" + fileName + ")");
      if (r instanceof UncheckedIOException) {
        return r;
      }
      String m = r.getMessage() + "; the directory keeps its previous contents";
      return r instanceof ResourceRefusedException ? new ResourceRefusedException(m, e)
          : new InvalidInputException(m, e);
    }

    /**
     * Puts every file in place: writes summary.json (with "outputs", the files of this run),
     * decides which old files go (with overwrite, those the previous summary.json lists),
     * records the renames in the journal, then performs them. On failure the old files are put
     * back. Returns the directory written.
     */
    public synchronized String commit() {
      if (aborted) {
        throw new IllegalStateException("Cannot write --output " + uri + ": the run is stopping");
      }
      if (committed) {
        return dir.toString();
      }
      TreeSet<String> finals = new TreeSet<>(temps.keySet());
      finals.addAll(json.keySet());
      for (Map.Entry<String, Map<String, Object>> e : json.entrySet()) {
        Map<String, Object> value = e.getValue();
        if (e.getKey().equals("summary.json")) {
          value.put("outputs", new ArrayList<>(finals));
          value = OutputFormat.marked(value); // how a later run knows the directory is nlspark's
        }
        Path temp = newTempForJson(e.getKey());
        byte[] text = (Json.write(value) + "\n").getBytes(StandardCharsets.UTF_8);
        try {
          AtomicFile.writeTemp(fs, temp, out -> out.write(text));
        } catch (IOException ex) {
          throw failedWrite(temp, e.getKey(), ex);
        }
      }
      OutputJournal journal = new OutputJournal();
      try {
        List<String> old = oldFiles();
        for (String name : finals) {
          Path p = new Path(dir, name);
          if (!old.contains(name) && fs.exists(p)) {
            throw fs.getFileStatus(p).isFile() ? notListed(uri, name) : notAFile(uri, name);
          }
        }
        int i = 0;
        for (String name : old) {
          journal.old.add(new OutputJournal.Move(name,
              OutputDirNames.OLD_PREFIX + reservation.runId + "-" + (i++)));
        }
        for (Map.Entry<String, String> e : temps.entrySet()) {
          journal.fresh.add(new OutputJournal.Move(e.getValue(), e.getKey()));
        }
        journal.write(fs, dir, reservation.runId);
      } catch (IOException e) {
        throw failedWrite(new Path(dir, OutputJournal.NAME + ".none"), OutputJournal.NAME, e);
      } catch (org.apache.hadoop.fs.FSError e) {
        throw failedWrite(new Path(dir, OutputJournal.NAME + ".none"), OutputJournal.NAME,
            UserPaths.ioCause(e));
      }
      try {
        journal.complete(fs, dir, () -> pause("between-renames"));
      } catch (IOException e) {
        try {
          journal.rollBack(fs, dir);
        } catch (IOException again) {
          e.addSuppressed(again); // the journal stays: the next run finishes the repair
        }
        throw failedWrite(new Path(dir, OutputJournal.NAME + ".none"), "the results", e);
      }
      committed = true;
      synchronized (RESERVED) {
        reservation.writer = null;
      }
      reservation.release();
      return dir.toString();
    }

    private Path newTempForJson(String fileName) {
      String temp = OutputDirNames.TEMP_PREFIX + reservation.runId + "-" + (fileCount++);
      temps.put(fileName, temp);
      return new Path(dir, temp);
    }

    /**
     * The files an earlier run left that this one may replace: with overwrite, those listed
     * under "outputs" (or "files") by a summary.json nlspark wrote ({@link OutputFormat}), plus
     * that summary.json; nothing when there is no such summary. Only regular files, named
     * inside the directory, that exist now.
     */
    private List<String> oldFiles() throws IOException {
      if (!overwrite) {
        return List.of();
      }
      List<String> listed = PreviousRun.of(fs, dir).listed;
      List<String> old = new ArrayList<>();
      if (listed == null) {
        return old;
      }
      for (String name : new TreeSet<>(listed)) {
        if (OutputDirNames.isSafeRelative(name) && !name.startsWith(OutputDirNames.OWN_PREFIX)) {
          Path p = new Path(dir, name);
          if (fs.exists(p) && fs.getFileStatus(p).isFile()) {
            old.add(name);
          }
        }
      }
      return old;
    }

    private static InvalidInputException notListed(String uri, String name) {
      return new InvalidInputException("Cannot write --output " + uri + ": " + name
          + " exists there and no earlier nlspark run listed it in a summary.json nlspark"
          + " wrote, so --overwrite does not replace it; move it away or choose another"
          + " directory");
    }

    private static InvalidInputException notAFile(String uri, String name) {
      return new InvalidInputException("Cannot write --output " + uri + ": " + name
          + " there is a directory (or another non-file), which --overwrite does not replace;"
          + " move it away or choose another directory");
    }

    public String target() {
      return dir.toString();
    }

    /** Called by the shutdown hook: waits for the current file, then removes temporaries. */
    synchronized void abort() {
      if (committed || closed) {
        return;
      }
      aborted = true;
      deleteTemps();
    }

    private void deleteTemps() {
      for (String temp : temps.values()) {
        try {
          fs.delete(new Path(dir, temp), false);
        } catch (IOException e) {
          // best effort: the next run on this directory removes stale temporaries
        }
      }
    }

    /** Without a commit, removes this run's temporary files; releases the lock. Idempotent. */
    @Override
    public synchronized void close() {
      if (!committed && !closed) {
        deleteTemps();
      }
      closed = true;
      synchronized (RESERVED) {
        reservation.writer = null;
      }
      reservation.release();
    }

    /** The test hook ({@link TestHooks#pauseAt}): first-write, between-renames. */
    static void pause(String point) {
      TestHooks.pauseAt(point);
    }
  }

  /**
   * What an output directory's summary.json says of the run that wrote it: {@code listed} the
   * files a summary nlspark wrote names (itself included), null without one; {@code
   * foreignSummary} when a summary.json is there but is not nlspark's (unreadable, not JSON,
   * or without {@link OutputFormat}'s mark).
   */
  static final class PreviousRun {
    final List<String> listed;
    final boolean foreignSummary;

    private PreviousRun(List<String> listed, boolean foreignSummary) {
      this.listed = listed;
      this.foreignSummary = foreignSummary;
    }

    static PreviousRun of(FileSystem fs, Path dir) throws IOException {
      Path summary = new Path(dir, "summary.json");
      if (!fs.exists(summary)) {
        return new PreviousRun(null, false);
      }
      FileStatus status = fs.getFileStatus(summary);
      if (!status.isFile() || status.getLen() >= (16 << 20)
          || (UserPaths.isLocal(fs.makeQualified(summary))
              && !java.nio.file.Files.isRegularFile(UserPaths.localFile(fs.makeQualified(summary))))) {
        return new PreviousRun(null, true);
      }
      Object parsed;
      try (FSDataInputStream in = fs.open(summary)) {
        parsed = Json.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
      } catch (RuntimeException e) {
        return new PreviousRun(null, true);
      }
      if (!OutputFormat.isNlsparks(parsed)) {
        return new PreviousRun(null, true);
      }
      Object list = ((Map<?, ?>) parsed).get("outputs");
      if (!(list instanceof List)) {
        list = ((Map<?, ?>) parsed).get("files");
      }
      List<String> listed = new ArrayList<>();
      if (list instanceof List) {
        for (Object o : (List<?>) list) {
          listed.add(String.valueOf(o));
        }
      }
      listed.add("summary.json");
      // the report beside nlspark's summary is nlspark's (written after the commit, so never
      // listed): it goes with the files it describes, never left beside newer ones
      listed.add(org.nlspark.report.Report.FILE);
      return new PreviousRun(listed, false);
    }
  }

  /** An output path resolved: its file system, qualified directory and real-path checks. */
  private static final class Target {
    final FileSystem fs;
    final Path dir;
    final String uri;
    final String key;

    private Target(FileSystem fs, Path dir, String uri) {
      this.fs = fs;
      this.dir = dir;
      this.uri = uri;
      this.key = dir.toString();
    }

    static Target of(Configuration conf, String uri, String... inputs) {
      Path path = UserPaths.toPath(uri, "--output");
      FileSystem fs = NpyInputs.withoutChecksums(
          UserPaths.fileSystem(path, conf, "--output", uri));
      Path qualified = fs.makeQualified(path);
      if (qualified.getParent() == null) {
        throw new InvalidInputException("Cannot write --output " + uri
            + ": it is a file system root; choose a sub-directory");
      }
      Target t = new Target(fs, qualified, uri);
      t.checkPathItself();
      refuseOverlap(conf, t, inputs);
      return t;
    }

    /** A symlink loop or a file at the output path is the user's to fix. */
    private void checkPathItself() {
      try {
        if (UserPaths.isLocal(dir)) {
          java.nio.file.Path local = UserPaths.localFile(dir);
          try {
            java.nio.file.attribute.BasicFileAttributes a = java.nio.file.Files.readAttributes(
                local, java.nio.file.attribute.BasicFileAttributes.class);
            if (!a.isDirectory()) {
              throw new InvalidInputException("Cannot write --output " + uri
                  + ": it exists and is " + (a.isRegularFile() ? "a file" : "not a directory")
                  + "; choose a directory path");
            }
          } catch (java.nio.file.NoSuchFileException e) {
            if (java.nio.file.Files.isSymbolicLink(local)) {
              throw new InvalidInputException("Cannot write --output " + uri + ": it is a"
                  + " symbolic link to a directory that does not exist; create it or fix the"
                  + " link");
            }
          } catch (java.nio.file.FileSystemException e) {
            if (String.valueOf(e.getReason()).contains("Not a directory")) {
              checkAncestor(); // names the file in the way
            }
            throw e;
          }
          return;
        }
        if (fs.exists(dir) && !fs.getFileStatus(dir).isDirectory()) {
          throw new InvalidInputException("Cannot write --output " + uri
              + ": it exists and is a file; choose a directory path");
        }
      } catch (IOException e) {
        throw UserPaths.environment(e, "write", "--output", uri);
      }
    }

    void checkAncestor() throws IOException {
      for (Path p = dir.getParent(); p != null; p = p.getParent()) {
        if (fs.exists(p)) {
          if (!fs.getFileStatus(p).isDirectory()) {
            throw new InvalidInputException("Cannot write --output " + uri + ": " + p
                + " is a file, not a directory; choose another path");
          }
          return;
        }
      }
    }

    /** Creates the directory when missing; true when this call created it. */
    boolean createIfMissing() {
      try {
        if (fs.exists(dir)) {
          return false;
        }
        checkAncestor();
        if (UserPaths.isLocal(dir)) {
          // nio says why (read-only, permission); Hadoop's local mkdirs only returns false
          java.nio.file.Files.createDirectories(UserPaths.localFile(dir));
        } else if (!fs.mkdirs(dir)) {
          throw new IOException("cannot create the directory");
        }
        return true;
      } catch (IOException e) {
        throw UserPaths.environment(e, "write", "--output", uri);
      }
    }

    /**
     * The output directory must not be or contain an input: --overwrite replaces files in it.
     * Compared on real paths (symlinks resolved) and on the paths as given, so a symlink to an
     * input inside the directory, or a link inside it to an input elsewhere, are both caught.
     */
    private static void refuseOverlap(Configuration conf, Target t, String... inputs) {
      List<String> targets = forms(t.fs, t.dir);
      for (String in : inputs) {
        if (in == null || in.isBlank()) {
          continue;
        }
        Path p;
        FileSystem inFs;
        try {
          p = UserPaths.toPath(in, "--input");
          inFs = p.getFileSystem(conf);
        } catch (RuntimeException | IOException e) {
          continue; // reported against its own flag when it is read
        }
        Path q = inFs.makeQualified(p);
        for (String s : forms(inFs, q)) {
          for (String target : targets) {
            if (s.equals(target) || s.startsWith(target + "/")) {
              throw new InvalidInputException("Cannot write --output " + t.uri + ": it is or"
                  + " contains the input " + in + " (" + s + "), and nlspark writes and"
                  + " replaces files there; choose a separate directory");
            }
          }
        }
      }
    }

    /** A path as given (qualified) and, on the local file system, with symlinks resolved. */
    private static List<String> forms(FileSystem fs, Path qualified) {
      List<String> out = new ArrayList<>();
      out.add(qualified.toUri().normalize().toString().replaceAll("/+$", ""));
      if (UserPaths.isLocal(qualified)) {
        java.nio.file.Path local = UserPaths.localFile(qualified).toAbsolutePath().normalize();
        out.add("file:" + realPath(local));
      }
      return out;
    }

    /** The real path of the nearest existing ancestor, plus the components not yet there. */
    static String realPath(java.nio.file.Path p) {
      java.nio.file.Path rest = null;
      for (java.nio.file.Path cur = p; cur != null; cur = cur.getParent()) {
        try {
          java.nio.file.Path real = cur.toRealPath();
          return (rest == null ? real : real.resolve(rest)).toString().replaceAll("/+$", "");
        } catch (IOException e) {
          java.nio.file.Path name = cur.getFileName();
          if (name == null) {
            break;
          }
          rest = rest == null ? name : name.resolve(rest);
        }
      }
      return p.toString();
    }
  }
}
