package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobSpec;

/** The warm-up runs the job's own CPU kernel on one synthetic tile, and nothing for a GPU job. */
class KernelWarmupTest {
  @Test
  void oneSampleRunsTheFoldOverSixWindowsOfOneBlock() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(5000)
        .fwer(true).build();
    PartialResult p = KernelWarmup.run(spec);
    assertThat(p.tile.windowCount()).isEqualTo(KernelWarmup.WINDOWS);
    assertThat(p.observed).hasSize(KernelWarmup.VOXELS);
    assertThat(p.counts).isNotNull();
    assertThat(p.nullMax).isNotNull();
    // 6 windows of 128 replicate rows plus the observed row, one GEMM each of 2 n b flops
    assertThat(p.flops).isEqualTo(7L * 2 * KernelWarmup.SAMPLES * 128 * KernelWarmup.VOXELS);
  }

  @Test
  void bootstrapRunsTheTailUpdate() {
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(5000)
        .build();
    PartialResult p = KernelWarmup.run(spec);
    assertThat(p.tails).isNotNull();
    assertThat(p.windowMoments).hasSize(KernelWarmup.WINDOWS);
  }

  @Test
  void twoSampleAndCorrelationRunTheirFolds() {
    for (Analysis a : new Analysis[] {Analysis.TWO_SAMPLE, Analysis.CORRELATION}) {
      PartialResult p = KernelWarmup.run(JobSpec.builder(a).replicates(1000).build());
      assertThat(p.counts).as(a.command()).isNotNull();
      assertThat(p.flops).as(a.command()).isPositive();
    }
  }

  @Test
  void everyStatisticOfEveryAnalysisRuns() {
    for (Analysis a : Analysis.values()) {
      for (String stat : a.statistics()) {
        PartialResult p = KernelWarmup.run(JobSpec.builder(a).statistic(stat).replicates(300)
            .build());
        assertThat(p.tile.windowCount()).as(a.command() + " " + stat).isEqualTo(3);
      }
    }
  }

  @Test
  void fewerReplicatesThanSixWindowsWarmWhatThereIs() {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(200).build();
    assertThat(KernelWarmup.run(spec).tile.windowCount()).isEqualTo(2);
  }

  @Test
  void aGpuJobStartsNoThreadAndACpuJobsThreadFinishes() throws InterruptedException {
    assertThat(KernelWarmup.start(JobSpec.builder(Analysis.ONE_SAMPLE).backend("gpu").build()))
        .isNull();
    Thread t = KernelWarmup.start(JobSpec.builder(Analysis.ONE_SAMPLE).replicates(500).build());
    assertThat(t).isNotNull();
    assertThat(t.isDaemon()).isTrue();
    t.join(60_000);
    assertThat(t.isAlive()).isFalse();
  }

  @Test
  void theWarmUpRepeatsItsTileUntilStopped() throws InterruptedException {
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).replicates(200).build();
    long before = KernelWarmup.TILES_RUN.get();
    Thread t = KernelWarmup.start(spec);
    t.join(120_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(KernelWarmup.TILES_RUN.get() - before).isEqualTo(KernelWarmup.MAX_TILES);

    before = KernelWarmup.TILES_RUN.get();
    t = KernelWarmup.start(spec);
    KernelWarmup.stop(); // the job starts: the tile in flight finishes, no further one starts
    // (the thread may have finished a tile or more before stop(): its tiles are compiled now)
    long atStop = KernelWarmup.TILES_RUN.get();
    t.join(60_000);
    assertThat(t.isAlive()).isFalse();
    assertThat(KernelWarmup.TILES_RUN.get() - atStop).isBetween(0L, 1L);
    assertThat(KernelWarmup.TILES_RUN.get() - before).isGreaterThanOrEqualTo(1);
  }

  @Test
  void thePropertyTurnsItOff() {
    System.setProperty(KernelWarmup.ENABLED_PROPERTY, "false");
    try {
      assertThat(KernelWarmup.start(JobSpec.builder(Analysis.ONE_SAMPLE).build())).isNull();
    } finally {
      System.clearProperty(KernelWarmup.ENABLED_PROPERTY);
    }
  }

  /**
   * bin/nlspark's HOT_METHODS (per-method C2 thresholds) name methods by text: a rename would
   * silently drop the launcher's setting, so each name must be a method of its class here.
   */
  @Test
  void theLaunchersHotMethodsNameMethodsThatExist() throws IOException, ClassNotFoundException {
    String launcher = Files.readString(Path.of("..", "bin", "nlspark"), StandardCharsets.UTF_8);
    Matcher list = Pattern.compile("(?s)\\nHOT_METHODS=\\((.*?)\\)").matcher(launcher);
    assertThat(list.find()).as("HOT_METHODS=( ... ) in bin/nlspark").isTrue();
    List<String> names = Arrays.stream(list.group(1).trim().split("\\s+")).toList();
    assertThat(names).hasSizeGreaterThanOrEqualTo(3)
        .contains("org.nlspark.core.stats.SignFlipStatistic::foldWindowSimd");
    for (String name : names) {
      String[] parts = name.split("::");
      assertThat(parts).as(name).hasSize(2);
      Class<?> type = Class.forName(parts[0]);
      assertThat(Arrays.stream(type.getDeclaredMethods()).map(java.lang.reflect.Method::getName))
          .as(name).contains(parts[1]);
    }
  }
}
