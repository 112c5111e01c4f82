package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line as its own process (what a shell sees): a heap below Spark's minimum is exit
 * 3 with how to raise it, SIGTERM during a run is exit 143 "interrupted", without stack traces
 * and without leaving an output or temporary directory.
 */
class ProcessExitTest {
  @TempDir Path dir;

  private static List<String> java(String... jvmOptions) {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-opens") || a.startsWith("-Djdk.reflect")) {
        cmd.add(a);
      }
    }
    cmd.addAll(List.of(jvmOptions));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(Main.class.getName());
    return cmd;
  }

  private Process start(List<String> cmd, Path err) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(dir.resolve("stdout.txt").toFile()).redirectError(err.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    return pb.start();
  }

  private void assertNothingLeft(Path out) throws Exception {
    assertThat(out).doesNotExist();
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString())).noneMatch(n -> n.startsWith(".out"));
    }
  }

  @Test
  void aHeapBelowSparksMinimumIsExitThreeWithHowToRaiseIt() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 6, 20, TestData.gaussian(1, 6, 20, 0));
    Path out = dir.resolve("out");
    List<String> cmd = java("-Xmx256m");
    cmd.addAll(List.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "10"));
    Path err = dir.resolve("stderr.txt");
    Process p = start(cmd, err);
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String text = Files.readString(err, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isEqualTo(3);
    assertThat(text).contains("below Spark's minimum", "NLSPARK_JAVA_OPTS=-Xmx")
        .doesNotContain("\tat ");
    assertNothingLeft(out);
  }

  @Test
  void sigtermDuringARunIsExit143Interrupted() throws Exception {
    int n = 40;
    int v = 20_000;
    Path x = TestData.matrix(dir, "x.npy", n, v, TestData.gaussian(2, n, v, 0));
    Path out = dir.resolve("out");
    // Tile 0 is held (the hook prints a marker first), so the signal comes while a tile runs
    // however slow the machine is: the test waits for the marker, not for a fixed time.
    List<String> cmd = java("-Xmx1g", "-Dspark.nlspark.test.hold-tile-ms=120000");
    cmd.addAll(List.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "2000000", "--master", "local[1]", "--no-fwer"));
    Path err = dir.resolve("stderr.txt");
    Process p = start(cmd, err);
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(240);
    while (!Files.readString(err).contains("NLSPARK_HOLDING_TILE_0")) {
      assertThat(p.isAlive()).as(Files.readString(err)).isTrue();
      assertThat(System.nanoTime()).as("tile 0 never started").isLessThan(deadline);
      Thread.sleep(100);
    }
    p.destroy(); // SIGTERM
    assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
    String text = Files.readString(err, StandardCharsets.UTF_8);
    assertThat(p.exitValue()).as(text).isEqualTo(143);
    // Spark's own threads may still log while the JVM stops; nlspark prints no stack trace
    assertThat(text).contains("interrupted (SIGTERM)").doesNotContain("\tat org.nlspark")
        .doesNotContain("internal error");
    assertNothingLeft(out);
  }
}
