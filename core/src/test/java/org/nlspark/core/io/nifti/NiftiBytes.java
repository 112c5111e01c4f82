package org.nlspark.core.io.nifti;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.zip.GZIPOutputStream;

/** Builds NIfTI file bytes for tests: a header and raw values of any supported type. */
final class NiftiBytes {
  private NiftiBytes() {}

  /** The file of {@code header} followed by {@code raw} encoded in the header's type and order. */
  static byte[] file(NiftiHeader header, double[] raw, boolean gzip) {
    byte[] head = header.toBytes();
    int per = header.datatype().bytes();
    ByteBuffer b = ByteBuffer.allocate(head.length + raw.length * per).order(header.order());
    b.put(head);
    for (double v : raw) {
      switch (header.datatype()) {
        case UINT8:
        case INT8:
          b.put((byte) (long) v);
          break;
        case INT16:
        case UINT16:
          b.putShort((short) (long) v);
          break;
        case INT32:
          b.putInt((int) (long) v);
          break;
        case FLOAT32:
          b.putFloat((float) v);
          break;
        case FLOAT64:
          b.putDouble(v);
          break;
        default:
          throw new IllegalStateException();
      }
    }
    return gzip ? gzip(b.array()) : b.array();
  }

  static byte[] gzip(byte[] bytes) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(bytes);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  /** Raw test values inside the range of {@code type}, including both ends. */
  static double[] rawValues(NiftiDatatype type, int n, long seed) {
    java.util.SplittableRandom r = new java.util.SplittableRandom(seed);
    double lo;
    double hi;
    switch (type) {
      case UINT8:
        lo = 0;
        hi = 255;
        break;
      case INT8:
        lo = -128;
        hi = 127;
        break;
      case INT16:
        lo = -32768;
        hi = 32767;
        break;
      case UINT16:
        lo = 0;
        hi = 65535;
        break;
      case INT32:
        lo = Integer.MIN_VALUE;
        hi = Integer.MAX_VALUE;
        break;
      default:
        lo = -1e3;
        hi = 1e3;
    }
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      if (i == 0) {
        v[i] = lo;
      } else if (i == 1) {
        v[i] = hi;
      } else if (type == NiftiDatatype.FLOAT32) {
        v[i] = (float) (lo + (hi - lo) * r.nextDouble());
      } else if (type == NiftiDatatype.FLOAT64) {
        v[i] = lo + (hi - lo) * r.nextDouble();
      } else {
        v[i] = Math.floor(lo + (hi - lo + 1) * r.nextDouble());
      }
    }
    return v;
  }
}
