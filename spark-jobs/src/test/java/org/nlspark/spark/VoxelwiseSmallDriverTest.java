package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.bits;

import java.io.BufferedOutputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.Output;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 for the voxelwise commands without whole maps: bootstrap on an .npy, two-sample on
 * two list files of 3-D NIfTI images (the default mask) and correlation on a 4-D NIfTI with a
 * --mask, each of 250 or more float32 samples x 64^3 voxels (more than a -Xmx480m driver heap
 * as float64). Read on the driver, each is refused (exit 3) and writes nothing; from blocks it
 * runs and every .npy output has the bits of core's in-memory run of the same values.
 */
class VoxelwiseSmallDriverTest {
  static final int NX = 64;
  static final int NY = 64;
  static final int NZ = 64;
  static final int GRID_VOXELS = NX * NY * NZ;
  static final String HEAP = "-Xmx480m";
  static final int REPLICATES = 20;
  static final long SEED = 9;
  /** The reference's budget: room for one worker of the largest case (1.6 GB) in a 3 GB heap. */
  static final double REFERENCE_BUDGET_GB = 2.0;

  @TempDir Path dir;

  /** The mask position (i slowest, k fastest: nilearn's order) of file index {@code f}. */
  private static int wholeGridPosition(int f) {
    int i = f % NX;
    int j = (f / NX) % NY;
    int k = f / (NX * NY);
    return (i * NY + j) * NZ + k;
  }

  /** A value that is never 0 (the default mask keeps voxels non-zero in one sample). */
  private static float value(double v) {
    float f = (float) v;
    return f == 0 ? 1e-3f : f;
  }

  private static double[] target(int n) {
    return TestData.gaussian(5, 1, n, 0);
  }

  // ---- bootstrap, .npy ----

  /**
   * The retained tails of 262,144 voxels over 20 samples (0.197 GB, DESIGN §3.8's preflight)
   * exceed the default budget of a 480 MiB local run (0.113 GB), so the run raises
   * --memory-budget-gb, as its refusal says; the tails are O(voxels), not the samples.
   */
  @Test
  void bootstrapOfAnNpyRunsFromBlocksUnderADriverHeapSmallerThanTheData() throws Exception {
    int n = 250;
    int v = GRID_VOXELS;
    SplittableRandom r = new SplittableRandom(51);
    float[] f = new float[n * v];
    for (int i = 0; i < f.length; i++) {
      f[i] = value(r.nextGaussian() + (i % v % 5 == 0 ? 0.2 : 0));
    }
    Path x = dir.resolve("big.npy");
    NpyWriter.writeFloat32(x, new long[] {n, v}, f);
    double[] widened = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      widened[i] = f[i];
    }
    f = null;
    Path out = runUnderASmallDriver("bootstrap", List.of("bootstrap", "--input", x.toString(),
        "--stat", "mean", "--ci", "percentile", "--samples", String.valueOf(REPLICATES),
        "--seed", String.valueOf(SEED), "--memory-budget-gb", "0.4"), n, v);
    NlsparkOptions o = NlsparkOptions.builder().statistic("mean").ci(CiMethod.PERCENTILE)
        .replicates((long) REPLICATES).seed(SEED).build();
    RunReport expected = reference(o, Analysis.BOOTSTRAP,
        JobInputs.of(DataMatrix.of(n, v, widened, "x")));
    assertSameFiles(out, expected, "mean", "std", "ci_lower", "ci_upper", "z", "p");
  }

  // ---- two-sample, list files of 3-D NIfTI images, the default mask ----

  @Test
  void twoSampleOfThreeDNiftiListsRunsFromBlocksUnderADriverHeapSmallerThanTheData()
      throws Exception {
    int n1 = 130;
    int n2 = 120;
    double[] x = new double[n1 * GRID_VOXELS];
    double[] y = new double[n2 * GRID_VOXELS];
    Path xList = threeDFiles("x", n1, 0.3, 52, x);
    Path yList = threeDFiles("y", n2, 0.0, 53, y);
    Path out = runUnderASmallDriver("two-sample", List.of("two-sample", "--input",
        xList.toString(), "--input2", yList.toString(), "--stat", "welch-t", "--permutations",
        String.valueOf(REPLICATES), "--seed", String.valueOf(SEED)), n1 + n2, GRID_VOXELS);
    NlsparkOptions o = NlsparkOptions.builder().statistic("welch-t")
        .replicates((long) REPLICATES).seed(SEED).tail(Tail.TWO).fwer(true).build();
    RunReport expected = reference(o, Analysis.TWO_SAMPLE, JobInputs.twoGroups(
        DataMatrix.of(n1, GRID_VOXELS, x, "x"), DataMatrix.of(n2, GRID_VOXELS, y, "y")));
    assertSameFiles(out, expected, "observed", "p", "p_fwer", "null_max");
  }

  /**
   * {@code n} 3-D float32 .nii files {@code name-000.nii}... (1 MiB each, uncompressed: cheap to
   * write) and their list file; fills {@code masked} with the values in mask order (every voxel).
   */
  private Path threeDFiles(String name, int n, double shift, long seed, double[] masked)
      throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    StringBuilder list = new StringBuilder();
    byte[] header = NiftiStudy.header(NiftiDatatype.FLOAT32, NX, NY, NZ).toBytes();
    ByteBuffer vol = ByteBuffer.allocate(4 * GRID_VOXELS).order(ByteOrder.LITTLE_ENDIAN);
    for (int s = 0; s < n; s++) {
      vol.clear();
      for (int f = 0; f < GRID_VOXELS; f++) {
        float v = value(r.nextGaussian() + (f % 7 == 0 ? shift : 0));
        vol.putFloat(v);
        masked[s * GRID_VOXELS + wholeGridPosition(f)] = v;
      }
      String file = String.format("%s-%03d.nii", name, s);
      try (OutputStream o = Files.newOutputStream(dir.resolve(file))) {
        o.write(header);
        o.write(vol.array());
      }
      list.append(file).append('\n');
    }
    return Files.writeString(dir.resolve(name + ".txt"), list.toString());
  }

  // ---- correlation, one 4-D NIfTI and a --mask ----

  @Test
  void correlationOfAFourDNiftiWithAMaskRunsFromBlocksUnderADriverHeapSmallerThanTheData()
      throws Exception {
    int n = 260;
    // every voxel but one in 32 (file order), so that the mask order and selection both count
    boolean[] selected = new boolean[GRID_VOXELS];
    int[] position = new int[GRID_VOXELS]; // file index -> mask position, -1 outside
    for (int f = 0; f < GRID_VOXELS; f++) {
      selected[f] = f % 32 != 5;
    }
    int v = 0;
    for (int i = 0; i < NX; i++) {
      for (int j = 0; j < NY; j++) {
        for (int k = 0; k < NZ; k++) {
          int f = i + NX * (j + NY * k);
          position[f] = selected[f] ? v++ : -1;
        }
      }
    }
    NiftiMask mask = NiftiMask.fromSelection(NiftiStudy.header(NiftiDatatype.UINT8, NX, NY, NZ),
        selected, "mask");
    assertThat(mask.count()).isEqualTo(v);
    assertThat(8L * n * v).as("float64 bytes").isGreaterThan(480L << 20);
    Path m = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(m, mask);
    double[] target = target(n);
    Path t = TestData.vector(dir, "target.npy", target);
    double[] widened = new double[n * v];
    Path x = dir.resolve("big4d.nii");
    SplittableRandom r = new SplittableRandom(54);
    try (OutputStream out = new BufferedOutputStream(Files.newOutputStream(x), 1 << 20)) {
      out.write(NiftiStudy.header(NiftiDatatype.FLOAT32, NX, NY, NZ, n).toBytes());
      ByteBuffer vol = ByteBuffer.allocate(4 * GRID_VOXELS).order(ByteOrder.LITTLE_ENDIAN);
      for (int s = 0; s < n; s++) {
        vol.clear();
        for (int f = 0; f < GRID_VOXELS; f++) {
          float value = value(r.nextGaussian() + (f % 9 == 0 ? 0.3 * target[s] : 0));
          vol.putFloat(value);
          if (position[f] >= 0) {
            widened[s * v + position[f]] = value;
          }
        }
        out.write(vol.array());
      }
    }
    Path out = runUnderASmallDriver("correlation", List.of("correlation", "--input",
        x.toString(), "--mask", m.toString(), "--target", t.toString(), "--method", "pearson",
        "--permutations", String.valueOf(REPLICATES), "--seed", String.valueOf(SEED)), n, v);
    NlsparkOptions o = NlsparkOptions.builder().statistic("pearson")
        .replicates((long) REPLICATES).seed(SEED).tail(Tail.TWO).fwer(true).build();
    RunReport expected = reference(o, Analysis.CORRELATION,
        JobInputs.withTarget(DataMatrix.of(n, v, widened, "x"), target));
    assertSameFiles(out, expected, "observed", "p", "p_fwer", "null_max");
  }

  // ---- the two child JVMs and the reference ----

  /**
   * Runs {@code args} in a child JVM of -Xmx480m twice: with the samples read on the driver it
   * must be refused (exit 3, "on the driver") and write nothing; from blocks it must exit 0 with
   * a summary of the block ingest of {@code n} x {@code v}. Returns the second run's directory.
   */
  private Path runUnderASmallDriver(String command, List<String> args, int n, int v)
      throws Exception {
    List<String> common = new ArrayList<>(args);
    common.addAll(List.of("--master", "local[2]", "--quiet"));
    Path refusedOut = dir.resolve(command + "-refused");
    List<String> refused = ChildJvm.command(HEAP, "-D" + NlsparkConf.INGEST + "=broadcast");
    refused.addAll(common);
    refused.addAll(List.of("--output", refusedOut.toString()));
    Path refusedErr = dir.resolve(command + "-refused-stderr.txt");
    int code = ChildJvm.run(refused, dir, refusedErr);
    String text = Files.readString(refusedErr, StandardCharsets.UTF_8);
    assertThat(code).as(text).isEqualTo(3);
    assertThat(text).contains("on the driver", "spark.nlspark.ingest=blocks");
    assertThat(refusedOut).doesNotExist();

    Path out = dir.resolve(command + "-out");
    List<String> blocks = ChildJvm.command(HEAP, "-D" + NlsparkConf.INGEST + "=blocks");
    blocks.addAll(common);
    blocks.addAll(List.of("--output", out.toString()));
    Path err = dir.resolve(command + "-stderr.txt");
    code = ChildJvm.run(blocks, dir, err);
    assertThat(code).as(Files.readString(err, StandardCharsets.UTF_8)).isZero();
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"mode\": \"blocks\"", "\"driver_peak_heap_bytes\"")
        .doesNotContain("driver_read_seconds");
    System.out.println(command + " from blocks under " + HEAP + ": " + n + " samples x " + v
        + " voxels x " + REPLICATES + " replicates; " + summary.lines()
            .filter(l -> l.contains("peak_heap") || l.contains("compute_seconds")
                || l.contains("ingest_seconds"))
            .map(String::trim).reduce("", (p, q) -> p + " " + q));
    return out;
  }

  /**
   * core's in-memory run of the same values (the driver-read path's computation). Its budget is
   * pinned: measured, it is half the memory this machine has free at that moment, which a busy
   * machine can leave below one worker; the budget sizes the tiles only, never the bits.
   */
  private static RunReport reference(NlsparkOptions options, Analysis analysis,
      JobInputs inputs) {
    NlsparkOptions pinned = options.toBuilder().memoryBudgetGb(REFERENCE_BUDGET_GB).build();
    return new LocalEngine(2, Grid.DEFAULT, null).run(pinned.toSpec(analysis), inputs);
  }

  /** Every output of the reference, {@code names} among them, has its bits in OUT/name.npy. */
  private static void assertSameFiles(Path out, RunReport expected, String... names) {
    assertThat(expected.result.outputs().stream().map(Output::name)).contains(names);
    for (Output e : expected.result.outputs()) {
      assertThat(bits(TestData.outputValues(out.resolve(e.name() + ".npy")))).as(e.name())
          .isEqualTo(bits(e.values()));
    }
  }
}
