package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.NiftiSamples;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopOpener;

/**
 * DESIGN §8 and §5: a job whose samples executors read into voxel blocks gives outputs
 * bit-identical to the same job read on the driver and broadcast (and to the plain in-memory
 * path of an .npy read whole), for 1, 3 and 7 partitions and when a task fails once.
 */
class DataPlaneIdentityTest {
  static final int N = 13;
  static final int V = 2200; // 3 voxel blocks of the default grid

  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();
  private final HadoopOpener files = new HadoopOpener(spark.sparkContext().hadoopConfiguration());

  @AfterEach
  void resetConf() throws Exception {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  private Path npy32(String name, int rows, int cols, long seed, double shift) {
    double[] g = TestData.gaussian(seed, rows, cols, shift);
    float[] f = new float[g.length];
    for (int i = 0; i < g.length; i++) {
      f[i] = (float) g[i];
    }
    Path p = dir.resolve(name);
    NpyWriter.writeFloat32(p, new long[] {rows, cols}, f);
    return p;
  }

  private SampleSource npy(Path p, long splitBytes) {
    return NpySamples.describe(files, p.toString(), "--input " + p, splitBytes);
  }

  private RunReport run(String ingest, Integer partitions, Analysis analysis,
      DistributedInputs inputs, NlsparkOptions options) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    NlsparkOptions o = options.toBuilder().partitions(partitions).build();
    return new SparkEngine(spark, o.grid(), o.partitions(), false).run(o.toSpec(analysis),
        inputs);
  }

  private static org.nlspark.core.data.DataMatrix wholeMatrix(Path p) {
    var a = NpyReader.read(p, 2);
    return org.nlspark.core.data.DataMatrix.of(a.dim(0), a.dim(1), a.data(), p.toString());
  }

  /** Broadcast vs blocks for partitions default/1/3/7 and one retried task. */
  private void checkIdentity(Analysis analysis, DistributedInputs inputs,
      java.util.function.Supplier<NlsparkOptions> options) throws Exception {
    RunReport base = run("broadcast", null, analysis, inputs, options.get());
    assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
    for (Integer p : new Integer[] {null, 1, 3, 7}) {
      RunReport blocks = run("blocks", p, analysis, inputs, options.get());
      assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
      assertThat(blocks.engineFacts.get("broadcast_bytes")).isEqualTo(0L);
      assertSameOutputs(base, blocks, analysis + " blocks, partitions " + p);
    }
    RunReport retried = SharedSpark.retriedOnce(spark, 2,
        () -> run("blocks", 3, analysis, inputs, options.get()));
    assertSameOutputs(base, retried, analysis + " blocks, retried");
  }

  @Test
  void oneSampleFromFloat32NpyRowRangesIsIdenticalToBroadcastAndToTheWholeRead() throws Exception {
    Path x = npy32("x32.npy", N, V, 5, 0.2);
    DistributedInputs inputs = DistributedInputs.of(npy(x, 4L * V * 3)); // 3 rows per split
    assertThat(inputs.x().splits()).isEqualTo(5);
    assertThat(inputs.float32()).isTrue();
    checkIdentity(Analysis.ONE_SAMPLE, inputs,
        () -> NlsparkOptions.builder().statistic("t").replicates(300).seed(3).fwer(true).build());
    // and the classic path: the .npy read whole on the driver
    RunReport whole = Nlspark.run(spark, Analysis.ONE_SAMPLE,
        JobInputs.of(wholeMatrix(x)),
        NlsparkOptions.builder().statistic("t").replicates(300).seed(3).fwer(true).build(), false);
    assertSameOutputs(whole, run("blocks", 3, Analysis.ONE_SAMPLE, inputs,
        NlsparkOptions.builder().statistic("t").replicates(300).seed(3).fwer(true)
            .build()), "whole");
  }

  @Test
  void twoSampleCorrelationAndBootstrapFromFloat64NpyAreIdentical() throws Exception {
    Path x = TestData.matrix(dir, "x.npy", N, V, TestData.gaussian(7, N, V, 0.1));
    Path y = TestData.matrix(dir, "y.npy", 9, V, TestData.gaussian(8, 9, V, -0.1));
    DistributedInputs two = DistributedInputs.twoGroups(npy(x, 8L * V * 4), npy(y, 8L * V * 2));
    assertThat(two.float32()).isFalse();
    checkIdentity(Analysis.TWO_SAMPLE, two,
        () -> NlsparkOptions.builder().statistic("welch-t").replicates(200).seed(9).build());
    double[] target = TestData.gaussian(11, 1, N, 0);
    DistributedInputs corr = DistributedInputs.withTarget(npy(x, 8L * V * 5), target);
    checkIdentity(Analysis.CORRELATION, corr,
        () -> NlsparkOptions.builder().statistic("pearson").replicates(200).seed(2).fwer(true)
            .build());
    DistributedInputs boot = DistributedInputs.of(npy(x, 8L * V * 5));
    checkIdentity(Analysis.BOOTSTRAP, boot,
        () -> NlsparkOptions.builder().statistic("median").replicates(300).seed(4)
            .saveSamples(true).build());
  }

  /** One Parquet file per group of rows, under one directory (file-name then row order). */
  private Path parquet32(String name, float[] values, int rows, int cols, int[] filesRows) {
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
        .add("voxels", org.apache.spark.sql.types.DataTypes.createArrayType(
            org.apache.spark.sql.types.DataTypes.FloatType));
    Path out = dir.resolve(name);
    int row = 0;
    for (int part = 0; part < filesRows.length; part++) {
      List<org.apache.spark.sql.Row> list = new ArrayList<>();
      for (int r = 0; r < filesRows[part]; r++, row++) {
        List<Float> v = new ArrayList<>();
        for (int j = 0; j < cols; j++) {
          v.add(values[row * cols + j]);
        }
        list.add(org.apache.spark.sql.RowFactory.create(v));
      }
      spark.createDataFrame(list, schema).coalesce(1).write()
          .parquet(out.resolve("part=" + part).toString());
    }
    assertThat(row).isEqualTo(rows);
    return out;
  }

  @Test
  void oneSampleFromParquetFilesIsIdenticalToBroadcastAndToTheSameNpy() throws Exception {
    double[] g = TestData.gaussian(31, N, V, 0.2);
    float[] f = new float[g.length];
    for (int i = 0; i < g.length; i++) {
      f[i] = (float) g[i];
    }
    Path table = parquet32("table", f, N, V, new int[] {5, 1, 7});
    Path npy = dir.resolve("same.npy");
    NpyWriter.writeFloat32(npy, new long[] {N, V}, f);
    org.apache.hadoop.conf.Configuration conf = spark.sparkContext().hadoopConfiguration();
    DistributedInputs inputs = org.nlspark.spark.data.Sources.of(spark,
        org.nlspark.spark.io.StudyInputs.resolve(conf, table.toString(), null, null, null, null),
        null);
    assertThat(inputs.x().splits()).isEqualTo(3);
    assertThat(inputs.x().samples()).isEqualTo(N);
    assertThat(inputs.float32()).isTrue();
    checkIdentity(Analysis.ONE_SAMPLE, inputs,
        () -> NlsparkOptions.builder().statistic("t").replicates(300).seed(3).fwer(true).build());
    assertSameOutputs(run("broadcast", null, Analysis.ONE_SAMPLE, DistributedInputs.of(npy(npy,
        4L * V * 4)), NlsparkOptions.builder().statistic("t").replicates(300).seed(3)
        .fwer(true).build()), run("blocks", 3, Analysis.ONE_SAMPLE, inputs, NlsparkOptions.builder()
        .statistic("t").replicates(300).seed(3).fwer(true).build()), "parquet vs npy");
    // A missing column is refused with its name, before any task reads values.
    assertThatThrownBy(() -> org.nlspark.spark.data.Sources.of(spark,
        org.nlspark.spark.io.StudyInputs.resolve(conf, table.toString(), null, null, "betas",
            null), null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("no column betas").hasMessageContaining("--column");
  }

  private static NiftiMask mask(int nx, int ny, int nz) {
    NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(nx, ny, nz)
        .sform(1, new double[][] {{-2, 0, 0, 40}, {0, 2, 0, -20}, {0, 0, 2, 10}}).build();
    double[] m = new double[nx * ny * nz];
    for (int i = 0; i < m.length; i++) {
      m[i] = (i * 7 % 10) < 8 ? 1 : 0; // 80% of the grid, not in one run
    }
    return NiftiMask.fromImage(h, m, "mask");
  }

  @Test
  void oneSampleFrom3dNiftiGzFilesIsIdentical() throws Exception {
    NiftiMask mask = mask(16, 14, 12); // 2688 grid voxels, 2150 in the mask: 3 blocks
    assertThat(mask.count()).isGreaterThan(2048);
    List<String> paths = new ArrayList<>();
    double[] g = TestData.gaussian(21, N, mask.count(), 0.3);
    for (int s = 0; s < N; s++) {
      float[] values = new float[mask.count()];
      for (int j = 0; j < values.length; j++) {
        values[j] = (float) g[s * mask.count() + j];
      }
      Path p = dir.resolve(String.format("sub-%02d.nii.gz", s));
      NiftiWriter.writeMap(p, mask, values, 0f);
      paths.add(p.toString());
    }
    DistributedInputs inputs = DistributedInputs.of(
        NiftiSamples.volumes("--input subjects", paths, mask, 4, true));
    checkIdentity(Analysis.ONE_SAMPLE, inputs,
        () -> NlsparkOptions.builder().statistic("mean").replicates(256).seed(1).fwer(true)
            .build());
  }

  /** A 4-D .nii (uncompressed) or .nii.gz with {@code volumes} on the mask's grid. */
  private Path fourD(String name, NiftiMask mask, NiftiDatatype type, double slope,
      double[][] volumes) throws Exception {
    int[] d = mask.grid().dims();
    NiftiHeader h = mask.geometry().toBuilder().datatype(type)
        .shape(d[0], d[1], d[2], volumes.length).scaling(slope, 0).build();
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    byte[] header = h.toBytes();
    bytes.write(header);
    bytes.write(new byte[(int) (h.voxOffset() - header.length)]);
    int item = type == NiftiDatatype.INT16 ? 2 : 4;
    java.nio.ByteBuffer b = java.nio.ByteBuffer.allocate(mask.grid().voxels() * item)
        .order(java.nio.ByteOrder.LITTLE_ENDIAN);
    for (double[] v : volumes) {
      b.clear();
      float[] vol = new float[mask.grid().voxels()];
      for (int n = 0; n < mask.count(); n++) {
        vol[mask.fileIndex(n)] = (float) v[n];
      }
      for (float f : vol) {
        if (type == NiftiDatatype.INT16) {
          b.putShort((short) Math.round(f / slope));
        } else if (type == NiftiDatatype.INT32) {
          b.putInt(Math.round(f / (float) slope));
        } else {
          b.putFloat(f);
        }
      }
      bytes.write(b.array());
    }
    Path p = dir.resolve(name);
    try (java.io.OutputStream out = name.endsWith(".gz")
        ? new java.util.zip.GZIPOutputStream(java.nio.file.Files.newOutputStream(p))
        : java.nio.file.Files.newOutputStream(p)) {
      out.write(bytes.toByteArray());
    }
    return p;
  }

  @Test
  void fourDVolumeRangesGiveTheSameOutputsAsThe3dFilesOfTheSameValues() throws Exception {
    NiftiMask mask = mask(16, 14, 12);
    double[] g = TestData.gaussian(31, N, mask.count(), 0.3);
    double[][] volumes = new double[N][mask.count()];
    List<String> paths = new ArrayList<>();
    for (int s = 0; s < N; s++) {
      float[] values = new float[mask.count()];
      for (int j = 0; j < values.length; j++) {
        values[j] = (float) g[s * mask.count() + j];
        volumes[s][j] = values[j];
      }
      Path p = dir.resolve(String.format("v-%02d.nii.gz", s));
      NiftiWriter.writeMap(p, mask, values, 0f);
      paths.add(p.toString());
    }
    Path four = fourD("all.nii.gz", mask, NiftiDatatype.FLOAT32, 1, volumes);
    DistributedInputs list = DistributedInputs.of(
        NiftiSamples.volumes("--input list", paths, mask, 5, true));
    DistributedInputs fourInputs = DistributedInputs.of(
        NiftiSamples.fourD(files, four.toString(), "--input all.nii.gz", mask, 3));
    assertThat(fourInputs.x().splits()).isEqualTo(5);
    NlsparkOptions o = NlsparkOptions.builder().statistic("t").replicates(128).seed(6).build();
    assertSameOutputs(run("blocks", 2, Analysis.ONE_SAMPLE, list, o),
        run("blocks", 3, Analysis.ONE_SAMPLE, fourInputs, o), "4-D vs 3-D");
  }

  @Test
  void scaledInt32ImagesAreHeldInFloat64AndMatchTheBroadcastPath() throws Exception {
    NiftiMask mask = mask(16, 14, 12);
    double[] g = TestData.gaussian(41, N, mask.count(), 0.5);
    double[][] volumes = new double[N][mask.count()];
    for (int s = 0; s < N; s++) {
      for (int j = 0; j < mask.count(); j++) {
        volumes[s][j] = g[s * mask.count() + j];
      }
    }
    // int32 data do not fit float32 exactly (NiftiHeader.prefersDouble): held in float64
    Path four = fourD("scaled.nii", mask, NiftiDatatype.INT32, 0.001, volumes);
    DistributedInputs inputs = DistributedInputs.of(
        NiftiSamples.fourD(files, four.toString(), "--input scaled.nii", mask, 4));
    assertThat(inputs.float32()).isFalse();
    checkIdentity(Analysis.ONE_SAMPLE, inputs,
        () -> NlsparkOptions.builder().statistic("mean").replicates(200).seed(8).fwer(true)
            .build());
  }

  @Test
  void withoutAMaskExecutorsBuildTheDefaultMask() throws Exception {
    NiftiMask mask = mask(12, 10, 9);
    double[] g = TestData.gaussian(51, N, mask.count(), 0.3);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < N; s++) {
      float[] values = new float[mask.count()];
      for (int j = 0; j < values.length; j++) {
        values[j] = (float) g[s * mask.count() + j];
      }
      if (s == 4) {
        values[0] = Float.NaN; // not finite in every sample: left out of the default mask
      }
      Path p = dir.resolve(String.format("d-%02d.nii.gz", s));
      NiftiWriter.writeMap(p, mask, values, 0f);
      list.append(p.getFileName()).append('\n');
    }
    Path listFile = java.nio.file.Files.writeString(dir.resolve("list.txt"), list.toString());
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    NlsparkOptions o = NlsparkOptions.builder().statistic("t").replicates(100).seed(2).build();
    RunReport noMask = Nlspark.oneSample(spark, listFile.toString(), o);
    assertThat(noMask.result.voxels()).isEqualTo(mask.count() - 1);
    // the same voxels as an explicit mask without voxel 0
    boolean[] selected = new boolean[mask.grid().voxels()];
    for (int n = 1; n < mask.count(); n++) {
      selected[mask.fileIndex(n)] = true;
    }
    Path explicit = dir.resolve("explicit.nii.gz");
    NiftiWriter.writeMask(explicit, NiftiMask.fromSelection(mask.geometry(), selected, "m"));
    RunReport withMask = Nlspark.oneSample(spark, listFile.toString(),
        o.toBuilder().maskFile(explicit.toString()).build());
    assertSameOutputs(withMask, noMask, "default mask");
  }

  @Test
  void nanInASampleIsRefusedNamingTheFile() throws Exception {
    NiftiMask mask = mask(6, 5, 4);
    List<String> paths = new ArrayList<>();
    for (int s = 0; s < 4; s++) {
      float[] values = new float[mask.count()];
      java.util.Arrays.fill(values, s);
      if (s == 2) {
        values[5] = Float.NaN;
      }
      Path p = dir.resolve("s" + s + ".nii.gz");
      NiftiWriter.writeMap(p, mask, values, 0f);
      paths.add(p.toString());
    }
    DistributedInputs inputs = DistributedInputs.of(
        NiftiSamples.volumes("--input list", paths, mask, 1, true));
    assertThatThrownBy(() -> run("blocks", null, Analysis.ONE_SAMPLE, inputs,
        NlsparkOptions.builder().replicates(50).build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("s2.nii.gz").hasMessageContaining("NaN at voxel (i, j, k) = ("
            + mask.ijk(5)[0] + ", " + mask.ijk(5)[1] + ", " + mask.ijk(5)[2] + ")");
  }

  @Test
  void autoChoosesBlocksFromTheSizeSetting() throws Exception {
    Path x = npy32("auto.npy", 6, 300, 3, 0);
    DistributedInputs inputs = DistributedInputs.of(npy(x, 1 << 20));
    spark.conf().set(NlsparkConf.INGEST_BLOCKS_MIN_BYTES, "1000000");
    try {
      RunReport small = run("auto", null, Analysis.ONE_SAMPLE, inputs,
          NlsparkOptions.builder().replicates(64).build());
      assertThat(ingestOf(small).get("mode")).isEqualTo("broadcast");
      spark.conf().set(NlsparkConf.INGEST_BLOCKS_MIN_BYTES, "1000");
      RunReport large = run("auto", null, Analysis.ONE_SAMPLE, inputs,
          NlsparkOptions.builder().replicates(64).build());
      assertThat(ingestOf(large).get("mode")).isEqualTo("blocks");
      assertThat((String) ingestOf(large).get("reason")).contains("at least the 1000");
      assertThat(large.summary().toString()).contains("ingest");
      assertSameOutputs(small, large, "auto");
    } finally {
      spark.conf().unset(NlsparkConf.INGEST_BLOCKS_MIN_BYTES);
    }
  }
}
