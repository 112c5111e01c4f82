package org.nlspark.core.io.surface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Base64;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.tfce.MeshAdjacency;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * GIFTI, FreeSurfer surface and MGH files written by nibabel ({@code
 * src/test/resources/surface/make_fixtures.py}): a 42-vertex icosphere of radius 50 mm and three
 * samples holding (s + 1) / 4 + v / 64 at vertex v, every value exact in float32.
 */
class SurfaceFilesTest {
  private static InputStream resource(String name) {
    InputStream in = SurfaceFilesTest.class.getResourceAsStream("/surface/" + name);
    if (in == null) {
      throw new IllegalStateException("missing test resource " + name);
    }
    return in;
  }

  private static byte[] bytes(String name) {
    try (InputStream in = resource(name)) {
      return in.readAllBytes();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static double expected(int sample, int vertex) {
    return (sample + 1) / 4.0 + vertex / 64.0;
  }

  private static void assertSamples(VertexData data, int first, int count) {
    assertThat(data.vertices()).isEqualTo(42);
    assertThat(data.samples()).hasNumberOfRows(count);
    assertThat(data.float32()).isTrue();
    for (int s = 0; s < count; s++) {
      for (int v = 0; v < 42; v++) {
        assertThat(data.samples()[s][v]).as("sample %d vertex %d", s, v)
            .isEqualTo(expected(first + s, v));
      }
    }
  }

  @Test
  void theGiftiAndFreeSurferMeshesAreTheSameIcosphere() {
    SurfaceMesh gifti = Gifti.readMesh(resource("ico42.surf.gii"), "ico42.surf.gii");
    SurfaceMesh fs = FreeSurfer.readSurface(resource("ico42.white"), "ico42.white");
    assertThat(gifti.vertices()).isEqualTo(42);
    assertThat(gifti.triangles()).isEqualTo(80);
    assertThat(fs.triangleIndices()).isEqualTo(gifti.triangleIndices());
    for (int v = 0; v < 42; v++) {
      assertThat(fs.coordinate(v)).containsExactly(gifti.coordinate(v));
      double[] p = gifti.coordinate(v);
      assertThat(Math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2])).isCloseTo(50, within(1e-5));
    }
    // A closed surface of genus 0: V - E + F = 2; 12 vertices of degree 5, 30 of degree 6.
    MeshAdjacency graph = MeshAdjacency.of(gifti);
    int edges = 0;
    int[] degrees = new int[8];
    for (int v = 0; v < 42; v++) {
      int d = graph.neighboursOf(v).length;
      edges += d;
      degrees[d]++;
    }
    assertThat(42 - edges / 2 + 80).isEqualTo(2);
    assertThat(degrees[5]).isEqualTo(12);
    assertThat(degrees[6]).isEqualTo(30);
    double area = Arrays.stream(gifti.vertexAreas()).sum();
    assertThat(area).isLessThan(4 * Math.PI * 50 * 50).isGreaterThan(0.9 * 4 * Math.PI * 2500);
  }

  @Test
  void aWrittenMeshReadsBackAsTheSameMesh() throws Exception {
    SurfaceMesh nibabels = Gifti.readMesh(resource("ico42.surf.gii"), "ico42.surf.gii");
    java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
    Gifti.writeMesh(out, nibabels);
    assertThat(out.toString(StandardCharsets.UTF_8)).contains("NumberOfDataArrays=\"2\"");
    SurfaceMesh back = MeshReader.read(new java.io.ByteArrayInputStream(out.toByteArray()),
        "written");
    assertThat(back.triangleIndices()).isEqualTo(nibabels.triangleIndices());
    for (int v = 0; v < 42; v++) {
      assertThat(back.coordinate(v)).containsExactly(nibabels.coordinate(v)); // float32 both
    }
    // and the FreeSurfer file, told apart by its bytes
    SurfaceMesh fs = MeshReader.read(resource("ico42.white"), "ico42.white");
    assertThat(fs.triangleIndices()).isEqualTo(nibabels.triangleIndices());
  }

  @Test
  void everyEncodingAndOrderAndMghReadTheSameValues() {
    assertSamples(Gifti.readData(resource("data.func.gii"), "data.func.gii"), 0, 3);
    assertSamples(Gifti.readData(resource("data-columns.func.gii"), "c"), 0, 3);
    assertSamples(FreeSurfer.readMgh(resource("data.mgh"), "data.mgh"), 0, 3);
    assertSamples(FreeSurfer.readMgh(resource("data.mgz"), "data.mgz"), 0, 3);
    for (int s = 0; s < 3; s++) {
      String name = "sub-" + (s + 1) + ".shape.gii";
      assertSamples(Gifti.readData(resource(name), name), s, 1);
    }
    VertexData mask = Gifti.readData(resource("mask.label.gii"), "mask.label.gii");
    assertThat(mask.samples()[0][0]).isZero();
    assertThat(mask.samples()[0][12]).isZero();
    assertThat(mask.samples()[0][13]).isZero();
    assertThat(Arrays.stream(mask.samples()[0]).sum()).isEqualTo(39);
  }

  @Test
  void bigEndianAndFloat64ArraysDecode() {
    ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.BIG_ENDIAN);
    b.putDouble(1.5).putDouble(-2.25).putDouble(1e-300);
    String xml = gifti("NIFTI_TYPE_FLOAT64", "Base64Binary", "BigEndian", 3,
        Base64.getEncoder().encodeToString(b.array()));
    VertexData data = Gifti.readData(stream(xml), "be.func.gii");
    assertThat(data.samples()[0]).containsExactly(1.5, -2.25, 1e-300);
    assertThat(data.float32()).isFalse();
  }

  @Test
  void badFilesAreRefusedInOneSentence() {
    assertThatThrownBy(() -> Gifti.readData(stream(gifti("NIFTI_TYPE_FLOAT32",
        "ExternalFileBinary", "LittleEndian", 3, "").replace("ExternalFileName=\"\"",
        "ExternalFileName=\"data.bin\"")), "ext.func.gii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The GIFTI file ext.func.gii (data array 0) keeps its data in an external"
            + " file (data.bin); nlspark reads GIFTI files that hold their data, as nibabel"
            + " writes them by default");
    assertThatThrownBy(() -> Gifti.readData(resource("ico42.surf.gii"), "ico42.surf.gii"))
        .hasMessage("The GIFTI file ico42.surf.gii is a surface mesh (a pointset and triangles),"
            + " not per-vertex data; give meshes with --surface");
    assertThatThrownBy(() -> Gifti.readMesh(resource("data.func.gii"), "data.func.gii"))
        .hasMessage("The GIFTI file data.func.gii is not a surface mesh: it needs a"
            + " NIFTI_INTENT_POINTSET array and a NIFTI_INTENT_TRIANGLE array, but has"
            + " NIFTI_INTENT_NONE, NIFTI_INTENT_NONE, NIFTI_INTENT_NONE");
    assertThatThrownBy(() -> Gifti.readData(stream("<nifti/>"), "x.gii"))
        .hasMessage("x.gii is not a GIFTI file: its XML starts with <nifti>, not <GIFTI>");
    assertThatThrownBy(() -> Gifti.readData(stream("<GIFTI><DataArray"), "x.gii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("x.gii is not a readable GIFTI file: its XML is broken (");
    assertThatThrownBy(() -> Gifti.readData(stream(gifti("NIFTI_TYPE_FLOAT32", "Base64Binary",
        "LittleEndian", 3, Base64.getEncoder().encodeToString(new byte[8]))), "short.gii"))
        .hasMessage("The GIFTI file short.gii (data array 0) holds 8 bytes of data, but its"
            + " dimensions and DataType make 12");
    assertThatThrownBy(() -> Gifti.readData(stream(gifti("NIFTI_TYPE_FLOAT32", "ASCII",
        "LittleEndian", 3, "1 2")), "a.gii"))
        .hasMessage("The GIFTI file a.gii (data array 0) holds 2 ASCII values, but its"
            + " dimensions make 3");
    byte[] mgz = bytes("data.mgz");
    assertThatThrownBy(() -> FreeSurfer.readMgh(
        new ByteArrayInputStream(Arrays.copyOf(mgz, mgz.length - 40)), "cut.mgz"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The MGH file cut.mgz ends before its data does");
    byte[] quad = bytes("ico42.white");
    quad[2] = (byte) 0xFF;
    assertThatThrownBy(() -> FreeSurfer.readSurface(new ByteArrayInputStream(quad), "lh.q"))
        .hasMessage("The FreeSurfer surface lh.q is made of quadrangles; convert it to triangles"
            + " (mris_convert lh.q out.surf.gii)");
    assertThatThrownBy(() -> FreeSurfer.readSurface(stream("<?xml"), "lh.x"))
        .hasMessage("lh.x is neither a GIFTI nor a FreeSurfer surface: it starts with neither"
            + " <?xml nor the bytes FF FF FE");
    assertThatThrownBy(() -> FreeSurfer.readMgh(stream("\0\0\0\2"), "v2.mgh"))
        .hasMessage("v2.mgh is not an MGH file: it starts with version 2, not 1");
  }

  private static InputStream stream(String text) {
    return new ByteArrayInputStream(text.getBytes(StandardCharsets.UTF_8));
  }

  private static String gifti(String type, String encoding, String endian, int n, String data) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!DOCTYPE GIFTI SYSTEM \"http://www.nitrc.org/frs/download.php/115/gifti.dtd\">\n"
        + "<GIFTI Version=\"1.0\" NumberOfDataArrays=\"1\"><DataArray Intent=\"NIFTI_INTENT_NONE\""
        + " DataType=\"" + type + "\" ArrayIndexingOrder=\"RowMajorOrder\" Dimensionality=\"1\""
        + " Dim0=\"" + n + "\" Encoding=\"" + encoding + "\" Endian=\"" + endian + "\""
        + " ExternalFileName=\"\" ExternalFileOffset=\"\"><MetaData/><Data>" + data
        + "</Data></DataArray></GIFTI>";
  }
}
