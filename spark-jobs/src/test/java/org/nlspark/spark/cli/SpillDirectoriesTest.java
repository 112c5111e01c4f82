package org.nlspark.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Spill directories of killed runs are removed at the next start; nothing else is. */
class SpillDirectoriesTest {
  @TempDir Path tmp;

  @Test
  void onlyTheSpillDirectoriesOfGoneProcessesAreRemoved() throws Exception {
    ProcessHandle self = ProcessHandle.current();
    long started = self.info().startInstant().orElseThrow().toEpochMilli();
    // a killed run: this PID never started at millisecond 1, so its owner is gone
    Path dead = Files.createDirectories(tmp.resolve("nlspark-spill-" + self.pid() + "-1"
        + "/blockmgr-x/0c"));
    Files.writeString(dead.resolve("shuffle_0_0_0.data"), "spilled");
    Path live = Files.createDirectories(tmp.resolve("nlspark-spill-" + self.pid() + "-"
        + started + "/spark-y"));
    Path other = Files.createDirectories(tmp.resolve("nlspark-spill-notapid"));
    Path spark = Files.createDirectories(tmp.resolve("blockmgr-of-someone-else"));
    Path outside = Files.writeString(tmp.resolve("keep.txt"), "keep");
    Files.createSymbolicLink(dead.getParent().getParent().resolve("link"), outside);
    SpillDirectories.removeStale(tmp);
    assertThat(tmp.resolve("nlspark-spill-" + self.pid() + "-1")).doesNotExist();
    assertThat(live).isDirectory();
    assertThat(other).isDirectory();
    assertThat(spark).isDirectory();
    assertThat(outside).hasContent("keep");
    String mine = SpillDirectories.forThisRun(tmp.toString());
    assertThat(mine).isEqualTo(tmp.resolve("nlspark-spill-" + self.pid() + "-" + started)
        .toString());
  }
}
