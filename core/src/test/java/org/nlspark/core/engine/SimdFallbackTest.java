package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.simd.Simd;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Precision;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.Grid;

/**
 * A JVM started without {@code --add-modules jdk.incubator.vector} takes the scalar paths by
 * itself (no linkage error) and writes the same bits as this JVM's SIMD paths, end to end:
 * one-sample t with max-T in float64 and float32, bootstrap mean with its percentile interval,
 * two-sample Welch t and mean difference, Pearson and Spearman correlation, with max-T.
 */
class SimdFallbackTest {
  @Test
  void aJvmWithoutTheVectorModuleFallsBackToTheSameBits(@TempDir Path dir)
      throws IOException, InterruptedException {
    assertThat(Simd.enabled()).as(Simd.describe()).isTrue();
    String here = digest();

    Path out = dir.resolve("child.txt");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    cmd.add("-Xmx768m");
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(SimdFallbackTest.class.getName());
    Process child = new ProcessBuilder(cmd).redirectOutput(out.toFile())
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    assertThat(child.waitFor()).isZero();
    List<String> lines = Files.readAllLines(out, StandardCharsets.UTF_8);
    assertThat(lines.get(0)).startsWith("scalar (start the JVM with --add-modules");
    assertThat(here.split(";")).hasSizeGreaterThan(8);
    assertThat(lines.get(1)).isEqualTo(here);
  }

  /** Child entry point: the SIMD state, then the digest of the results. */
  public static void main(String[] args) {
    System.out.println(Simd.describe());
    System.out.println(digest());
  }

  /** Every output bit of the three jobs, as one hex string per output. */
  static String digest() {
    StringBuilder sb = new StringBuilder();
    SplittableRandom rng = new SplittableRandom(5);
    int n = 14;
    int v = 203;
    double[] x = new double[n * v];
    for (int i = 0; i < x.length; i++) {
      int col = i % v;
      x[i] = col % 4 == 0 ? rng.nextInt(-3, 4) : col % 4 == 1 ? (rng.nextBoolean() ? 0.3 : -0.3)
          : col % 4 == 2 ? 1e6 + rng.nextGaussian() : col % 8 == 3 ? 2.5 : rng.nextGaussian();
    }
    JobInputs in = JobInputs.of(DataMatrix.of(n, v, x, "test"));
    double[] x1 = java.util.Arrays.copyOfRange(x, 0, 6 * v);
    double[] x2 = java.util.Arrays.copyOfRange(x, 6 * v, n * v);
    JobInputs groups = JobInputs.twoGroups(DataMatrix.of(6, v, x1, "g1"),
        DataMatrix.of(n - 6, v, x2, "g2"));
    double[] target = new double[n];
    for (int i = 0; i < n; i++) {
      target[i] = i % 5; // ties in the ranks
    }
    JobInputs withTarget = JobInputs.withTarget(DataMatrix.of(n, v, x, "test"), target);
    for (Precision p : Precision.values()) {
      append(sb, JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(700).seed(3)
          .precision(p).fwer(true).build(), in);
      append(sb, JobSpec.builder(Analysis.BOOTSTRAP).statistic("mean").replicates(400).seed(4)
          .precision(p).build(), in);
      for (String stat : new String[] {"welch-t", "mean-diff"}) {
        append(sb, JobSpec.builder(Analysis.TWO_SAMPLE).statistic(stat).replicates(300).seed(6)
            .precision(p).fwer(true).build(), groups);
      }
      for (String method : new String[] {"pearson", "spearman"}) {
        append(sb, JobSpec.builder(Analysis.CORRELATION).statistic(method).replicates(300)
            .seed(7).precision(p).fwer(true).build(), withTarget);
      }
    }
    return sb.toString();
  }

  private static void append(StringBuilder sb, JobSpec spec, JobInputs in) {
    Result r = new LocalEngine(2, new Grid(64, 128), null).run(spec, in).result;
    for (Output o : r.outputs()) {
      long h = 1;
      for (double d : o.values()) {
        h = h * 1_000_003L + Double.doubleToRawLongBits(d);
      }
      sb.append(o.name()).append('=').append(Long.toHexString(h)).append(';');
    }
  }
}
