package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §3.5, "a run the planner admits is a run that finishes": each case of a grid of
 * commands and shapes runs in a child JVM under a heap of 512 MiB; it either finishes or is
 * refused before any work (exit 3) naming the heap that would do, and then it runs again under
 * exactly that heap and must finish. No run ends with "the Java heap ran out". Whole-map tiles
 * of 0.1-0.3 GB make the planner's figure the binding one; each run prints the tile estimate
 * and the heap peaks of summary.json (the closing notes' ratios).
 */
class MemoryGridTest {
  private static final int NX = 64;
  private static final int NY = 64;
  private static final int NZ = 64;
  private static final int N = 16;
  private static final Pattern NAMED_HEAP = Pattern.compile("heap of at least (\\d+) (MiB|GiB)");

  @TempDir static Path dir;
  private static Path study;
  private static Path mask;
  private static Path design;
  private static Path contrasts;

  @BeforeAll
  static void writeTheStudy() throws Exception {
    SplittableRandom r = new SplittableRandom(42);
    float[][] vols = new float[N][NX * NY * NZ];
    for (int s = 0; s < N; s++) {
      for (int f = 0; f < vols[s].length; f++) {
        vols[s][f] = (float) (r.nextGaussian() + (f % NX < 20 ? 0.8 : 0));
      }
    }
    study = dir.resolve("study.nii");
    NiftiStudy.write(study, NiftiStudy.header(NiftiDatatype.FLOAT32, NX, NY, NZ, N), vols);
    boolean[] all = new boolean[NX * NY * NZ];
    java.util.Arrays.fill(all, true);
    mask = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(mask, NiftiMask.fromSelection(
        NiftiStudy.header(NiftiDatatype.UINT8, NX, NY, NZ), all, "mask"));
    List<String> rows = new ArrayList<>(List.of("intercept,age"));
    for (int s = 0; s < N; s++) {
      rows.add("1," + (s - N / 2.0));
    }
    design = Files.write(dir.resolve("design.csv"), rows);
    contrasts = Files.write(dir.resolve("con.csv"), List.of("intercept,age", "0,1", "1,0"));
  }

  /** name, ingest, the command's arguments (without --output). */
  static Stream<Object[]> grid() {
    return Stream.of(
        new Object[] {"one-sample --tfce, blocks", "blocks", "one-sample --tfce"},
        new Object[] {"one-sample --tfce, broadcast", "broadcast", "one-sample --tfce"},
        new Object[] {"one-sample --cluster-threshold, blocks", "blocks",
            "one-sample --cluster-threshold 3"},
        new Object[] {"glm --tfce, two contrasts, blocks", "blocks", "glm --tfce"},
        new Object[] {"glm --tfce --variance-smoothing, broadcast", "broadcast",
            "glm --tfce --variance-smoothing 5"},
        new Object[] {"bootstrap --save-samples, blocks", "blocks",
            "bootstrap --save-samples --samples 50"});
  }

  private static List<String> args(String command) {
    List<String> a = new ArrayList<>(List.of(command.split(" ")));
    a.addAll(List.of("--input", study.toString(), "--mask", mask.toString(), "--seed", "3",
        "--master", "local[2]", "--quiet"));
    if (command.startsWith("glm")) {
      a.addAll(List.of("--design", design.toString(), "--contrasts", contrasts.toString()));
    }
    if (!command.startsWith("bootstrap")) {
      a.addAll(List.of("--permutations", "30"));
    }
    return a;
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("grid")
  void anAdmittedRunFinishesAndARefusedOneNamesAHeapThatDoes(String name, String ingest,
      String command) throws Exception {
    String heap = "512m";
    for (int attempt = 0; attempt < 3; attempt++) {
      Path out = dir.resolve(name.replaceAll("[^a-z]+", "-") + attempt);
      List<String> cmd = ChildJvm.command("-Xmx" + heap, "-D" + NlsparkConf.INGEST + "="
          + ingest);
      cmd.addAll(args(command));
      cmd.addAll(List.of("--output", out.toString()));
      Path err = dir.resolve(out.getFileName() + "-stderr.txt");
      int code = ChildJvm.run(cmd, dir, err);
      String text = Files.readString(err, StandardCharsets.UTF_8);
      assertThat(text).as(name + " under -Xmx" + heap).doesNotContain("heap ran out");
      if (code == 0) {
        report(name, heap, out);
        return;
      }
      assertThat(code).as(name + " under -Xmx" + heap + ": " + text).isEqualTo(3);
      assertThat(out).as("a refused run writes nothing").doesNotExist();
      Matcher m = NAMED_HEAP.matcher(text);
      assertThat(m.find()).as("the refusal names the heap that would do: " + text).isTrue();
      String next = m.group(1) + (m.group(2).equals("GiB") ? "g" : "m");
      System.out.println(name + ": refused under -Xmx" + heap + ", which named -Xmx" + next);
      heap = next;
    }
    throw new AssertionError(name + ": still refused after following the named heap twice");
  }

  @SuppressWarnings("unchecked")
  private static void report(String name, String heap, Path out) throws Exception {
    Map<String, Object> s = (Map<String, Object>) Json.parse(
        Files.readString(out.resolve("summary.json")));
    Map<String, Object> plan = (Map<String, Object>) s.get("tile_plan");
    Map<String, Object> engine = (Map<String, Object>) s.get("engine");
    Map<String, Object> memory = (Map<String, Object>) engine.get("memory");
    Map<String, Object> in = (Map<String, Object>) engine.get("ingest");
    System.out.printf(java.util.Locale.ROOT, "memory grid: %s under -Xmx%s finished: %s tile(s)"
        + " at once of %.3f GB (budget %s GB), blocks %s; heap peaks: driver %.3f GB, executor"
        + " %.3f GB%n", name, heap, plan.get("concurrent_tiles"),
        ((Number) plan.get("bytes_per_tile")).doubleValue() / 1e9, plan.get("budget_gb"),
        in == null ? "-" : in.get("block_storage"),
        ((Number) memory.get("driver_peak_heap_bytes")).doubleValue() / 1e9,
        ((Number) memory.get("executor_peak_heap_bytes")).doubleValue() / 1e9);
  }
}
