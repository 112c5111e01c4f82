package org.nlspark.core.io.surface;

import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.surface.Grayordinates;

/**
 * CIFTI-2 dense files (DESIGN §9): {@code .dscalar.nii} (maps) and {@code .dtseries.nii} (time
 * points), a NIfTI-2 header whose extension (code 32) is the CIFTI XML. The matrix is rows
 * (maps or time points: dim[5]) × columns (grayordinates: dim[6]), stored with the row index
 * fastest, as NIfTI orders dims; nibabel and Connectome Workbench write it so. Each row is read
 * as one sample on the full space of the file's {@link Grayordinates}; maps are written as a
 * one-map {@code .dscalar.nii} with the input's brain models.
 */
public final class Cifti {
  private Cifti() {}

  private static final int HEADER = 540;
  private static final int CIFTI_EXTENSION = 32;
  private static final int DENSE_SCALARS = 3006;
  /** The most bytes of data (and of full-space doubles) one file may hold: Java's arrays. */
  private static final long MAX_VALUES = Integer.MAX_VALUE - 8;
  /** The most bytes of NIfTI extensions (the XML of 91,282 grayordinates is about 1 MB). */
  private static final long MAX_XML = 256L << 20;

  /** Whether a file name is a CIFTI-2 dense file nlspark reads. */
  public static boolean isCiftiName(String name) {
    String lower = name.toLowerCase(Locale.ROOT);
    return lower.endsWith(".dscalar.nii") || lower.endsWith(".dtseries.nii");
  }

  /**
   * What a dense file's header and XML say: its brain models, its rows (samples) and whether
   * its values fit float32.
   */
  public record Head(Grayordinates models, int rows, boolean float32) {}

  /** A dense file read whole: its brain models and every row on their full space. */
  public static VertexData readData(InputStream raw, String name) {
    return read(raw, name, true).data();
  }

  /**
   * The header and the XML alone (the data are not read): what the driver needs of a study's
   * files, however many rows they hold.
   */
  public static Head readHead(InputStream raw, String name) {
    return read(raw, name, false).head();
  }

  private record Read(Head head, VertexData data) {}

  private static Read read(InputStream raw, String name, boolean data) {
    try {
      return read(new DataInputStream(raw), name, data);
    } catch (java.io.EOFException e) {
      throw new InvalidInputException("Cannot read " + name + ": it ends before its header,"
          + " CIFTI XML and data do; the file is cut short", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  private static Read read(DataInputStream in, String name, boolean withData)
      throws IOException {
    byte[] head = in.readNBytes(HEADER);
    ByteBuffer h = ByteBuffer.wrap(head).order(ByteOrder.LITTLE_ENDIAN);
    if (head.length >= 4 && h.getInt(0) != HEADER) {
      h.order(ByteOrder.BIG_ENDIAN);
    }
    boolean nifti2 = head.length >= 4 && h.getInt(0) == HEADER;
    if (nifti2 && head.length < HEADER) {
      throw new java.io.EOFException();
    }
    if (!nifti2 || !new String(head, 4, 3, StandardCharsets.ISO_8859_1).equals("n+2")) {
      throw new InvalidInputException("Cannot read " + name + ": a CIFTI-2 file is a NIfTI-2"
          + " file (a 540-byte header, magic n+2), and this one is not");
    }
    int datatype = h.getShort(12);
    long[] dim = new long[8];
    for (int i = 0; i < 8; i++) {
      dim[i] = h.getLong(16 + 8 * i);
    }
    long voxOffset = h.getLong(168);
    // nibabel's rule, as NiftiHeader's: a slope of 0 or not finite means no scaling
    double slope = h.getDouble(176);
    double inter = h.getDouble(184);
    boolean scaled = slope != 0 && Double.isFinite(slope) && (slope != 1 || inter != 0);
    if (scaled && !Double.isFinite(inter)) {
      throw new InvalidInputException("Cannot read " + name + ": its scl_inter is " + inter
          + " with scl_slope " + slope + "; the header is corrupt");
    }
    if (dim[0] < 6 || dim[0] > 7 || dim[1] != 1 || dim[2] != 1 || dim[3] != 1 || dim[4] != 1
        || (dim[0] == 7 && dim[7] != 1) || dim[5] < 1 || dim[6] < 1) {
      throw new InvalidInputException("Cannot read " + name + ": a dense CIFTI file has dims"
          + " (1, 1, 1, 1, rows, grayordinates), but its dims are " + dims(dim));
    }
    long rows = dim[5];
    long columns = dim[6];
    int size = bytesOf(datatype, name);
    if (rows > MAX_VALUES || columns > MAX_VALUES || rows * columns > MAX_VALUES
        || rows * columns * size > MAX_VALUES) {
      throw new InvalidInputException("Cannot read " + name + ": it holds " + rows + " x "
          + columns + " values of " + size + " bytes, more than 2 GB in one file; split its rows"
          + " (maps or time points) into several files");
    }
    if (voxOffset < HEADER + 4 || voxOffset > HEADER + 4 + MAX_XML) {
      throw new InvalidInputException("Cannot read " + name + ": its data start at byte "
          + voxOffset + ", which leaves no room for the CIFTI XML, or more than "
          + MAX_XML / (1 << 20) + " MB; the header is corrupt");
    }
    // extensions: the flag, then (size, code, data) until the data start
    byte[] flag = new byte[4];
    in.readFully(flag);
    long at = HEADER + 4;
    String xml = null;
    while (flag[0] != 0 && at + 8 <= voxOffset) {
      byte[] eh = new byte[8];
      in.readFully(eh);
      ByteBuffer e = ByteBuffer.wrap(eh).order(h.order());
      int extension = e.getInt(0);
      int code = e.getInt(4);
      if (extension < 8 || at + extension > voxOffset) {
        throw new InvalidInputException("Cannot read " + name + ": its NIfTI extension at byte "
            + at + " has size " + extension + ", which does not fit before the data at "
            + voxOffset);
      }
      byte[] body = new byte[extension - 8];
      in.readFully(body);
      if (code == CIFTI_EXTENSION) {
        xml = new String(body, StandardCharsets.UTF_8).replaceAll("\u0000+$", "");
      }
      at += extension;
    }
    if (xml == null) {
      throw new InvalidInputException("Cannot read " + name + ": it is a NIfTI-2 file without"
          + " the CIFTI XML extension (code 32), so its grayordinates are unknown");
    }
    Grayordinates g = parse(xml, name);
    if (g.columns() != columns) {
      throw new InvalidInputException("Cannot read " + name + ": its brain models cover "
          + g.columns() + " grayordinates, but its data has " + columns);
    }
    if ((long) rows * g.fullSize() > MAX_VALUES / 8) {
      throw new InvalidInputException("Cannot read " + name + ": its " + rows + " rows on "
          + g.fullSize() + " vertices and voxels would take more than 2 GB; split its rows"
          + " (maps or time points) into several files");
    }
    boolean float32 = datatype != 64 && datatype != 8 && !scaled;
    Head told = new Head(g, (int) rows, float32);
    if (!withData) {
      return new Read(told, null);
    }
    in.skipNBytes(voxOffset - at);
    byte[] data = new byte[(int) (rows * columns * size)];
    in.readFully(data);
    ByteBuffer d = ByteBuffer.wrap(data).order(h.order());
    int[] slot = g.slotOfColumn();
    double[][] samples = new double[(int) rows][g.fullSize()];
    for (int c = 0; c < columns; c++) {
      for (int r = 0; r < rows; r++) {
        int i = (int) (r + rows * c);
        double v = switch (datatype) {
          case 2 -> d.get(i) & 0xff;
          case 4 -> d.getShort(2 * i);
          case 8 -> d.getInt(4 * i);
          case 16 -> d.getFloat(4 * i);
          case 64 -> d.getDouble(8 * i);
          case 256 -> d.get(i);
          case 512 -> d.getShort(2 * i) & 0xffff;
          default -> throw new IllegalStateException();
        };
        samples[r][slot[c]] = scaled ? v * slope + inter : v;
      }
    }
    return new Read(told, new VertexData(name, g.fullSize(), samples, float32, g));
  }

  private static int bytesOf(int datatype, String name) {
    return switch (datatype) {
      case 2, 256 -> 1;
      case 4, 512 -> 2;
      case 8, 16 -> 4;
      case 64 -> 8;
      default -> throw new InvalidInputException("Cannot read " + name + ": its NIfTI datatype "
          + datatype + " is not one nlspark reads in CIFTI (uint8, int8, int16, uint16, int32,"
          + " float32, float64)");
    };
  }

  private static String dims(long[] dim) {
    StringBuilder s = new StringBuilder("(");
    for (int i = 1; i <= Math.min(7, Math.max(1, dim[0])); i++) {
      s.append(i > 1 ? ", " : "").append(dim[i]);
    }
    return s.append(')').toString();
  }

  /** The brain models of a CIFTI-2 XML, which must map the columns (dimension 1). */
  static Grayordinates parse(String xmlText, String name) {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    List<Grayordinates.Model> models = new ArrayList<>();
    int[] volumeDims = null;
    double[] affine = null;
    String rowType = null;
    String columnType = null;
    try {
      XMLStreamReader xml = factory.createXMLStreamReader(new ByteArrayInputStream(
          xmlText.getBytes(StandardCharsets.UTF_8)));
      boolean inColumns = false;
      int depthOfMap = -1;
      int depth = 0;
      while (xml.hasNext()) {
        int event = xml.next();
        if (event == XMLStreamConstants.END_ELEMENT) {
          if (depth-- == depthOfMap) {
            inColumns = false;
            depthOfMap = -1;
          }
          continue;
        }
        if (event != XMLStreamConstants.START_ELEMENT) {
          continue;
        }
        depth++;
        String element = xml.getLocalName();
        if (depth == 1 && !element.equals("CIFTI")) {
          throw new InvalidInputException("Cannot read " + name + ": its NIfTI extension 32 is"
              + " not CIFTI XML (it starts with <" + element + ">)");
        }
        if (depth == 1) {
          String version = xml.getAttributeValue(null, "Version");
          if (version == null || !version.startsWith("2")) {
            throw new InvalidInputException("Cannot read " + name + ": it is CIFTI version "
                + version + ", and nlspark reads CIFTI-2");
          }
        } else if (element.equals("MatrixIndicesMap")) {
          String applies = xml.getAttributeValue(null, "AppliesToMatrixDimension");
          String type = xml.getAttributeValue(null, "IndicesMapToDataType");
          for (String a : (applies == null ? "" : applies).split(",")) {
            if (a.trim().equals("0")) {
              rowType = type;
            } else if (a.trim().equals("1")) {
              columnType = type;
              inColumns = true;
              depthOfMap = depth;
            }
          }
        } else if (inColumns && element.equals("Volume")) {
          String[] parts = required(xml, "VolumeDimensions", name).split(",");
          volumeDims = new int[3];
          for (int d = 0; d < 3; d++) {
            volumeDims[d] = Integer.parseInt(parts[d].trim());
          }
        } else if (inColumns && element.equals("TransformationMatrixVoxelIndicesIJKtoXYZ")) {
          String exponent = required(xml, "MeterExponent", name);
          double toMm = StrictMath.pow(10, Integer.parseInt(exponent.trim()) + 3);
          String[] t = xml.getElementText().trim().split("\\s+");
          depth--;
          affine = new double[16];
          for (int i = 0; i < 16; i++) {
            affine[i] = Double.parseDouble(t[i]) * (i < 12 ? toMm : 1);
          }
        } else if (inColumns && element.equals("BrainModel")) {
          models.add(brainModel(xml, name));
          depth--; // brainModel read to its end element
        }
      }
    } catch (XMLStreamException | RuntimeException e) {
      if (e instanceof InvalidInputException ie) {
        throw ie;
      }
      throw new InvalidInputException("Cannot read " + name + ": its CIFTI XML is broken ("
          + String.valueOf(e.getMessage()).replaceAll("\\s+", " ").trim() + ")", e);
    }
    if (!"CIFTI_INDEX_TYPE_BRAIN_MODELS".equals(columnType)
        || !("CIFTI_INDEX_TYPE_SCALARS".equals(rowType)
            || "CIFTI_INDEX_TYPE_SERIES".equals(rowType))) {
      throw new InvalidInputException("Cannot read " + name + ": nlspark reads dense CIFTI"
          + " files (.dscalar.nii, .dtseries.nii: maps or time points over brain models), but"
          + " its rows are " + typeName(rowType) + " and its columns " + typeName(columnType));
    }
    return new Grayordinates(models, volumeDims, affine);
  }

  /** The most vertices of one surface (fs_LR 164k has 163,842; fsaverage 163,842). */
  private static final int MAX_SURFACE = 50_000_000;

  private static String required(XMLStreamReader xml, String attribute, String name) {
    String value = xml.getAttributeValue(null, attribute);
    if (value == null) {
      throw new InvalidInputException("Cannot read " + name + ": a <" + xml.getLocalName()
          + "> of its CIFTI XML has no " + attribute);
    }
    return value.trim();
  }

  private static int count(XMLStreamReader xml, String attribute, String name, String model) {
    String value = required(xml, attribute, name);
    try {
      int n = Integer.parseInt(value);
      if (n >= 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // refused below
    }
    throw new InvalidInputException("Cannot read " + name + ": its brain model " + model
        + " has " + attribute + "=\"" + value + "\"; it must be a whole number >= 0");
  }

  private static String typeName(String type) {
    return type == null ? "not mapped" : type.replaceFirst("^CIFTI_INDEX_TYPE_", "")
        .toLowerCase(Locale.ROOT).replace('_', ' ');
  }

  private static Grayordinates.Model brainModel(XMLStreamReader xml, String name)
      throws XMLStreamException {
    String structure = required(xml, "BrainStructure", name);
    String type = required(xml, "ModelType", name);
    int offset = count(xml, "IndexOffset", name, structure);
    int count = count(xml, "IndexCount", name, structure);
    boolean surface = "CIFTI_MODEL_TYPE_SURFACE".equals(type);
    if (!surface && !"CIFTI_MODEL_TYPE_VOXELS".equals(type)) {
      throw new InvalidInputException("Cannot read " + name + ": its brain model " + structure
          + " has ModelType " + type + "; CIFTI-2 has SURFACE and VOXELS models");
    }
    int vertices = surface ? count(xml, "SurfaceNumberOfVertices", name, structure) : 0;
    if (vertices > MAX_SURFACE) {
      throw new InvalidInputException("Cannot read " + name + ": its brain model " + structure
          + " is on a surface of " + vertices + " vertices, more than " + MAX_SURFACE
          + "; the XML is corrupt");
    }
    int[] indices = new int[0];
    while (xml.hasNext()) {
      int event = xml.next();
      if (event == XMLStreamConstants.START_ELEMENT) {
        String text = xml.getElementText().trim();
        if (!text.isEmpty()) {
          String[] parts = text.split("\\s+");
          indices = new int[parts.length];
          for (int i = 0; i < parts.length; i++) {
            indices[i] = Integer.parseInt(parts[i]);
          }
        }
      } else if (event == XMLStreamConstants.END_ELEMENT
          && xml.getLocalName().equals("BrainModel")) {
        break;
      }
    }
    return new Grayordinates.Model(structure, surface, offset, count, vertices, indices);
  }

  /**
   * Writes one map as a {@code .dscalar.nii} with {@code g}'s brain models: {@code full} holds
   * a value per full-space slot; the file holds the grayordinates' values, as float32.
   */
  public static void writeMap(OutputStream out, Grayordinates g, String mapName, float[] full)
      throws IOException {
    byte[] xml = xml(g, mapName).getBytes(StandardCharsets.UTF_8);
    int extension = (8 + xml.length + 15) / 16 * 16;
    long voxOffset = HEADER + 4 + extension;
    int columns = g.columns();
    ByteBuffer h = ByteBuffer.allocate(HEADER + 4 + extension).order(ByteOrder.LITTLE_ENDIAN);
    h.putInt(0, HEADER);
    h.put(4, "n+2\0\r\n\u001a\n".getBytes(StandardCharsets.ISO_8859_1));
    h.putShort(12, (short) 16);
    h.putShort(14, (short) 32);
    long[] dim = {6, 1, 1, 1, 1, 1, columns, 1};
    for (int i = 0; i < 8; i++) {
      h.putLong(16 + 8 * i, dim[i]);
      h.putDouble(104 + 8 * i, 1.0);
    }
    h.putLong(168, voxOffset);
    h.putDouble(176, 1.0);
    h.putInt(504, DENSE_SCALARS);
    h.put(508, "ConnDenseScalar".getBytes(StandardCharsets.ISO_8859_1));
    h.put(HEADER, (byte) 1);
    h.putInt(HEADER + 4, extension);
    h.putInt(HEADER + 8, CIFTI_EXTENSION);
    h.put(HEADER + 12, xml);
    out.write(h.array());
    ByteBuffer d = ByteBuffer.allocate(4 * columns).order(ByteOrder.LITTLE_ENDIAN);
    int[] slot = g.slotOfColumn();
    for (int c = 0; c < columns; c++) {
      d.putFloat(4 * c, full[slot[c]]);
    }
    out.write(d.array());
  }

  private static String xml(Grayordinates g, String mapName) {
    StringBuilder s = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n")
        .append("<CIFTI Version=\"2\"><Matrix>")
        .append("<MatrixIndicesMap AppliesToMatrixDimension=\"0\"")
        .append(" IndicesMapToDataType=\"CIFTI_INDEX_TYPE_SCALARS\"><NamedMap><MapName>")
        .append(escape(mapName)).append("</MapName></NamedMap></MatrixIndicesMap>")
        .append("<MatrixIndicesMap AppliesToMatrixDimension=\"1\"")
        .append(" IndicesMapToDataType=\"CIFTI_INDEX_TYPE_BRAIN_MODELS\">");
    if (g.volumeDims() != null) {
      s.append("<Volume VolumeDimensions=\"").append(g.volumeDims()[0]).append(',')
          .append(g.volumeDims()[1]).append(',').append(g.volumeDims()[2]).append("\">")
          .append("<TransformationMatrixVoxelIndicesIJKtoXYZ MeterExponent=\"-3\">");
      for (int i = 0; i < 16; i++) {
        s.append(i == 0 ? "" : i % 4 == 0 ? "\n" : " ").append(g.ijkToXyz()[i]);
      }
      s.append("</TransformationMatrixVoxelIndicesIJKtoXYZ></Volume>");
    }
    for (Grayordinates.Model m : g.models()) {
      s.append("<BrainModel IndexOffset=\"").append(m.offset()).append("\" IndexCount=\"")
          .append(m.count()).append("\" ModelType=\"CIFTI_MODEL_TYPE_")
          .append(m.surface() ? "SURFACE" : "VOXELS").append("\" BrainStructure=\"")
          .append(escape(m.structure())).append('"');
      if (m.surface()) {
        s.append(" SurfaceNumberOfVertices=\"").append(m.surfaceVertices())
            .append("\"><VertexIndices>");
        for (int n = 0; n < m.count(); n++) {
          s.append(n == 0 ? "" : " ").append(m.indices()[n]);
        }
        s.append("</VertexIndices>");
      } else {
        s.append("><VoxelIndicesIJK>");
        for (int n = 0; n < m.count(); n++) {
          s.append(n == 0 ? "" : "\n").append(m.indices()[3 * n]).append(' ')
              .append(m.indices()[3 * n + 1]).append(' ').append(m.indices()[3 * n + 2]);
        }
        s.append("</VoxelIndicesIJK>");
      }
      s.append("</BrainModel>");
    }
    return s.append("</MatrixIndicesMap></Matrix></CIFTI>").toString();
  }

  private static String escape(String text) {
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
        .replace("\"", "&quot;");
  }
}
