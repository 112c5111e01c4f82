package org.nlspark.core.io.nifti;

import java.io.BufferedInputStream;
import java.io.Closeable;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.zip.ZipException;
import org.nlspark.core.InvalidInputException;

/**
 * Reads a single-file NIfTI-1 or NIfTI-2 image ({@code .nii}, or {@code .nii.gz}, recognised by
 * the gzip magic bytes, not by the name) one 3-D volume at a time, so a 4-D file larger than any
 * Java array can be streamed. {@link #open} parses and validates the header and checks the
 * declared data size against the file before any data array exists: a {@code .nii} must hold
 * exactly vox_offset + data bytes; a {@code .nii.gz} cannot hold more than deflate's largest
 * ratio (1032:1) allows, and its truncation is found while inflating. Every such failure is an
 * {@link InvalidInputException} naming the file.
 *
 * <p>Values are scaled as nibabel does: {@code raw · scl_slope + scl_inter} in float64 when the
 * slope is finite and non-zero, then stored in the destination's precision ({@code float[]} or
 * {@code double[]}; see {@link NiftiHeader#prefersDouble}). Volumes come in file (Fortran)
 * order: index {@code i + nx·(j + ny·k)}.
 *
 * <p>Streams come from the caller so any file system (local, Hadoop) can supply them; {@link
 * #close} closes the stream given to {@link #open}.
 */
public final class NiftiReader implements Closeable {
  /** Deflate's largest compression ratio (a run of equal bytes): inflated ≤ 1032 · deflated. */
  static final long MAX_DEFLATE_RATIO = 1032;

  /** Bytes converted per step: a multiple of 8 so no value straddles two chunks. */
  static final int CHUNK_BYTES = 1 << 16;

  private final InputStream data;
  private final NiftiHeader header;
  private final String name;
  private final boolean gzip;
  private final byte[] chunk;
  private long volumesRead;

  private NiftiReader(InputStream data, NiftiHeader header, String name, boolean gzip) {
    this.data = data;
    this.header = header;
    this.name = name;
    this.gzip = gzip;
    this.chunk = new byte[(int) Math.min(CHUNK_BYTES,
        Math.max(8, (long) header.voxelsPerVolume() * header.datatype().bytes()))];
  }

  /**
   * Opens an image from a stream positioned at the start of the file, reads and validates its
   * header, and positions the stream at the first data byte.
   *
   * @param fileSize the file's size in bytes as its file system reports it (compressed size for
   *     {@code .nii.gz})
   * @param name the file's name or URI, used in messages
   * @throws InvalidInputException for a malformed, truncated or unsupported file
   */
  public static NiftiReader open(InputStream in, long fileSize, String name) {
    if (fileSize < 0) {
      throw new IllegalArgumentException("[BUG] fileSize must be >= 0, but was: " + fileSize);
    }
    boolean ok = false;
    try {
      BufferedInputStream buffered = new BufferedInputStream(in, CHUNK_BYTES);
      buffered.mark(2);
      int b0 = buffered.read();
      int b1 = buffered.read();
      buffered.reset();
      boolean gzip = b0 == 0x1f && b1 == 0x8b;
      InputStream stream = gzip ? new GZIPInputStream(buffered, CHUNK_BYTES) : buffered;
      byte[] first = readHeaderBytes(stream, 4, name, gzip);
      int size = Math.abs(NiftiHeader.sniffSizeofHdr(first, name));
      byte[] bytes = new byte[size];
      System.arraycopy(first, 0, bytes, 0, 4);
      byte[] rest = readHeaderBytes(stream, size - 4, name, gzip);
      if (rest.length < size - 4) {
        byte[] shortHeader = new byte[4 + rest.length];
        System.arraycopy(bytes, 0, shortHeader, 0, 4);
        System.arraycopy(rest, 0, shortHeader, 4, rest.length);
        NiftiHeader.parse(shortHeader, name); // throws: truncated header
      }
      System.arraycopy(rest, 0, bytes, 4, rest.length);
      NiftiHeader header = NiftiHeader.parse(bytes, name);
      checkSize(header, fileSize, name, gzip);
      long skip = header.voxOffset() - size;
      try {
        stream.skipNBytes(skip);
      } catch (EOFException e) {
        throw truncated(name, gzip, "before vox_offset " + header.voxOffset(), e);
      }
      NiftiReader reader = new NiftiReader(stream, header, name, gzip);
      ok = true;
      return reader;
    } catch (ZipException | EOFException e) {
      throw truncated(name, true, "in the gzip header", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    } finally {
      if (!ok) {
        closeQuietly(in);
      }
    }
  }

  /**
   * Opens a local file; see {@link #open(InputStream, long, String)}.
   *
   * @throws InvalidInputException also when the file does not exist or is a directory
   */
  public static NiftiReader open(Path path) {
    String name = path.toString();
    if (Files.isDirectory(path)) {
      throw new InvalidInputException(
          "Cannot read " + name + ": it is a directory, not a NIfTI file");
    }
    InputStream in;
    long size;
    try {
      in = Files.newInputStream(path);
      size = Files.size(path);
    } catch (NoSuchFileException e) {
      throw new InvalidInputException("Cannot read " + name + ": the file does not exist", e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    return open(in, size, name);
  }

  /** Reads and validates only the header of a local file. */
  public static NiftiHeader readHeader(Path path) {
    try (NiftiReader reader = open(path)) {
      return reader.header();
    }
  }

  /**
   * Reads a whole 3-D image (a 4-D file with one volume counts) as float64.
   *
   * @throws InvalidInputException when the image has more than one volume
   */
  public static double[] read3d(Path path, NiftiHeader[] headerOut) {
    try (NiftiReader reader = open(path)) {
      NiftiHeader h = reader.header();
      if (h.volumes() != 1) {
        throw new InvalidInputException(
            "Cannot read " + path + " as a 3-D image: its dims are "
                + NiftiHeader.formatDims(h.dim()) + ", with " + h.volumes() + " volumes");
      }
      double[] values = new double[h.voxelsPerVolume()];
      reader.readVolume(values);
      if (headerOut != null) {
        headerOut[0] = h;
      }
      return values;
    }
  }

  private static byte[] readHeaderBytes(InputStream in, int n, String name, boolean gzip)
      throws IOException {
    try {
      byte[] b = in.readNBytes(n);
      if (b.length < 4 && n == 4) {
        throw new InvalidInputException(
            "Cannot read " + name + ": the file holds only " + b.length
                + " bytes, too few for a NIfTI header");
      }
      return b;
    } catch (EOFException | ZipException e) {
      throw truncated(name, gzip, "inside the header", e);
    }
  }

  private static void checkSize(NiftiHeader h, long fileSize, String name, boolean gzip) {
    long need = h.voxOffset() + h.dataBytes();
    String declared = "its header declares " + h.datatype().label() + " dims "
        + NiftiHeader.formatDims(h.dim()) + " at vox_offset " + h.voxOffset() + ", which needs "
        + h.voxOffset() + " + " + h.dataBytes() + " = " + need + " bytes";
    if (gzip) {
      long most = fileSize > Long.MAX_VALUE / MAX_DEFLATE_RATIO
          ? Long.MAX_VALUE : fileSize * MAX_DEFLATE_RATIO;
      if (need > most) {
        throw new InvalidInputException(
            "Cannot read " + name + ": " + declared + ", but a gzip file of " + fileSize
                + " bytes inflates to at most " + most
                + " bytes; the file is truncated or its header is corrupt");
      }
    } else if (need != fileSize) {
      throw new InvalidInputException(
          "Cannot read " + name + ": " + declared + ", but the file has " + fileSize + " bytes; "
              + (fileSize < need ? "the file is truncated" : "its dims do not match the data")
              + " or its header is corrupt");
    }
  }

  private static InvalidInputException truncated(
      String name, boolean gzip, String where, IOException cause) {
    return new InvalidInputException(
        "Cannot read " + name + ": the " + (gzip ? "gzip stream" : "file") + " ends or is corrupt "
            + where + " (" + cause.getMessage() + "); the file is truncated or damaged",
        cause);
  }

  /** The validated header. */
  public NiftiHeader header() {
    return header;
  }

  /** The name used in messages. */
  public String name() {
    return name;
  }

  /** Volumes read or skipped so far. */
  public long volumesRead() {
    return volumesRead;
  }

  /** Reads the next volume, scaled, into {@code dest[0 .. voxelsPerVolume)} as float32. */
  public void readVolume(float[] dest) {
    readVolume(dest, null);
  }

  /** Reads the next volume, scaled, into {@code dest[0 .. voxelsPerVolume)} as float64. */
  public void readVolume(double[] dest) {
    readVolume(null, dest);
  }

  /** Skips the next volume (still checking that its bytes are there). */
  public void skipVolume() {
    readVolume(null, null);
  }

  private void readVolume(float[] floats, double[] doubles) {
    int n = header.voxelsPerVolume();
    if (volumesRead >= header.volumes()) {
      throw new IllegalStateException("[BUG] " + name + " has only " + header.volumes()
          + " volumes, all read already");
    }
    int length = floats != null ? floats.length : doubles != null ? doubles.length : n;
    if (length < n) {
      throw new IllegalArgumentException("[BUG] a volume of " + name + " needs " + n
          + " values, but the destination holds " + length);
    }
    NiftiDatatype type = header.datatype();
    int per = type.bytes();
    ByteBuffer buffer = ByteBuffer.wrap(chunk).order(header.order());
    boolean scaled = header.hasScaling();
    double slope = header.effectiveSlope();
    double inter = header.effectiveInter();
    int done = 0;
    try {
      while (done < n) {
        int count = Math.min(n - done, chunk.length / per);
        int got = data.readNBytes(chunk, 0, count * per);
        if (got < count * per) {
          throw new InvalidInputException(
              "Cannot read " + name + ": the " + (gzip ? "inflated data end" : "file ends")
                  + " inside volume " + volumesRead + " of " + header.volumes() + ", after "
                  + (header.voxOffset() + (volumesRead * n + done) * (long) per + got)
                  + " of the " + (header.voxOffset() + header.dataBytes())
                  + " bytes its header declares; the file is truncated");
        }
        if (floats != null || doubles != null) {
          convert(buffer, type, count, scaled, slope, inter, floats, doubles, done);
        }
        done += count;
      }
      volumesRead++;
      if (volumesRead == header.volumes() && data.read() != -1) {
        // Also makes GZIPInputStream check the CRC and length of its trailer.
        throw new InvalidInputException(
            "Cannot read " + name + ": it holds more data than the "
                + (header.voxOffset() + header.dataBytes()) + " bytes its header declares (dims "
                + NiftiHeader.formatDims(header.dim()) + "); its dims are wrong or it is corrupt");
      }
    } catch (ZipException | EOFException e) {
      throw truncated(name, gzip, "inside volume " + volumesRead, e);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
  }

  private static void convert(ByteBuffer b, NiftiDatatype type, int count, boolean scaled,
      double slope, double inter, float[] floats, double[] doubles, int at) {
    if (type == NiftiDatatype.FLOAT32 && !scaled && floats != null) {
      b.clear();
      b.asFloatBuffer().get(floats, at, count);
      return;
    }
    if (type == NiftiDatatype.FLOAT64 && !scaled && doubles != null) {
      b.clear();
      b.asDoubleBuffer().get(doubles, at, count);
      return;
    }
    for (int i = 0; i < count; i++) {
      double raw;
      switch (type) {
        case UINT8:
          raw = b.get(i) & 0xff;
          break;
        case INT8:
          raw = b.get(i);
          break;
        case INT16:
          raw = b.getShort(2 * i);
          break;
        case UINT16:
          raw = b.getShort(2 * i) & 0xffff;
          break;
        case INT32:
          raw = b.getInt(4 * i);
          break;
        case FLOAT32:
          raw = b.getFloat(4 * i);
          break;
        case FLOAT64:
          raw = b.getDouble(8 * i);
          break;
        default:
          throw new IllegalStateException("[BUG] unhandled data type " + type);
      }
      double value = scaled ? raw * slope + inter : raw;
      if (floats != null) {
        floats[at + i] = (float) value;
      } else {
        doubles[at + i] = value;
      }
    }
  }

  @Override
  public void close() {
    closeQuietly(data);
  }

  private static void closeQuietly(InputStream in) {
    try {
      in.close();
    } catch (IOException ignored) {
      // Nothing was written; a failed close of an input loses nothing.
    }
  }
}
