package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * DESIGN §5: every .npy output is byte-identical for any number of partitions and when a task
 * fails once and Spark retries it.
 */
class PartitioningDeterminismTest {
  static final int N = 10;
  static final int V = 2200; // 3 voxel blocks

  @TempDir Path dir;

  private Map<String, byte[]> run(String tag, String... args) throws IOException {
    Path out = dir.resolve(tag);
    String[] full = Stream.concat(Stream.of(args),
        Stream.of("--output", out.toString(), "--quiet")).toArray(String[]::new);
    CliRun r = CliRun.of(full);
    assertThat(r.code()).as(tag + ": " + r.err()).isZero();
    Map<String, byte[]> files = new TreeMap<>();
    try (Stream<Path> s = Files.list(out)) {
      s.filter(p -> p.toString().endsWith(".npy"))
          .forEach(p -> files.put(p.getFileName().toString(), TestData.bytes(p)));
    }
    return files;
  }

  private void assertSameFiles(Map<String, byte[]> expected, Map<String, byte[]> actual) {
    assertThat(actual.keySet()).isEqualTo(expected.keySet());
    for (String name : expected.keySet()) {
      assertThat(actual.get(name)).as(name).isEqualTo(expected.get(name));
    }
  }

  private void check(String... args) throws Exception {
    Map<String, byte[]> base = run("default", args);
    assertThat(base).isNotEmpty();
    for (String partitions : new String[] {"1", "3", "7"}) {
      String[] withP = Stream.concat(Stream.of(args), Stream.of("--partitions", partitions))
          .toArray(String[]::new);
      assertSameFiles(base, run("p" + partitions, withP));
    }
    var spark = SharedSpark.get();
    SharedSpark.withRetriedTile(spark, 2, () -> assertSameFiles(base, run("retried", args)));
  }

  @Test
  void bootstrapWithSamplesIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(21, N, V, 0.3));
    check("bootstrap", "--input", x.toString(), "--samples", "400", "--stat", "mean",
        "--save-samples", "--seed", "4");
  }

  @Test
  void oneSampleIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N + 5, V, TestData.gaussian(22, N + 5, V, 0.6));
    check("one-sample", "--input", x.toString(), "--stat", "t", "--permutations", "400",
        "--seed", "8");
  }

  @Test
  void twoSampleIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(23, N, V, 0.2));
    Path y = TestData.matrix(dir, "y.npy", N + 3, V, TestData.gaussian(24, N + 3, V, 0));
    check("two-sample", "--input", x.toString(), "--input2", y.toString(), "--permutations",
        "300", "--seed", "5");
  }

  @Test
  void correlationIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(25, N, V, 0));
    Path y = TestData.vector(dir, "y.npy", TestData.gaussian(26, 1, N, 0));
    check("correlation", "--input", x.toString(), "--target", y.toString(), "--method",
        "spearman", "--permutations", "300", "--seed", "6");
  }

  @Test
  void iscIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path bold = dir.resolve("bold.npy");
    org.nlspark.core.io.NpyWriter.writeFloat64(bold, new long[] {3, 8, V},
        TestData.gaussian(27, 3 * 8, V, 0));
    check("isc", "--input", bold.toString(), "--samples", "200", "--metric", "mean",
        "--save-samples", "--seed", "7");
  }

  @Test
  void timeseriesCorrelationIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 16, V, TestData.gaussian(28, 16, V, 0));
    Path y = TestData.vector(dir, "y.npy", TestData.gaussian(29, 1, 16, 0));
    check("timeseries-correlation", "--input", x.toString(), "--target", y.toString(),
        "--null", "phase-randomize", "--permutations", "200", "--seed", "9");
  }

  @Test
  void ridgeBootstrapIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", 20, 5, TestData.gaussian(30, 20, 5, 0));
    Path y = TestData.matrix(dir, "y.npy", 20, 3, TestData.gaussian(31, 20, 3, 0));
    // a small budget makes each 128-replicate window its own tile: 3 tiles for B = 300
    check("ridge-bootstrap", "--input", x.toString(), "--target", y.toString(), "--samples",
        "300", "--save-samples", "--memory-budget-gb", "9e-5", "--seed", "10");
  }

  @Test
  void glmIsIdenticalForAnyPartitioningAndRetry() throws Exception {
    int n = 14;
    Path x = TestData.matrix(dir, "x.npy", n, V, TestData.gaussian(32, n, V, 0.4));
    double[] age = TestData.gaussian(33, 1, n, 0);
    java.util.List<String> design = new java.util.ArrayList<>(java.util.List.of("one,age,g"));
    for (int i = 0; i < n; i++) {
      design.add("1," + age[i] + "," + (i % 2));
    }
    Path d = dir.resolve("design.csv");
    Files.write(d, design);
    Path c = dir.resolve("con.csv");
    Files.write(c, java.util.List.of("one,age,g", "0,1,0", "0,0,-1"));
    Path f = dir.resolve("f.csv");
    Files.write(f, java.util.List.of("a,b", "1,1"));
    check("glm", "--input", x.toString(), "--design", d.toString(), "--contrasts", c.toString(),
        "--f-contrasts", f.toString(), "--errors", "both", "--permutations", "300",
        "--fwer-across-contrasts", "--seed", "11");
  }
}

