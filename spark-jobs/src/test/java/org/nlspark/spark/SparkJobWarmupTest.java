package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.apache.spark.SparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.spark.engine.SparkJobWarmup;

/**
 * The warm-up job of a fresh local context (SparkJobWarmup): it runs the engine's task path
 * without a run id, restores the caller's job properties, and a command's outputs are the same
 * bytes with it, without it, and when it fails.
 */
class SparkJobWarmupTest {
  private static final String DESCRIPTION = "nlspark warm-up (no outputs)";

  @TempDir
  Path dir;

  @Test
  void theWarmUpJobRunsTheTaskPathWithoutARunIdAndRestoresTheCallersProperties()
      throws Exception {
    SparkContext sc = SharedSpark.get().sparkContext();
    List<java.util.Properties> jobs = new ArrayList<>();
    SparkListener listener = new SparkListener() {
      @Override
      public void onJobStart(SparkListenerJobStart start) {
        synchronized (jobs) {
          jobs.add(start.properties());
        }
      }
    };
    sc.addSparkListener(listener);
    String old = sc.getLocalProperty("spark.job.description");
    sc.setJobDescription("the caller's");
    try {
      // local[2,4]: 2 slots, 2 tasks per slot, 2 tiles per task, one partial each
      assertThat(SparkJobWarmup.run(sc, false)).isEqualTo(8);
      assertThatThrownBy(() -> SparkJobWarmup.run(sc, true))
          .hasStackTraceContaining("warm-up tile");
      assertThat(sc.getLocalProperty("spark.job.description")).isEqualTo("the caller's");
      assertThat(sc.getLocalProperty("nlspark.run.id")).isNull();
      sc.listenerBus().waitUntilEmpty();
    } finally {
      sc.setJobDescription(old);
      sc.removeSparkListener(listener);
    }
    synchronized (jobs) {
      assertThat(jobs).hasSize(2);
      for (java.util.Properties p : jobs) {
        assertThat(p.getProperty("spark.job.description")).isEqualTo(DESCRIPTION);
        assertThat(p.getProperty("nlspark.run.id")).isNull();
      }
    }
  }

  /**
   * A command waits for the warm-up before its session closes (AnalysisCommand), so a run that
   * fails before its job never stops Spark under the warm-up job or its broadcast's removal.
   */
  @Test
  void awaitReturnsOnlyAfterTheWarmUpJobEnded() {
    Thread warmup = SparkJobWarmup.start(SharedSpark.get().sparkContext());
    assertThat(warmup).isNotNull();
    SparkJobWarmup.await(warmup);
    assertThat(warmup.isAlive()).isFalse();
    SparkJobWarmup.await(null); // none started: returns at once
  }

  @Test
  void theSwitchTurnsItOff() {
    System.setProperty(SparkJobWarmup.ENABLED_PROPERTY, "false");
    try {
      assertThat(SparkJobWarmup.start(SharedSpark.get().sparkContext())).isNull();
    } finally {
      System.clearProperty(SparkJobWarmup.ENABLED_PROPERTY);
    }
  }

  /**
   * Three fresh command-line JVMs on the same study: warm-up on (the default), off, and failing;
   * each exits 0, Spark's event log shows the warm-up job (succeeded, absent, failed), and every
   * output file is the same bytes; the t map is also checked against a naive one.
   */
  @Test
  void aCommandsOutputsAreTheSameBytesWithWithoutAndWithAFailingWarmUp() throws Exception {
    int n = 12;
    int v = 700;
    double[] x = TestData.gaussian(41, n, v, 0.8);
    Path input = TestData.matrix(dir, "x.npy", n, v, x);
    String[] modes = {"true", "false", "fail"};
    for (String mode : modes) {
      Path events = Files.createDirectories(dir.resolve("events-" + mode));
      List<String> cmd = ChildJvm.command("-Xmx512m",
          "-D" + SparkJobWarmup.ENABLED_PROPERTY + "=" + mode,
          "-Dspark.eventLog.enabled=true", "-Dspark.eventLog.dir=" + events.toUri(),
          // one plain file on both lines: Spark 4 rolls and compresses event logs by default
          "-Dspark.eventLog.rolling.enabled=false", "-Dspark.eventLog.compress=false");
      cmd.addAll(List.of("one-sample", "--input", input.toString(), "--stat", "t",
          "--permutations", "300", "--seed", "5", "--master", "local[2]", "--quiet",
          "--output", dir.resolve("out-" + mode).toString()));
      Path err = dir.resolve("stderr-" + mode + ".txt");
      int code = ChildJvm.run(cmd, dir, err);
      assertThat(code).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
      String log;
      try (Stream<Path> files = Files.list(events)) {
        log = files.map(p -> new String(TestData.bytes(p), StandardCharsets.UTF_8))
            .reduce("", String::concat);
      }
      assertThat(log).as(mode).contains("nlspark one-sample");
      switch (mode) {
        case "true" -> assertThat(log).contains(DESCRIPTION).doesNotContain("JobFailed");
        case "false" -> assertThat(log).doesNotContain(DESCRIPTION);
        default -> assertThat(log).contains(DESCRIPTION, "JobFailed", "warm-up tile");
      }
    }
    List<String> names;
    try (Stream<Path> files = Files.list(dir.resolve("out-true"))) {
      names = files.map(p -> p.getFileName().toString()).filter(s -> s.endsWith(".npy"))
          .sorted().toList();
    }
    assertThat(names).contains("observed.npy", "p.npy", "p_fwer.npy", "null_max.npy");
    for (String mode : new String[] {"false", "fail"}) {
      for (String name : names) {
        assertThat(TestData.bytes(dir.resolve("out-" + mode).resolve(name)))
            .as(mode + " " + name).isEqualTo(TestData.bytes(dir.resolve("out-true").resolve(name)));
      }
    }
    double[] t = TestData.outputValues(dir.resolve("out-true").resolve("observed.npy"));
    for (int j = 0; j < v; j++) {
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += x[i * v + j];
      }
      double mean = sum / n;
      double ss = 0;
      for (int i = 0; i < n; i++) {
        double d = x[i * v + j] - mean;
        ss += d * d;
      }
      double naive = mean / Math.sqrt(ss / (n - 1) / n);
      assertThat(t[j]).as("t of voxel " + j).isCloseTo(naive,
          org.assertj.core.data.Offset.offset(1e-9 * Math.max(1, Math.abs(naive))));
    }
  }
}
