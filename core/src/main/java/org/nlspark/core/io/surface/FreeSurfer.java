package org.nlspark.core.io.surface;

import java.io.BufferedInputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.zip.GZIPInputStream;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * FreeSurfer's own files: binary triangle surfaces ({@code lh.white}, {@code lh.pial}, …, as
 * {@code mris_convert} and nibabel's {@code write_geometry} write them) and MGH volumes ({@code
 * .mgh}, gzip-compressed {@code .mgz}) of per-vertex data: width × height × depth = vertices, and
 * one frame per sample. Both are big-endian.
 */
public final class FreeSurfer {
  private FreeSurfer() {}

  /** The magic number of a triangle surface, and of the older quadrangle one (refused). */
  private static final int TRIANGLE_MAGIC = 0xFFFFFE;
  private static final int QUAD_MAGIC = 0xFFFFFF;
  private static final int NEW_QUAD_MAGIC = 0xFFFFFD;
  /** Bytes before an MGH file's data. */
  private static final int MGH_HEADER = 284;

  /** True for {@code .mgh} and {@code .mgz} names. */
  public static boolean isMghName(String name) {
    String n = name.toLowerCase(Locale.ROOT);
    return n.endsWith(".mgh") || n.endsWith(".mgz");
  }

  /**
   * Writes one map as an MGH file (float, vertices × 1 × 1 × 1, identity-free header: no RAS
   * information, as FreeSurfer writes surface overlays).
   */
  public static void writeMgh(java.io.OutputStream raw, float[] values) throws IOException {
    java.io.DataOutputStream out = new java.io.DataOutputStream(
        new java.io.BufferedOutputStream(raw, 1 << 16));
    out.writeInt(1);
    out.writeInt(values.length);
    out.writeInt(1);
    out.writeInt(1);
    out.writeInt(1);
    out.writeInt(3); // MRI_FLOAT
    out.writeInt(0); // dof
    out.writeShort(0); // goodRASFlag: no geometry (a surface overlay)
    out.write(new byte[MGH_HEADER - 30]);
    for (float v : values) {
      out.writeFloat(v);
    }
    out.flush();
  }

  /** Reads a binary triangle surface. */
  public static SurfaceMesh readSurface(InputStream raw, String name) {
    try {
      DataInputStream in = new DataInputStream(new BufferedInputStream(raw));
      int magic = (in.readUnsignedByte() << 16) | (in.readUnsignedByte() << 8)
          | in.readUnsignedByte();
      if (magic == QUAD_MAGIC || magic == NEW_QUAD_MAGIC) {
        throw new InvalidInputException("The FreeSurfer surface " + name + " is made of"
            + " quadrangles; convert it to triangles (mris_convert " + name + " out.surf.gii)");
      }
      if (magic != TRIANGLE_MAGIC) {
        throw new InvalidInputException(name + " is neither a GIFTI nor a FreeSurfer surface:"
            + " it starts with neither <?xml nor the bytes FF FF FE");
      }
      // The creation line and an empty line, each ending in '\n'.
      for (int lines = 0; lines < 2; ) {
        int c = in.read();
        if (c < 0) {
          throw new EOFException();
        }
        if (c == '\n') {
          lines++;
        }
      }
      int vertices = in.readInt();
      int triangles = in.readInt();
      if (vertices < 1 || triangles < 1 || (long) vertices * 3 > Integer.MAX_VALUE - 8
          || (long) triangles * 3 > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("The FreeSurfer surface " + name + " says it has "
            + vertices + " vertices and " + triangles + " triangles");
      }
      double[] xyz = new double[3 * vertices];
      for (int i = 0; i < xyz.length; i++) {
        xyz[i] = in.readFloat();
      }
      int[] tri = new int[3 * triangles];
      for (int i = 0; i < tri.length; i++) {
        tri[i] = in.readInt();
      }
      return new SurfaceMesh(name, xyz, tri);
    } catch (EOFException e) {
      throw new InvalidInputException("The FreeSurfer surface " + name + " ends early", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name, e);
    }
  }

  /**
   * Reads the per-vertex data of an MGH or MGZ file: its width × height × depth values are the
   * vertices (FreeSurfer writes vertices × 1 × 1), each frame a sample.
   */
  public static VertexData readMgh(InputStream raw, String name) {
    try {
      InputStream source = new BufferedInputStream(raw);
      source.mark(2);
      int b0 = source.read();
      int b1 = source.read();
      source.reset();
      if (b0 == 0x1f && b1 == 0x8b) {
        source = new BufferedInputStream(new GZIPInputStream(source, 1 << 16));
      }
      DataInputStream in = new DataInputStream(source);
      int version = in.readInt();
      if (version != 1) {
        throw new InvalidInputException(name + " is not an MGH file: it starts with version "
            + version + ", not 1");
      }
      long width = in.readInt();
      long height = in.readInt();
      long depth = in.readInt();
      int frames = in.readInt();
      int type = in.readInt();
      long vertices = width * height * depth;
      if (width < 1 || height < 1 || depth < 1 || frames < 1 || vertices > Integer.MAX_VALUE - 8
          || vertices * frames > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("The MGH file " + name + " says its shape is " + width
            + " x " + height + " x " + depth + " x " + frames);
      }
      int bytes = switch (type) {
        case 0 -> 1; // MRI_UCHAR
        case 1, 3 -> 4; // MRI_INT, MRI_FLOAT
        case 4 -> 2; // MRI_SHORT
        default -> throw new InvalidInputException("The MGH file " + name + " has data type "
            + type + "; nlspark reads uchar (0), int (1), float (3) and short (4)");
      };
      in.skipNBytes(MGH_HEADER - 24);
      int n = (int) vertices;
      double[][] samples = new double[frames][n];
      // Fortran order: the vertex fastest, then the frame.
      for (int f = 0; f < frames; f++) {
        double[] s = samples[f];
        for (int v = 0; v < n; v++) {
          s[v] = switch (type) {
            case 0 -> in.readUnsignedByte();
            case 1 -> in.readInt();
            case 3 -> in.readFloat();
            default -> in.readShort();
          };
        }
      }
      return new VertexData(name, n, samples, bytes != 4 || type == 3);
    } catch (EOFException e) {
      throw new InvalidInputException("The MGH file " + name + " ends before its data does", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name, e);
    }
  }
}
