package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.SurfaceMesh;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * isc and timeseries-correlation on surface series (DESIGN §8): one GIFTI (a data array per
 * time point) or MGH (a frame per time point) file per subject on a mesh, with a vertex mask,
 * give the bytes of the same values masked into an .npy, read on the driver and from vertex
 * blocks on executors, for 1 and 3 partitions; maps come back in the input's format on every
 * vertex of the mesh; series of unequal length are refused naming the file.
 */
class SurfaceSeriesTest {
  static final int SIDE = 36; // 1296 vertices: two voxel blocks of the default grid
  static final int V = SIDE * SIDE;
  static final int S = 4;
  static final int T = 14;

  @TempDir static Path dir;
  static float[][][] data; // subject, time point, vertex
  static boolean[] keep; // the mask: every vertex but each seventh

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
  }

  @BeforeAll
  static void writeStudy() throws IOException {
    double[] xyz = new double[3 * V];
    List<Integer> tri = new ArrayList<>();
    for (int r = 0; r < SIDE; r++) {
      for (int c = 0; c < SIDE; c++) {
        int v = r * SIDE + c;
        xyz[3 * v] = c;
        xyz[3 * v + 1] = r;
        if (r + 1 < SIDE && c + 1 < SIDE) {
          tri.addAll(List.of(v, v + 1, v + SIDE, v + 1, v + SIDE + 1, v + SIDE));
        }
      }
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve("mesh.surf.gii"))) {
      Gifti.writeMesh(out, new SurfaceMesh("grid", xyz,
          tri.stream().mapToInt(Integer::intValue).toArray()));
    }
    keep = new boolean[V];
    float[] mask = new float[V];
    for (int v = 0; v < V; v++) {
      keep[v] = v % 7 != 0;
      mask[v] = keep[v] ? 1 : 0;
    }
    try (OutputStream out = Files.newOutputStream(dir.resolve("mask.func.gii"))) {
      Gifti.writeMap(out, "mask", mask);
    }
    SplittableRandom random = new SplittableRandom(17);
    data = new float[S][T][V];
    List<String> gifti = new ArrayList<>();
    List<String> mgh = new ArrayList<>();
    for (int s = 0; s < S; s++) {
      for (int t = 0; t < T; t++) {
        for (int v = 0; v < V; v++) {
          double shared = v % 3 == 0 ? Math.sin(0.7 * t + 0.01 * v) : 0;
          data[s][t][v] = (float) (shared + 0.6 * random.nextGaussian());
        }
      }
      String name = String.format("sub-%02d", s + 1);
      writeGiftiSeries(dir.resolve(name + ".func.gii"), data[s]);
      SurfaceCliTest.writeMgh(dir.resolve(name + ".mgh"), data[s]); // a frame per time point
      gifti.add(name + ".func.gii");
      mgh.add(name + ".mgh");
    }
    Files.write(dir.resolve("gifti.txt"), gifti);
    Files.write(dir.resolve("mgh.txt"), mgh);
    // the same values masked, as a user would have given them before: (S, T, kept vertices)
    int kept = 0;
    for (boolean k : keep) {
      kept += k ? 1 : 0;
    }
    float[] masked = new float[S * T * kept];
    int i = 0;
    for (int s = 0; s < S; s++) {
      for (int t = 0; t < T; t++) {
        for (int v = 0; v < V; v++) {
          if (keep[v]) {
            masked[i++] = data[s][t][v];
          }
        }
      }
    }
    NpyWriter.writeFloat32(dir.resolve("masked.npy"), new long[] {S, T, kept}, masked);
    NpyWriter.writeFloat32(dir.resolve("one.npy"), new long[] {T, kept},
        java.util.Arrays.copyOf(masked, T * kept));
    double[] y = new double[T];
    for (int t = 0; t < T; t++) {
      y[t] = Math.sin(0.7 * t) + 0.03 * t;
    }
    NpyWriter.writeFloat64(dir.resolve("target.npy"), new long[] {T}, y);
  }

  private static NlsparkOptions.Builder onMesh() {
    return NlsparkOptions.builder().surfaceFile(path("mesh.surf.gii"))
        .maskFile(path("mask.func.gii"));
  }

  private static String path(String name) {
    return dir.resolve(name).toString();
  }

  private RunReport isc(String ingest, Integer partitions, String input, NlsparkOptions o) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.isc(spark, input, o.toBuilder().partitions(partitions).build());
  }

  @Test
  void iscOfSurfaceSeriesIsTheMaskedNpysOnEveryReadPath() throws IOException {
    NlsparkOptions npy = NlsparkOptions.builder().replicates(30).seed(3)
        .nullMethod("circle-shift").build();
    NlsparkOptions mesh = onMesh().replicates(30).seed(3).nullMethod("circle-shift").build();
    RunReport reference = isc("broadcast", null, path("masked.npy"), npy);
    for (String input : List.of("gifti.txt", "mgh.txt")) {
      RunReport here = isc("broadcast", null, path(input), mesh);
      assertThat(ingestOf(here).get("mode")).isEqualTo("broadcast");
      assertSameOutputs(reference, here, input + " on the driver");
      for (Integer p : new Integer[] {1, 3}) {
        RunReport blocks = isc("blocks", p, path(input), mesh);
        assertThat(ingestOf(blocks).get("mode")).isEqualTo("blocks");
        assertSameOutputs(reference, blocks, input + " from blocks, partitions " + p);
      }
    }
    // written on every vertex of the mesh, in the input's format (0 outside the mask)
    RunReport run = isc("broadcast", null, path("gifti.txt"), mesh);
    Nlspark.write(run, path("out-isc"), false);
    VertexData isc = Gifti.readData(Files.newInputStream(dir.resolve("out-isc/isc.func.gii")),
        "isc.func.gii");
    double[] values = run.result.outputs().get(0).values();
    assertThat(isc.vertices()).isEqualTo(V);
    for (int v = 0, k = 0; v < V; v++) {
      assertThat(isc.samples()[0][v]).isEqualTo(keep[v] ? (double) (float) values[k++] : 0.0);
    }
    assertThat(run.summary().get("inputs").toString()).contains("mesh.surf.gii");
  }

  @Test
  void timeseriesCorrelationOfOneSubjectsSurfaceSeriesIsItsNpys() throws IOException {
    NlsparkOptions o = onMesh().replicates(25).seed(4).build();
    spark.conf().set(NlsparkConf.INGEST, "broadcast");
    RunReport reference = Nlspark.timeseriesCorrelation(spark, path("one.npy"),
        path("target.npy"), NlsparkOptions.builder().replicates(25).seed(4).build());
    RunReport here = Nlspark.timeseriesCorrelation(spark, path("sub-01.func.gii"),
        path("target.npy"), o);
    assertSameOutputs(reference, here, "gifti on the driver");
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    RunReport blocks = Nlspark.timeseriesCorrelation(spark, path("sub-01.mgh"),
        path("target.npy"), o.toBuilder().partitions(3).build());
    assertSameOutputs(reference, blocks, "mgh from blocks");
    // several subjects are refused, as with images
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Nlspark.timeseriesCorrelation(
        spark, path("gifti.txt"), path("target.npy"), o))
        .hasMessageContaining("names 4 files (").hasMessageContaining("give one subject's"
            + " surface series, and run once per subject");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> Nlspark.timeseriesCorrelation(
        spark, path("sub-01.func.gii"), path("target.npy"),
        o.toBuilder().vertexAreaFile(path("mask.func.gii")).build()))
        .hasMessageContaining("Cannot use --vertex-area").hasMessageContaining("drop it");
  }

  @Test
  void seriesOfUnequalLengthOrWithoutAMeshAreRefused() throws IOException {
    writeGiftiSeries(dir.resolve("short.func.gii"), java.util.Arrays.copyOf(data[1], T - 2));
    Files.write(dir.resolve("unequal.txt"), List.of("sub-01.func.gii", "short.func.gii"));
    CliRun unequal = CliRun.of("isc", "--input", path("unequal.txt"), "--surface",
        path("mesh.surf.gii"), "--output", path("refused"), "--quiet");
    assertThat(unequal.code()).isEqualTo(2);
    assertThat(unequal.err()).contains("short.func.gii as subject 1 of --input")
        .contains("it has 12 time points, but").contains("has 14");
    CliRun noMesh = CliRun.of("isc", "--input", path("gifti.txt"), "--output", path("refused"),
        "--quiet");
    assertThat(noMesh.code()).isEqualTo(2);
    assertThat(noMesh.err()).contains("it is surface data (GIFTI or MGH), which needs its mesh;"
        + " give --surface");
    assertThat(dir.resolve("refused")).doesNotExist();
    // from the command line, the maps in the input's format
    CliRun ok = CliRun.of("isc", "--input", path("mgh.txt"), "--surface", path("mesh.surf.gii"),
        "--permutations", "20", "--null", "circle-shift", "--output", path("out-cli"),
        "--quiet");
    assertThat(ok.code()).as(ok.err()).isZero();
    assertThat(dir.resolve("out-cli/isc.mgh")).exists();
    assertThat(dir.resolve("out-cli/p.mgh")).exists();
  }

  /** A GIFTI of one float32 data array per time point, in ASCII encoding. */
  private static void writeGiftiSeries(Path path, float[][] series) throws IOException {
    StringBuilder b = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<GIFTI Version=\"1.0\" NumberOfDataArrays=\"" + series.length + "\">\n");
    for (float[] frame : series) {
      b.append("<DataArray Intent=\"NIFTI_INTENT_TIME_SERIES\" DataType=\"NIFTI_TYPE_FLOAT32\""
          + " ArrayIndexingOrder=\"RowMajorOrder\" Dimensionality=\"1\" Dim0=\"")
          .append(frame.length).append("\" Encoding=\"ASCII\" Endian=\"LittleEndian\""
              + " ExternalFileName=\"\" ExternalFileOffset=\"\"><Data>");
      for (float x : frame) {
        b.append(x).append(' ');
      }
      b.append("</Data></DataArray>\n");
    }
    Files.writeString(path, b.append("</GIFTI>\n").toString());
  }
}
