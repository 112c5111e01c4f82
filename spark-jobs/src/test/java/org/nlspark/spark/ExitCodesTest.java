package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.cli.Interruption;

/**
 * DESIGN §6's exit codes for failures of the environment: an unusable --master is 2, running out
 * of heap anywhere is 3 with how to give nlspark more memory, a signal is 130/143 "interrupted";
 * never a stack trace without --verbose, and untrusted text is escaped.
 */
class ExitCodesTest {
  @TempDir Path dir;

  @AfterEach
  void forgetSignals() {
    Interruption.reset();
  }

  record Failure(int code, String err) {}

  private static Failure fail(Throwable t) {
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = Main.fail("bootstrap", t, false, new PrintStream(err, true,
        StandardCharsets.UTF_8));
    return new Failure(code, err.toString(StandardCharsets.UTF_8));
  }

  private CliRun master(String master) {
    Path x = TestData.matrix(dir, "x.npy", 6, 20, TestData.gaussian(1, 6, 20, 0));
    Path out = dir.resolve("out");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20", "--master", master);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).contains("--master").doesNotContain("\tat ");
    assertThat(r.err().strip().split("\n")).hasSize(1);
    assertThat(out).doesNotExist();
    return r;
  }

  @Test
  void anUnusableMasterIsAUsageError() {
    assertThat(master("lokal[2]").err()).contains("lokal[2]", "did you mean local[2]?");
    assertThat(master("spark://host").err()).contains("spark://HOST:PORT", "spark://host");
    assertThat(master("spark://host:99999").err()).contains("spark://host:99999");
    assertThat(master("bogus://x").err()).contains("bogus://x");
    assertThat(master("k8s://https://127.0.0.1:6443").err()).contains("spark-kubernetes",
        "spark-submit");
    if (System.getenv("HADOOP_CONF_DIR") == null && System.getenv("YARN_CONF_DIR") == null) {
      assertThat(master("yarn").err()).contains("HADOOP_CONF_DIR", "YARN_CONF_DIR");
    }
  }

  @Test
  void aMasterNobodyListensOnFailsWithinSeconds() throws Exception {
    int port;
    try (var s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
      port = s.getLocalPort(); // closed again: nothing listens there now
    }
    SharedSpark.get(); // not part of what is timed
    long t0 = System.nanoTime();
    CliRun r = master("spark://127.0.0.1:" + port);
    assertThat((System.nanoTime() - t0) / 1e9).isLessThan(5.0);
    assertThat(r.err()).contains("Cannot reach the master spark://127.0.0.1:" + port);
  }

  @Test
  void outOfMemoryAnywhereIsExitThreeWithTheRemedy() {
    Failure driver = fail(new OutOfMemoryError("Java heap space"));
    assertThat(driver.code()).isEqualTo(3);
    assertThat(driver.err()).contains("Java heap space", "NLSPARK_JAVA_OPTS=-Xmx",
        "spark-submit --driver-memory").doesNotContain("\tat ", "internal error");
    // A task's OutOfMemoryError reaches the driver as text inside Spark's job failure.
    Failure task = fail(new RuntimeException("Job aborted due to stage failure: Task 0 in stage"
        + " 1.0 failed 1 times, most recent failure: Lost task 0.0 (TID 3): "
        + "java.lang.OutOfMemoryError: Java heap space\n\tat org.nlspark.Foo.bar(Foo.java:1)"));
    assertThat(task.code()).isEqualTo(3);
    assertThat(task.err()).contains("the Java heap ran out (Java heap space;")
        .doesNotContain("\tat ");
    Failure wrapped = fail(new IllegalStateException("merge failed",
        new java.util.concurrent.ExecutionException(new OutOfMemoryError("Direct buffer"))));
    assertThat(wrapped.code()).isEqualTo(3);
  }

  @Test
  void runningOutOfOpenFilesAnywhereIsExitThreeNamingTheLimit() {
    // as Spark's start fails at the limit: netty's event loop, its selector, EMFILE
    Failure f = fail(new IllegalStateException("failed to create a child event loop",
        new RuntimeException("failed to open a new selector",
            new java.io.IOException("Too many open files"))));
    assertThat(f.code()).isEqualTo(3);
    assertThat(f.err()).startsWith("nlspark bootstrap: Cannot finish: too many open files (the"
        + " open-file limit is ulimit -n ").contains("); raise the limit with ulimit -n ")
        .doesNotContain("internal error").doesNotContain("\tat ");
    assertThat(f.err().strip().lines().count()).isEqualTo(1);
    // a file-system call that ran out (Hadoop forks chmod to write an output)
    RuntimeException write = org.nlspark.spark.io.UserPaths.readFailure(new java.io.IOException(
        "Cannot run program \"chmod\": error=24, Too many open files"), "--input", "/x.npy");
    assertThat(write).isInstanceOf(ResourceRefusedException.class)
        .hasMessageStartingWith("Cannot read --input /x.npy: too many open files (the open-file"
            + " limit is ulimit -n ");
    assertThat(fail(write).code()).isEqualTo(3);
  }

  @Test
  void aSignalIsInterruptedNotAnInternalError() {
    Failure plain = fail(new RuntimeException("boom"));
    assertThat(plain.code()).isEqualTo(1);
    assertThat(plain.err()).contains("internal error");
    Failure interrupted = fail(new IllegalStateException("wait", new InterruptedException()));
    assertThat(interrupted.code()).isEqualTo(130);
    assertThat(interrupted.err()).isEqualTo(
        "nlspark bootstrap: interrupted; no new results were written.\n");
    Interruption.record(15);
    // Whatever the command threw while being stopped (here Spark's cancelled job) is not shown.
    Failure term = fail(new RuntimeException("Job 3 cancelled because SparkContext was shut"
        + " down"));
    assertThat(term.code()).isEqualTo(143);
    assertThat(term.err()).isEqualTo(
        "nlspark bootstrap: interrupted (SIGTERM); no new results were written.\n");
    Interruption.reset();
    Interruption.record(2);
    assertThat(fail(new InvalidInputException("x")).code()).isEqualTo(130);
  }

  @Test
  void untrustedTextIsEscaped() {
    Failure f = fail(new InvalidInputException("Cannot read --input /data/\u001b]0;owned\u0007"
        + "scan\u001b[2J\nFAKE: line\u202e.npy: no such file"));
    assertThat(f.code()).isEqualTo(2);
    assertThat(f.err()).isEqualTo("nlspark bootstrap: Cannot read --input /data/\\x1b]0;owned"
        + "\\x07scan\\x1b[2J\\nFAKE: line\\u202e.npy: no such file\n");
    assertThat(fail(new ResourceRefusedException("gpu \u009b31m")).err())
        .contains("gpu \\x9b31m");
  }

  @Test
  void aFileNameWithTerminalEscapesIsPrintedEscaped() throws Exception {
    Path hostile = dir.resolve("scan\u001b[31mred\nline2.npy");
    CliRun r = CliRun.of("one-sample", "--input", hostile.toString(), "--output",
        dir.resolve("o").toString());
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("scan\\x1b[31mred\\nline2.npy");
    assertThat(r.err().strip()).doesNotContain("\u001b").doesNotContain("\n");
  }

  @Test
  void aHostileHeaderIsPrintedEscaped() throws Exception {
    String header = "{'descr': '\u001b[2J<x9', 'fortran_order': False, 'shape': (2, 2), }";
    StringBuilder h = new StringBuilder(header);
    while ((10 + h.length() + 1) % 64 != 0) {
      h.append(' ');
    }
    h.append('\n');
    byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] file = new byte[10 + head.length + 32];
    byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
        (byte) (head.length & 0xff), (byte) (head.length >> 8)};
    System.arraycopy(magic, 0, file, 0, 10);
    System.arraycopy(head, 0, file, 10, head.length);
    Path p = dir.resolve("hostile.npy");
    Files.write(p, file);
    CliRun r = CliRun.of("one-sample", "--input", p.toString(), "--output",
        dir.resolve("o").toString());
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err()).doesNotContain("\u001b");
    assertThat(r.err().chars().filter(c -> c < 0x20 && c != '\n')).isEmpty();
  }
}
