package org.nlspark.core.io.surface;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Locale;
import java.util.zip.DataFormatException;
import java.util.zip.GZIPInputStream;
import java.util.zip.Inflater;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * GIFTI files (the GIFTI 1.0 standard, as nibabel, FreeSurfer, Connectome Workbench and fMRIPrep
 * write them): surface meshes ({@code .surf.gii}: a pointset and a triangle array) and per-vertex
 * data ({@code .func.gii}, {@code .shape.gii}, {@code .label.gii}: one data array per sample, or
 * one array of vertices × samples). Data encoded as ASCII, base64 or zlib/gzip-compressed base64,
 * little- or big-endian, row- or column-major. Data in external files is refused: a file read on
 * an executor must be whole.
 *
 * <p>The XML is read as a stream without loading the DTD the files name (no network, no entity
 * expansion).
 */
public final class Gifti {
  private Gifti() {}

  private static final String POINTSET = "NIFTI_INTENT_POINTSET";
  private static final String TRIANGLE = "NIFTI_INTENT_TRIANGLE";

  /**
   * Writes one map as a GIFTI file of one float32 data array (vertices), compressed base64 as
   * nibabel writes it by default; {@code name} goes into the array's metadata.
   */
  public static void writeMap(java.io.OutputStream out, String name, float[] values)
      throws IOException {
    ByteBuffer raw = ByteBuffer.allocate(4 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      raw.putFloat(v);
    }
    write(out, dataArray("NIFTI_INTENT_NONE", "NIFTI_TYPE_FLOAT32", values.length, 0,
        raw.array(), "<MetaData>\n<MD><Name><![CDATA[Name]]></Name><Value><![CDATA[" + name
            + "]]></Value></MD>\n</MetaData>\n"));
  }

  /**
   * Writes a mesh as a {@code .surf.gii}: its pointset (float32, vertices × 3) and triangles
   * (int32, triangles × 3), as {@link #readMesh} reads them.
   */
  public static void writeMesh(java.io.OutputStream out, SurfaceMesh mesh) throws IOException {
    ByteBuffer points = ByteBuffer.allocate(12 * mesh.vertices()).order(ByteOrder.LITTLE_ENDIAN);
    for (int v = 0; v < mesh.vertices(); v++) {
      for (double c : mesh.coordinate(v)) {
        points.putFloat((float) c);
      }
    }
    int[] tri = mesh.triangleIndices();
    ByteBuffer faces = ByteBuffer.allocate(4 * tri.length).order(ByteOrder.LITTLE_ENDIAN);
    for (int i : tri) {
      faces.putInt(i);
    }
    write(out, dataArray(POINTSET, "NIFTI_TYPE_FLOAT32", mesh.vertices(), 3, points.array(), ""),
        dataArray(TRIANGLE, "NIFTI_TYPE_INT32", mesh.triangles(), 3, faces.array(), ""));
  }

  private static void write(java.io.OutputStream out, String... arrays) throws IOException {
    String xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        + "<!DOCTYPE GIFTI SYSTEM \"http://www.nitrc.org/frs/download.php/115/gifti.dtd\">\n"
        + "<GIFTI Version=\"1.0\" NumberOfDataArrays=\"" + arrays.length + "\">\n"
        + "<MetaData/>\n<LabelTable/>\n" + String.join("", arrays) + "</GIFTI>\n";
    out.write(xml.getBytes(java.nio.charset.StandardCharsets.UTF_8));
  }

  /** One data array element, its little-endian bytes compressed base64 (columns 0: 1-D). */
  private static String dataArray(String intent, String type, int rows, int columns,
      byte[] bytes, String metaData) {
    java.util.zip.Deflater deflater = new java.util.zip.Deflater(6);
    deflater.setInput(bytes);
    deflater.finish();
    ByteArrayOutputStream packed = new ByteArrayOutputStream(bytes.length / 2 + 64);
    byte[] buffer = new byte[1 << 16];
    while (!deflater.finished()) {
      packed.write(buffer, 0, deflater.deflate(buffer));
    }
    deflater.end();
    return "<DataArray Intent=\"" + intent + "\" DataType=\"" + type + "\""
        + " ArrayIndexingOrder=\"RowMajorOrder\" Dimensionality=\"" + (columns == 0 ? 1 : 2)
        + "\" Dim0=\"" + rows + "\"" + (columns == 0 ? "" : " Dim1=\"" + columns + "\"")
        + " Encoding=\"GZipBase64Binary\" Endian=\"LittleEndian\" ExternalFileName=\"\""
        + " ExternalFileOffset=\"\">\n" + metaData + "<Data>"
        + Base64.getEncoder().encodeToString(packed.toByteArray()) + "</Data>\n</DataArray>\n";
  }

  /** One data array of a GIFTI file, decoded. */
  record DataArray(String intent, int[] dims, double[] values, boolean float32) {
    int rows() {
      return dims.length == 0 ? 0 : dims[0];
    }

    int columns() {
      int c = 1;
      for (int d = 1; d < dims.length; d++) {
        c *= dims[d];
      }
      return c;
    }
  }

  /** True for the names this class reads. */
  public static boolean isGiftiName(String name) {
    return name.toLowerCase(Locale.ROOT).endsWith(".gii");
  }

  /** Reads the mesh of a {@code .surf.gii}: its pointset (vertices × 3) and triangles. */
  public static SurfaceMesh readMesh(InputStream in, String name) {
    List<DataArray> arrays = read(in, name);
    DataArray points = null;
    DataArray triangles = null;
    for (DataArray a : arrays) {
      if (a.intent().equals(POINTSET) && points == null) {
        points = a;
      } else if (a.intent().equals(TRIANGLE) && triangles == null) {
        triangles = a;
      }
    }
    if (points == null || triangles == null) {
      throw new InvalidInputException("The GIFTI file " + name + " is not a surface mesh: it"
          + " needs a " + POINTSET + " array and a " + TRIANGLE + " array, but has "
          + intents(arrays));
    }
    if (points.dims().length != 2 || points.dims()[1] != 3) {
      throw new InvalidInputException("The GIFTI file " + name + " has a pointset of shape "
          + shape(points) + "; a surface's pointset is vertices x 3");
    }
    if (triangles.dims().length != 2 || triangles.dims()[1] != 3) {
      throw new InvalidInputException("The GIFTI file " + name + " has triangles of shape "
          + shape(triangles) + "; a surface's triangles are triangles x 3");
    }
    double[] t = triangles.values();
    int[] indices = new int[t.length];
    for (int i = 0; i < t.length; i++) {
      indices[i] = (int) t[i];
    }
    return new SurfaceMesh(name, points.values(), indices);
  }

  /**
   * Reads the per-vertex data of a GIFTI file: each data array of one value per vertex is a
   * sample, and an array of vertices × k holds k samples (its columns), in file order.
   */
  public static VertexData readData(InputStream in, String name) {
    List<DataArray> arrays = read(in, name);
    List<double[]> samples = new ArrayList<>();
    int vertices = -1;
    boolean float32 = true;
    boolean mesh = false;
    for (DataArray a : arrays) {
      if (a.intent().equals(POINTSET) || a.intent().equals(TRIANGLE)) {
        mesh = true;
        continue;
      }
      if (a.dims().length > 2) {
        throw new InvalidInputException("The GIFTI file " + name + " has a data array of shape "
            + shape(a) + "; per-vertex data is vertices, or vertices x samples");
      }
      if (vertices >= 0 && a.rows() != vertices) {
        throw new InvalidInputException("The GIFTI file " + name + " has data arrays of "
            + vertices + " and " + a.rows() + " vertices; every array must cover the same"
            + " vertices");
      }
      vertices = a.rows();
      int k = a.columns();
      double[] v = a.values();
      for (int c = 0; c < k; c++) {
        double[] sample = new double[vertices];
        for (int r = 0; r < vertices; r++) {
          sample[r] = v[r * k + c];
        }
        samples.add(sample);
      }
      float32 &= a.float32();
    }
    if (samples.isEmpty()) {
      throw new InvalidInputException(mesh
          ? "The GIFTI file " + name + " is a surface mesh (a pointset and triangles), not"
              + " per-vertex data; give meshes with --surface"
          : "The GIFTI file " + name + " has no data array");
    }
    return new VertexData(name, vertices, samples.toArray(new double[0][]), float32);
  }

  /** Every data array of the file, decoded to doubles in row-major order. */
  static List<DataArray> read(InputStream in, String name) {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    List<DataArray> arrays = new ArrayList<>();
    try {
      XMLStreamReader xml = factory.createXMLStreamReader(in);
      boolean root = false;
      while (xml.hasNext()) {
        int event = xml.next();
        if (event != XMLStreamConstants.START_ELEMENT) {
          continue;
        }
        String element = xml.getLocalName();
        if (!root) {
          if (!element.equals("GIFTI")) {
            throw new InvalidInputException(name + " is not a GIFTI file: its XML starts with <"
                + element + ">, not <GIFTI>");
          }
          root = true;
        } else if (element.equals("DataArray")) {
          arrays.add(readArray(xml, name, arrays.size()));
        }
      }
      if (!root) {
        throw new InvalidInputException(name + " is not a GIFTI file: it holds no XML element");
      }
    } catch (XMLStreamException e) {
      throw new InvalidInputException(name + " is not a readable GIFTI file: its XML is broken ("
          + e.getMessage().replaceAll("\\s+", " ").trim() + ")", e);
    }
    return arrays;
  }

  private static DataArray readArray(XMLStreamReader xml, String name, int index)
      throws XMLStreamException {
    String where = "The GIFTI file " + name + " (data array " + index + ")";
    String intent = attribute(xml, "Intent", "NIFTI_INTENT_NONE");
    String type = attribute(xml, "DataType", null);
    String encoding = attribute(xml, "Encoding", "ASCII");
    String endian = attribute(xml, "Endian", "LittleEndian");
    String order = attribute(xml, "ArrayIndexingOrder", "RowMajorOrder");
    int rank = parseInt(where, "Dimensionality", attribute(xml, "Dimensionality", null));
    if (rank < 1 || rank > 6) {
      throw new InvalidInputException(where + " has Dimensionality " + rank
          + "; it must be 1 to 6");
    }
    int[] dims = new int[rank];
    long count = 1;
    for (int d = 0; d < rank; d++) {
      dims[d] = parseInt(where, "Dim" + d, attribute(xml, "Dim" + d, null));
      if (dims[d] < 0) {
        throw new InvalidInputException(where + " has a negative Dim" + d);
      }
      count *= dims[d];
    }
    if (count > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException(where + " has " + count + " values, more than 2^31");
    }
    if (encoding.equals("ExternalFileBinary")) {
      throw new InvalidInputException(where + " keeps its data in an external file ("
          + attribute(xml, "ExternalFileName", "unnamed") + "); nlspark reads GIFTI files that"
          + " hold their data, as nibabel writes them by default");
    }
    String text = null;
    int depth = 1;
    while (depth > 0) {
      int event = xml.next();
      if (event == XMLStreamConstants.START_ELEMENT) {
        if (depth == 1 && xml.getLocalName().equals("Data")) {
          text = xml.getElementText(); // ends at </Data>
        } else {
          depth++;
        }
      } else if (event == XMLStreamConstants.END_ELEMENT) {
        depth--;
      }
    }
    if (text == null) {
      throw new InvalidInputException(where + " has no <Data> element");
    }
    Type t = Type.of(where, type);
    double[] values = switch (encoding) {
      case "ASCII" -> ascii(where, text, (int) count, t);
      case "Base64Binary" -> binary(where, decode64(where, text), t, endian, (int) count);
      case "GZipBase64Binary" -> binary(where, inflate(where, decode64(where, text)), t, endian,
          (int) count);
      default -> throw new InvalidInputException(where + " has Encoding " + encoding
          + "; GIFTI's encodings are ASCII, Base64Binary, GZipBase64Binary and"
          + " ExternalFileBinary");
    };
    if (order.equals("ColumnMajorOrder") && rank > 1) {
      values = toRowMajor(values, dims);
    } else if (!order.equals("RowMajorOrder") && !order.equals("ColumnMajorOrder")) {
      throw new InvalidInputException(where + " has ArrayIndexingOrder " + order
          + "; it must be RowMajorOrder or ColumnMajorOrder");
    }
    return new DataArray(intent, dims, values, t == Type.FLOAT32 || t.bytes < 4);
  }

  /** The element types of GIFTI's standard (and 64-bit floats, which some writers use). */
  private enum Type {
    UINT8(1), INT8(1), INT16(2), UINT16(2), INT32(4), FLOAT32(4), FLOAT64(8);

    final int bytes;

    Type(int bytes) {
      this.bytes = bytes;
    }

    static Type of(String where, String name) {
      if (name == null) {
        throw new InvalidInputException(where + " has no DataType");
      }
      return switch (name) {
        case "NIFTI_TYPE_UINT8" -> UINT8;
        case "NIFTI_TYPE_INT8" -> INT8;
        case "NIFTI_TYPE_INT16" -> INT16;
        case "NIFTI_TYPE_UINT16" -> UINT16;
        case "NIFTI_TYPE_INT32" -> INT32;
        case "NIFTI_TYPE_FLOAT32" -> FLOAT32;
        case "NIFTI_TYPE_FLOAT64" -> FLOAT64;
        default -> throw new InvalidInputException(where + " has DataType " + name + "; nlspark"
            + " reads NIFTI_TYPE_UINT8, INT8, INT16, UINT16, INT32, FLOAT32 and FLOAT64");
      };
    }
  }

  /**
   * ASCII values in the array's own type, as nibabel parses them: a float32 array's "0.1" is the
   * float nearest 0.1 (widened), not the double nearest it, so ASCII and binary files of the same
   * array read the same bits.
   */
  private static double[] ascii(String where, String text, int count, Type type) {
    String[] tokens = text.trim().isEmpty() ? new String[0] : text.trim().split("\\s+");
    if (tokens.length != count) {
      throw new InvalidInputException(where + " holds " + tokens.length + " ASCII values, but"
          + " its dimensions make " + count);
    }
    double[] out = new double[count];
    for (int i = 0; i < count; i++) {
      try {
        out[i] = type == Type.FLOAT32 ? Float.parseFloat(tokens[i])
            : Double.parseDouble(tokens[i]);
      } catch (NumberFormatException e) {
        throw new InvalidInputException(where + " holds '" + tokens[i] + "', not a number", e);
      }
    }
    return out;
  }

  private static byte[] decode64(String where, String text) {
    try {
      return Base64.getMimeDecoder().decode(text.trim());
    } catch (IllegalArgumentException e) {
      throw new InvalidInputException(where + " holds data that is not valid base64", e);
    }
  }

  /** zlib (what nibabel and Workbench write) or gzip (what some writers mean by "GZip"). */
  private static byte[] inflate(String where, byte[] packed) {
    try {
      if (packed.length > 1 && (packed[0] & 0xff) == 0x1f && (packed[1] & 0xff) == 0x8b) {
        try (InputStream gz = new GZIPInputStream(new ByteArrayInputStream(packed))) {
          return gz.readAllBytes();
        }
      }
      Inflater inflater = new Inflater();
      inflater.setInput(packed);
      ByteArrayOutputStream out = new ByteArrayOutputStream(packed.length * 4);
      byte[] buffer = new byte[1 << 16];
      while (!inflater.finished()) {
        int n = inflater.inflate(buffer);
        if (n == 0 && (inflater.needsInput() || inflater.needsDictionary())) {
          throw new DataFormatException("the compressed data ends early");
        }
        out.write(buffer, 0, n);
      }
      inflater.end();
      return out.toByteArray();
    } catch (IOException | DataFormatException e) {
      throw new InvalidInputException(where + " holds compressed data that does not inflate ("
          + e.getMessage() + ")", e);
    }
  }

  private static double[] binary(String where, byte[] bytes, Type type, String endian,
      int count) {
    if ((long) count * type.bytes != bytes.length) {
      throw new InvalidInputException(where + " holds " + bytes.length + " bytes of data, but"
          + " its dimensions and DataType make " + (long) count * type.bytes);
    }
    ByteBuffer b = ByteBuffer.wrap(bytes).order(
        endian.equals("BigEndian") ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    double[] out = new double[count];
    for (int i = 0; i < count; i++) {
      out[i] = switch (type) {
        case UINT8 -> b.get() & 0xff;
        case INT8 -> b.get();
        case INT16 -> b.getShort();
        case UINT16 -> b.getShort() & 0xffff;
        case INT32 -> b.getInt();
        case FLOAT32 -> b.getFloat();
        case FLOAT64 -> b.getDouble();
      };
    }
    return out;
  }

  /** Column-major (first index fastest) to row-major (last index fastest). */
  private static double[] toRowMajor(double[] in, int[] dims) {
    double[] out = new double[in.length];
    int rank = dims.length;
    int[] index = new int[rank];
    for (int f = 0; f < in.length; f++) {
      int r = 0;
      for (int d = 0; d < rank; d++) {
        r = r * dims[d] + index[d];
      }
      out[r] = in[f];
      for (int d = 0; d < rank && ++index[d] == dims[d]; d++) {
        index[d] = 0;
      }
    }
    return out;
  }

  private static String attribute(XMLStreamReader xml, String key, String fallback) {
    String v = xml.getAttributeValue(null, key);
    return v == null ? fallback : v.trim();
  }

  private static int parseInt(String where, String key, String value) {
    if (value == null) {
      throw new InvalidInputException(where + " has no " + key);
    }
    try {
      return Integer.parseInt(value);
    } catch (NumberFormatException e) {
      throw new InvalidInputException(where + " has " + key + "=\"" + value + "\", not a whole"
          + " number", e);
    }
  }

  private static String intents(List<DataArray> arrays) {
    if (arrays.isEmpty()) {
      return "no data array";
    }
    List<String> names = new ArrayList<>();
    for (DataArray a : arrays) {
      names.add(a.intent());
    }
    return String.join(", ", names);
  }

  private static String shape(DataArray a) {
    StringBuilder s = new StringBuilder();
    for (int d : a.dims()) {
      s.append(s.length() == 0 ? "" : " x ").append(d);
    }
    return s.toString();
  }
}
