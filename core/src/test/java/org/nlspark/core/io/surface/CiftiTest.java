package org.nlspark.core.io.surface;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.surface.Grayordinates;

/**
 * CIFTI-2 dense files (DESIGN §9) read from bytes laid out here by hand as the format says (a
 * NIfTI-2 header, extension 32 holding the XML, the matrix with the row index fastest), in
 * either byte order and several data types; the full space of the brain models; the one-map
 * writer read back; and the refusals.
 */
class CiftiTest {
  // left cortex: vertices 0, 2, 3 of 5; right cortex: 1, 0 of 3 (not increasing); 2 voxels
  static final String MODELS = "<MatrixIndicesMap AppliesToMatrixDimension=\"1\""
      + " IndicesMapToDataType=\"CIFTI_INDEX_TYPE_BRAIN_MODELS\">"
      + "<BrainModel IndexOffset=\"0\" IndexCount=\"3\" ModelType=\"CIFTI_MODEL_TYPE_SURFACE\""
      + " BrainStructure=\"CIFTI_STRUCTURE_CORTEX_LEFT\" SurfaceNumberOfVertices=\"5\">"
      + "<VertexIndices>0 2 3</VertexIndices></BrainModel>"
      + "<BrainModel IndexOffset=\"3\" IndexCount=\"2\" ModelType=\"CIFTI_MODEL_TYPE_SURFACE\""
      + " BrainStructure=\"CIFTI_STRUCTURE_CORTEX_RIGHT\" SurfaceNumberOfVertices=\"3\">"
      + "<VertexIndices>1 0</VertexIndices></BrainModel>"
      + "<Volume VolumeDimensions=\"4,5,6\"><TransformationMatrixVoxelIndicesIJKtoXYZ"
      + " MeterExponent=\"-3\">2 0 0 -10\n0 2 0 -20\n0 0 2 -30\n0 0 0 1"
      + "</TransformationMatrixVoxelIndicesIJKtoXYZ></Volume>"
      + "<BrainModel IndexOffset=\"5\" IndexCount=\"2\" ModelType=\"CIFTI_MODEL_TYPE_VOXELS\""
      + " BrainStructure=\"CIFTI_STRUCTURE_THALAMUS_LEFT\"><VoxelIndicesIJK>1 2 3\n3 4 5"
      + "</VoxelIndicesIJK></BrainModel></MatrixIndicesMap>";
  static final String SCALARS = "<MatrixIndicesMap AppliesToMatrixDimension=\"0\""
      + " IndicesMapToDataType=\"CIFTI_INDEX_TYPE_SCALARS\"><NamedMap><MapName>a</MapName>"
      + "</NamedMap><NamedMap><MapName>b</MapName></NamedMap></MatrixIndicesMap>";

  static String xml(String rows, String columns) {
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?><CIFTI Version=\"2\"><Matrix>" + rows
        + columns + "</Matrix></CIFTI>";
  }

  /** A dense file: rows × columns values v(r, c), the row index fastest, as the format says. */
  static byte[] file(ByteOrder order, short datatype, int bytes, int rows, int columns,
      String xml, double slope, double inter, java.util.function.IntToDoubleFunction value) {
    byte[] x = xml.getBytes(StandardCharsets.UTF_8);
    int extension = (8 + x.length + 15) / 16 * 16;
    int offset = 540 + 4 + extension;
    ByteBuffer b = ByteBuffer.allocate(offset + rows * columns * bytes).order(order);
    b.putInt(0, 540);
    b.put(4, new byte[] {'n', '+', '2', 0, '\r', '\n', 0x1a, '\n'});
    b.putShort(12, datatype);
    b.putShort(14, (short) (8 * bytes));
    long[] dim = {6, 1, 1, 1, 1, rows, columns, 1};
    for (int i = 0; i < 8; i++) {
      b.putLong(16 + 8 * i, dim[i]);
    }
    b.putLong(168, offset);
    b.putDouble(176, slope);
    b.putDouble(184, inter);
    b.put(540, (byte) 1);
    b.putInt(544, extension);
    b.putInt(548, 32);
    b.put(552, x);
    for (int c = 0; c < columns; c++) {
      for (int r = 0; r < rows; r++) {
        int i = r + rows * c;
        double v = value.applyAsDouble(i);
        int at = offset + i * bytes;
        switch (datatype) {
          case 16 -> b.putFloat(at, (float) v);
          case 64 -> b.putDouble(at, v);
          case 4 -> b.putShort(at, (short) v);
          default -> throw new IllegalArgumentException();
        }
      }
    }
    return b.array();
  }

  static VertexData read(byte[] bytes) {
    return Cifti.readData(new ByteArrayInputStream(bytes), "x.dscalar.nii");
  }

  @Test
  void rowsAreSamplesOnTheFullSpaceOfTheBrainModelsInEitherByteOrderAndType() {
    // value of (row r, column c) = 10 c + r: a column's rows are adjacent in the file
    for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
      for (short type : new short[] {16, 64, 4}) {
        int bytes = type == 16 ? 4 : type == 64 ? 8 : 2;
        VertexData d = read(file(order, type, bytes, 2, 7, xml(SCALARS, MODELS), 0, 0,
            i -> 10 * (i / 2) + i % 2));
        // full space: left 5 vertices, right 3, then the 2 voxels
        assertThat(d.vertices()).isEqualTo(10);
        assertThat(d.samples()).hasNumberOfRows(2);
        int[] slotOfColumn = {0, 2, 3, 5 + 1, 5 + 0, 8, 9};
        for (int r = 0; r < 2; r++) {
          double[] want = new double[10];
          for (int c = 0; c < 7; c++) {
            want[slotOfColumn[c]] = 10 * c + r;
          }
          assertThat(d.samples()[r]).as(order + " " + type).containsExactly(want);
        }
        assertThat(d.float32()).isEqualTo(type != 64);
        Grayordinates g = d.grayordinates();
        assertThat(g.slotOfColumn()).containsExactly(slotOfColumn);
        assertThat(g.describe()).isEqualTo("CORTEX_LEFT 3 of 5 vertices, CORTEX_RIGHT 2 of 3"
            + " vertices, THALAMUS_LEFT 2 voxels");
        assertThat(g.voxelCoordinates(g.models().get(2), 1)).containsExactly(-4, -12, -20);
        assertThat(g.place(6)).isEqualTo("CORTEX_RIGHT vertex 1");
        assertThat(g.place(9)).isEqualTo("THALAMUS_LEFT voxel (3, 4, 5)");
      }
    }
  }

  @Test
  void scaledValuesAndTimeSeriesRowsAreRead() {
    String series = "<MatrixIndicesMap AppliesToMatrixDimension=\"0\""
        + " IndicesMapToDataType=\"CIFTI_INDEX_TYPE_SERIES\" NumberOfSeriesPoints=\"3\""
        + " SeriesExponent=\"0\" SeriesStart=\"0\" SeriesStep=\"0.72\" SeriesUnit=\"SECOND\"/>";
    VertexData d = read(file(ByteOrder.LITTLE_ENDIAN, (short) 4, 2, 3, 7, xml(series, MODELS),
        0.5, 1, i -> i));
    assertThat(d.samples()[2][9]).isEqualTo(0.5 * (2 + 3 * 6) + 1);
    assertThat(d.float32()).isFalse();
  }

  @Test
  void aWrittenMapIsReadBackWithTheSameModelsAndValues() throws IOException {
    Grayordinates g = read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS), 0, 0, i -> i)).grayordinates();
    float[] full = new float[g.fullSize()];
    for (int v = 0; v < full.length; v++) {
      full[v] = 0.25f * v - 1;
    }
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    Cifti.writeMap(out, g, "p_fwer & <tfce>", full);
    VertexData back = read(out.toByteArray());
    assertThat(back.grayordinates().sameModels(g)).isTrue();
    assertThat(back.samples()).hasNumberOfRows(1);
    for (int slot : g.slotOfColumn()) {
      assertThat(back.samples()[0][slot]).isEqualTo(full[slot]);
    }
    assertThat(back.samples()[0][1]).as("a vertex the file does not hold").isZero();
    assertThat(new String(out.toByteArray(), StandardCharsets.ISO_8859_1))
        .contains("<MapName>p_fwer &amp; &lt;tfce&gt;</MapName>");
  }

  @Test
  void aSlopeOfZeroOrNotFiniteIsNoScalingAndTheModelsReadAlone() {
    for (double slope : new double[] {0, Double.NaN, Double.POSITIVE_INFINITY}) {
      VertexData d = read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
          xml(SCALARS, MODELS), slope, 5, i -> i));
      assertThat(d.samples()[1][9]).as("slope " + slope).isEqualTo(13);
      assertThat(d.float32()).isTrue();
    }
    byte[] whole = file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7, xml(SCALARS, MODELS), 0,
        0, i -> i);
    // the header and XML alone: the data may be cut off
    Cifti.Head head = Cifti.readHead(new ByteArrayInputStream(Arrays.copyOf(whole,
        whole.length - 20)), "x.dscalar.nii");
    Grayordinates g = head.models();
    assertThat(g.columns()).isEqualTo(7);
    assertThat(head.rows()).isEqualTo(2);
    assertThat(head.float32()).isTrue();
    assertThat(g.sameModels(read(whole).grayordinates())).isTrue();
  }

  @Test
  void corruptSizesAndMissingAttributesAreRefusedInOneSentence() {
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace(" BrainStructure=\"CIFTI_STRUCTURE_CORTEX_LEFT\"", "")),
        0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read x.dscalar.nii: a <BrainModel> of its CIFTI XML has no"
            + " BrainStructure");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace("SurfaceNumberOfVertices=\"5\"",
            "SurfaceNumberOfVertices=\"2147483647\"")), 0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("is on a surface of 2147483647 vertices, more than 50000000");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace("IndexCount=\"2\"", "IndexCount=\"two\"")), 0, 0,
        i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("has IndexCount=\"two\"; it must be a whole number >= 0");
    byte[] huge = file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7, xml(SCALARS, MODELS), 0, 0,
        i -> i);
    ByteBuffer.wrap(huge).order(ByteOrder.LITTLE_ENDIAN).putLong(16 + 8 * 5, 1L << 40);
    assertThatThrownBy(() -> read(huge)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("more than 2 GB in one file; split its rows");
  }

  @Test
  void filesThatAreNotDenseCiftiAreRefusedInOneSentence() {
    String parcels = "<MatrixIndicesMap AppliesToMatrixDimension=\"1\""
        + " IndicesMapToDataType=\"CIFTI_INDEX_TYPE_PARCELS\"></MatrixIndicesMap>";
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, parcels), 0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read x.dscalar.nii: nlspark reads dense CIFTI files (.dscalar.nii,"
            + " .dtseries.nii: maps or time points over brain models), but its rows are scalars"
            + " and its columns parcels");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 6,
        xml(SCALARS, MODELS), 0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("its brain models cover 7 grayordinates, but its data has 6");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace("0 2 3", "0 2 5")), 0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The CIFTI brain model CORTEX_LEFT lists vertex 5, outside its surface of"
            + " 5 vertices");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace("1 2 3\n3 4 5", "1 2 3\n1 2 3")), 0, 0, i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("The CIFTI brain model THALAMUS_LEFT lists voxel (1, 2, 3), which a brain"
            + " model lists already; each voxel is one grayordinate");
    assertThatThrownBy(() -> read(file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7,
        xml(SCALARS, MODELS.replace("IndexOffset=\"3\"", "IndexOffset=\"2\"")), 0, 0,
        i -> i)))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the models must tile the columns in order from 3");
    byte[] whole = file(ByteOrder.LITTLE_ENDIAN, (short) 16, 4, 2, 7, xml(SCALARS, MODELS), 0,
        0, i -> i);
    assertThatThrownBy(() -> read(Arrays.copyOf(whole, whole.length - 3)))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("cut short");
    byte[] nifti1 = Arrays.copyOf(whole, whole.length);
    ByteBuffer.wrap(nifti1).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 348);
    assertThatThrownBy(() -> read(nifti1)).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read x.dscalar.nii: a CIFTI-2 file is a NIfTI-2 file (a 540-byte"
            + " header, magic n+2), and this one is not");
  }
}
