package org.nlspark.spark.output;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.hadoop.conf.Configuration;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.OutputFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.spark.output.HadoopOutput.OutputDir;

/**
 * The output directory protocol (DESIGN §6): files put in place inside the directory (never the
 * directory replaced), --overwrite limited to the files the previous summary.json lists, the
 * journal completing a killed commit, stale temporaries and locks of killed runs removed.
 * Each state is compared file by file against what the protocol promises.
 */
class OutputDirTest {
  @TempDir Path tmp;
  final Configuration conf = new Configuration();

  static List<String> names(Path dir) throws IOException {
    try (Stream<Path> s = Files.walk(dir)) {
      return s.filter(Files::isRegularFile).map(p -> dir.relativize(p).toString()).sorted()
          .collect(Collectors.toList());
    }
  }

  static double[] values(Path p) {
    return NpyReader.read(p, 0).data();
  }

  /** One run: writes the named outputs with value {@code v} and a summary.json. */
  String run(Path out, boolean overwrite, double v, String... outputs) {
    try (OutputDir d = OutputDir.open(conf, out.toString(), overwrite)) {
      for (String name : outputs) {
        d.writeNpy(name, new long[] {3}, new double[] {v, v, v});
      }
      d.writeJson("summary.json", Map.of("command", "test", "run", v));
      return d.commit();
    }
  }

  @Test
  @SuppressWarnings("unchecked")
  void aNewDirectoryGetsEveryFileAndSummaryListsThem() throws IOException {
    Path out = tmp.resolve("new/out");
    String written = run(out, false, 1, "observed.npy", "p.npy");
    assertThat(written).endsWith("new/out");
    assertThat(names(out)).containsExactly("observed.npy", "p.npy", "summary.json");
    assertThat(values(out.resolve("p.npy"))).containsExactly(1, 1, 1);
    Map<?, ?> summary = (Map<?, ?>) Json.parse(Files.readString(out.resolve("summary.json")));
    assertThat((List<Object>) summary.get("outputs"))
        .containsExactly("observed.npy", "p.npy", "summary.json");
  }

  /**
   * The report beside an earlier result goes with it in the commit (the new one is written
   * after), so a run stopped before its report never leaves the old page describing new maps;
   * a report.html without nlspark's summary stays the user's and is refused.
   */
  @Test
  void anEarlierReportGoesWithTheFilesItDescribed() throws IOException {
    Path out = tmp.resolve("report");
    run(out, false, 1, "p.npy", "tfce.npy");
    Files.writeString(out.resolve("report.html"), "<p>run 1</p>");
    run(out, true, 2, "p.npy");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
    Path users = Files.createDirectories(tmp.resolve("users"));
    Files.writeString(users.resolve("report.html"), "<p>mine</p>");
    assertThatThrownBy(() -> run(users, true, 3, "p.npy"))
        .isInstanceOf(InvalidInputException.class);
    assertThat(Files.readString(users.resolve("report.html"))).isEqualTo("<p>mine</p>");
  }

  @Test
  void anExistingEmptyDirectoryIsFilledInPlaceNeverReplaced() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("mount"));
    Object inode = Files.getAttribute(out, "unix:ino");
    run(out, false, 1, "p.npy");
    assertThat(Files.getAttribute(out, "unix:ino")).isEqualTo(inode);
    run(out, true, 2, "p.npy");
    assertThat(Files.getAttribute(out, "unix:ino")).isEqualTo(inode);
    assertThat(values(out.resolve("p.npy"))).containsExactly(2, 2, 2);
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void aNonEmptyDirectoryWithoutOverwriteIsRefusedBeforeAnyWork() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Files.writeString(out.resolve("notes.txt"), "mine");
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), false, 0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("not empty")
        .hasMessageContaining("--overwrite");
    assertThat(names(out)).containsExactly("notes.txt");
  }

  @Test
  void overwriteReplacesExactlyTheListedFilesAndNothingElse() throws IOException {
    Path out = tmp.resolve("out");
    run(out, false, 1, "observed.npy", "p.npy", "samples.npy");
    Files.writeString(out.resolve("notes.txt"), "mine");
    Files.createDirectories(out.resolve("sub"));
    Files.writeString(out.resolve("sub/z.npy"), "mine too");
    run(out, true, 2, "observed.npy", "p.npy");
    // samples.npy was the previous run's: stale output must not survive
    assertThat(names(out)).containsExactly("notes.txt", "observed.npy", "p.npy", "sub/z.npy",
        "summary.json");
    assertThat(out.resolve("notes.txt")).hasContent("mine");
    assertThat(out.resolve("sub/z.npy")).hasContent("mine too");
    assertThat(values(out.resolve("observed.npy"))).containsExactly(2, 2, 2);
  }

  static final String MARK = "\"" + OutputFormat.KEY + "\": 1, ";

  @Test
  void theSummaryCarriesNlsparksMarkAsItsFirstKey() throws IOException {
    Path out = tmp.resolve("out");
    run(out, false, 1, "p.npy");
    assertThat(Files.readString(out.resolve("summary.json")))
        .startsWith("{\n  \"nlspark_output_format\": 1,\n  \"");
  }

  @Test
  void aSummaryWithoutNlsparksMarkIsTheUsersAndOverwriteIsRefusedBeforeAnyWork()
      throws IOException {
    // another tool's summary.json, or one without the mark: nothing it lists is nlspark's
    Path out = Files.createDirectory(tmp.resolve("u"));
    Files.writeString(out.resolve("summary.json"), "{\"my\": 1, \"outputs\": [\"p.npy\"]}");
    Files.writeString(out.resolve("p.npy"), "mine");
    Files.writeString(out.resolve("report.html"), "mine");
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), true, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write --output " + out + ": summary.json there was not written by"
            + " nlspark (it lacks \"nlspark_output_format\"), so --overwrite replaces nothing in"
            + " that directory; move summary.json away or choose another directory");
    assertThat(names(out)).containsExactly("p.npy", "report.html", "summary.json");
    assertThat(out.resolve("p.npy")).hasContent("mine");
    assertThat(out.resolve("summary.json")).hasContent("{\"my\": 1, \"outputs\": [\"p.npy\"]}");
  }

  @Test
  void withoutASummaryOverwriteReplacesNoneOfTheUsersFiles() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("u"));
    Files.writeString(out.resolve("p.npy"), "mine");
    assertThatThrownBy(() -> run(out, true, 2, "observed.npy", "p.npy"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot write --output " + out + ": p.npy exists there and no earlier"
            + " nlspark run listed it in a summary.json nlspark wrote, so --overwrite does not"
            + " replace it; move it away or choose another directory");
    assertThat(names(out)).containsExactly("p.npy");
    assertThat(out.resolve("p.npy")).hasContent("mine");
    // the user's report.html is refused before any work, also through a symlinked directory
    Files.delete(out.resolve("p.npy"));
    Files.writeString(out.resolve("report.html"), "mine");
    Path link = Files.createSymbolicLink(tmp.resolve("link"), out);
    assertThatThrownBy(() -> OutputDir.preflight(conf, link.toString(), true, 0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(": report.html exists there and no earlier nlspark run listed it");
    assertThat(names(out)).containsExactly("report.html");
  }

  @Test
  void aMarkedSummaryWithoutAListLetsOnlyItselfBeReplaced() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Files.writeString(out.resolve("summary.json"), "{" + MARK + "\"command\": \"old\"}");
    Files.writeString(out.resolve("z.npy"), "old z");
    Files.writeString(out.resolve("my.npy"), "mine");
    run(out, true, 2, "p.npy");
    assertThat(names(out)).containsExactly("my.npy", "p.npy", "summary.json", "z.npy");
    assertThatThrownBy(() -> run(out, true, 3, "z.npy"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining(": z.npy exists there");
  }

  @Test
  void namesInAHostileSummaryOutsideTheDirectoryAreIgnored() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Path victim = Files.writeString(tmp.resolve("victim.txt"), "keep");
    Files.writeString(out.resolve("summary.json"), "{" + MARK + "\"outputs\": [\"../victim.txt\", \""
        + victim + "\", \".nlspark-lock\", \"summary.json\"]}");
    run(out, true, 2, "p.npy");
    assertThat(victim).hasContent("keep");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void anUnlistedFileWithAnOutputNameIsNotReplaced() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Files.writeString(out.resolve("summary.json"), "{" + MARK + "\"outputs\": [\"summary.json\"]}");
    Files.writeString(out.resolve("p.npy"), "user's own p");
    assertThatThrownBy(() -> run(out, true, 2, "p.npy"))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("p.npy exists");
    assertThat(out.resolve("p.npy")).hasContent("user's own p");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
    assertThat(Files.readString(out.resolve("summary.json"))).contains("\"summary.json\"");
  }

  @Test
  void closeWithoutCommitRemovesTemporariesLockAndTheDirectoryItMade() throws IOException {
    Path out = tmp.resolve("fresh");
    try (OutputDir d = OutputDir.open(conf, out.toString(), false)) {
      d.writeNpy("p.npy", new long[] {1}, new double[] {1});
      assertThat(out.resolve(OutputLock.NAME)).exists();
    }
    assertThat(out).doesNotExist();
    Path existing = Files.createDirectory(tmp.resolve("existing"));
    try (OutputDir d = OutputDir.open(conf, existing.toString(), false)) {
      d.writeNpy("p.npy", new long[] {1}, new double[] {1});
    }
    assertThat(existing).isEmptyDirectory();
  }

  @Test
  void staleTemporariesAndALockOfADeadProcessAreRemovedByTheNextRun() throws Exception {
    Path out = tmp.resolve("out");
    run(out, false, 1, "p.npy");
    Files.writeString(out.resolve(".nlspark-tmp-deadbeef-0"), "half a file");
    Process p = new ProcessBuilder("true").start();
    p.waitFor();
    Files.writeString(out.resolve(OutputLock.NAME), OutputLock.describeSelf()
        .replace("pid=" + ProcessHandle.current().pid(), "pid=" + p.pid()));
    run(out, true, 2, "p.npy");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void anOldResultSetAsideWithoutAJournalIsALeftoverTheNextRunRemoves() throws IOException {
    // what a copy-and-delete rename used to leave when the delete was refused
    Path out = tmp.resolve("out");
    run(out, false, 1, "p.npy");
    Files.writeString(out.resolve(".nlspark-old-deadbeef-0"), "a copy of p.npy");
    run(out, true, 2, "p.npy");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void aLockOfALiveProcessRefusesBeforeTheComputation() throws Exception {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Process sleeper = new ProcessBuilder("sleep", "60").start();
    try {
      String started = sleeper.info().startInstant().map(Object::toString).orElse("?");
      String self = OutputLock.describeSelf();
      String lock = self.replace("pid=" + ProcessHandle.current().pid(), "pid=" + sleeper.pid())
          .replaceAll("started=.*", "started=" + started);
      Files.writeString(out.resolve(OutputLock.NAME), lock);
      assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), true, 0))
          .isInstanceOf(InvalidInputException.class).hasMessageContaining("pid=" + sleeper.pid());
      assertThat(out.resolve(OutputLock.NAME)).hasContent(lock);
    } finally {
      sleeper.destroy();
    }
  }

  @Test
  void preflightHoldsTheLockUntilTheWriterCommits() throws IOException {
    Path out = tmp.resolve("out");
    try (OutputDir.Reservation r = OutputDir.preflight(conf, out.toString(), false, 1000)) {
      assertThat(out.resolve(OutputLock.NAME)).exists();
      run(out, false, 1, "p.npy");
      assertThat(out.resolve(OutputLock.NAME)).doesNotExist();
    }
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void preflightRefusesWhenTheFileSystemHasNotRoomForTheResults() throws IOException {
    Path out = tmp.resolve("out");
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), false, Long.MAX_VALUE / 4))
        .isInstanceOf(ResourceRefusedException.class).hasMessageContaining("free");
    assertThat(out).doesNotExist();
  }

  @Test
  void aCommitKilledAfterMovingOldFilesAsideIsCompletedByTheNextRun() throws IOException {
    Path out = tmp.resolve("out");
    run(out, false, 1, "observed.npy", "p.npy");
    // the state a kill -9 leaves between two renames: old files aside, one new file in place
    Files.move(out.resolve("observed.npy"), out.resolve(".nlspark-old-r1-0"));
    Files.move(out.resolve("p.npy"), out.resolve(".nlspark-old-r1-1"));
    Files.move(out.resolve("summary.json"), out.resolve(".nlspark-old-r1-2"));
    writeNpy(out.resolve("observed.npy"), 7); // renamed already
    writeNpy(out.resolve(".nlspark-tmp-r1-1"), 7);
    Files.writeString(out.resolve(".nlspark-tmp-r1-2"), "{" + MARK + "\"outputs\": [\"observed.npy\","
        + " \"p.npy\", \"summary.json\"]}");
    Files.writeString(out.resolve(OutputJournal.NAME), "nlspark-journal 1\n"
        + "new\t.nlspark-tmp-r1-0\tobserved.npy\nnew\t.nlspark-tmp-r1-1\tp.npy\n"
        + "new\t.nlspark-tmp-r1-2\tsummary.json\n"
        + "old\tobserved.npy\t.nlspark-old-r1-0\nold\tp.npy\t.nlspark-old-r1-1\n"
        + "old\tsummary.json\t.nlspark-old-r1-2\nend\n");
    OutputDir.preflight(conf, out.toString(), true, 0).close();
    assertThat(names(out)).containsExactly("observed.npy", "p.npy", "summary.json");
    assertThat(values(out.resolve("observed.npy"))).containsExactly(7, 7, 7);
    assertThat(values(out.resolve("p.npy"))).containsExactly(7, 7, 7);
  }

  @Test
  void aCommitKilledHalfwayWithANewFileLostIsRolledBack() throws IOException {
    Path out = tmp.resolve("out");
    run(out, false, 1, "observed.npy", "p.npy");
    Files.move(out.resolve("p.npy"), out.resolve(".nlspark-old-r1-0"));
    // new p.npy in place, new observed.npy gone (deleted by hand): cannot complete
    writeNpy(out.resolve("p.npy"), 7);
    Files.writeString(out.resolve(OutputJournal.NAME), "nlspark-journal 1\n"
        + "new\t.nlspark-tmp-r1-0\tp.npy\nnew\t.nlspark-tmp-r1-1\tobserved2.npy\n"
        + "old\tp.npy\t.nlspark-old-r1-0\nend\n");
    OutputDir.preflight(conf, out.toString(), true, 0).close();
    assertThat(names(out)).containsExactly("observed.npy", "p.npy", "summary.json");
    assertThat(values(out.resolve("p.npy"))).containsExactly(1, 1, 1);
  }

  @Test
  void aCorruptJournalIsReportedNotGuessed() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Files.writeString(out.resolve(OutputJournal.NAME), "nlspark-journal 1\nold\t../x\ty\nend\n");
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), true, 0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("journal");
    assertThat(out.resolve(OutputLock.NAME)).doesNotExist();
  }

  @Test
  void aSymlinkToAnInputInsideTheOutputIsCaught() throws IOException {
    Path out = Files.createDirectory(tmp.resolve("out"));
    Path input = writeNpy(out.resolve("x.npy"), 1);
    Path link = Files.createSymbolicLink(tmp.resolve("link.npy"), input);
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), true, 0,
        link.toString()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("contains the input");
    // and the output reached through a symlink to its parent
    Path outLink = Files.createSymbolicLink(tmp.resolve("outlink"), out);
    Path elsewhere = writeNpy(tmp.resolve("y.npy"), 1);
    Path inside = Files.createSymbolicLink(out.resolve("y.npy"), elsewhere);
    assertThatThrownBy(() -> OutputDir.preflight(conf, outLink.toString(), true, 0,
        out.resolve("x.npy").toString()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("contains the input");
    assertThatThrownBy(() -> OutputDir.preflight(conf, out.toString(), true, 0,
        inside.toString()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("contains the input");
    assertThat(input).exists();
  }

  @Test
  void aColonInTheOutputPathIsJustACharacter() throws IOException {
    Path out = tmp.resolve("run:1");
    run(out, false, 1, "p.npy");
    assertThat(names(out)).containsExactly("p.npy", "summary.json");
  }

  @Test
  void anOutputThatIsASymlinkLoopOrAFileIsAUsageError() throws IOException {
    Path loop = Files.createSymbolicLink(tmp.resolve("loop"), tmp.resolve("loop"));
    assertThatThrownBy(() -> OutputDir.preflight(conf, loop.toString(), true, 0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("symlink loop");
    Path file = Files.writeString(tmp.resolve("file"), "x");
    assertThatThrownBy(() -> OutputDir.open(conf, file.toString(), true))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("is a file");
  }

  @Test
  void anUnknownSchemeForTheOutputNamesTheScheme() {
    assertThatThrownBy(() -> OutputDir.preflight(conf, "nosuch://b/out", false, 0))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("--output")
        .hasMessageContaining("'nosuch'");
  }

  @Test
  void anInputWithAnUnknownSchemeIsNotBlamedOnTheOutput() {
    OutputDir.preflight(conf, tmp.resolve("o").toString(), false, 0, "nosuch://b/x.npy").close();
  }

  static Path writeNpy(Path p, double v) {
    org.nlspark.core.io.NpyWriter.writeFloat64(p, new long[] {3}, new double[] {v, v, v});
    return p;
  }

  static String text(byte[] b) {
    return new String(b, StandardCharsets.UTF_8);
  }
}
