package org.nlspark.core.io;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.nlspark.core.InvalidInputException;

/**
 * The header of an {@code .npy} file (numpy format versions 1.0, 2.0 and 3.0), validated
 * strictly: only what nlspark can read without guessing is accepted, and every defect is an
 * {@link InvalidInputException} naming the file, the bad value and what to do (DESIGN §6).
 *
 * <p>Layout: the magic {@code \x93NUMPY}, major and minor version bytes, the header length
 * (unsigned little-endian, 2 bytes in 1.0, 4 bytes in 2.0/3.0), then that many bytes of a Python
 * dict literal (latin-1; UTF-8 in 3.0) with the keys {@code descr}, {@code fortran_order} and
 * {@code shape}, padded with spaces and ending in a newline. The data starts at {@link
 * #dataOffset()}.
 *
 * @param dtype element type
 * @param shape dimensions, C order (copied; the accessor returns a copy)
 * @param fortranOrder always false for a parsed header (Fortran order is rejected)
 * @param dataOffset bytes from the start of the file to the first element
 */
public record NpyHeader(NpyDtype dtype, long[] shape, boolean fortranOrder, int dataOffset) {
  /** Upper bound on the declared header length; real headers are about 128 bytes. */
  public static final int MAX_HEADER_BYTES = 1 << 20;

  /** numpy's own limit on the number of dimensions (NPY_MAXDIMS in numpy 2). */
  public static final int MAX_RANK = 64;

  static final byte[] MAGIC = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y'};

  public NpyHeader {
    Objects.requireNonNull(dtype, "dtype");
    shape = shape.clone();
    if (shape.length > MAX_RANK) {
      throw new IllegalArgumentException(
          "rank must be at most " + MAX_RANK + ", but was: " + shape.length);
    }
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException(
            "dimensions must be >= 0, but shape was: " + formatShape(shape));
      }
    }
    if (elementCountOrMinusOne(shape) < 0) {
      throw new IllegalArgumentException(
          "shape " + formatShape(shape) + " has more than " + Long.MAX_VALUE + " elements");
    }
    if (dataOffset < 0) {
      throw new IllegalArgumentException("dataOffset must be >= 0, but was: " + dataOffset);
    }
  }

  @Override
  public long[] shape() {
    return shape.clone();
  }

  /** Number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** Product of the dimensions (1 for a 0-D array, 0 when any dimension is 0). */
  public long elementCount() {
    return elementCountOrMinusOne(shape);
  }

  /** Bytes of data after the header: {@code elementCount() * itemSize}, or -1 on overflow. */
  long dataBytes() {
    long count = elementCount();
    return count > Long.MAX_VALUE / dtype.itemSize() ? -1 : count * dtype.itemSize();
  }

  /**
   * Parses and validates a header, consuming exactly {@link #dataOffset()} bytes of {@code in}
   * (the caller's stream is left at the first element and is not closed).
   *
   * @param name the file's name or URI, used in messages
   * @throws InvalidInputException on any defect: not an .npy, unsupported version, header too
   *     long or truncated, malformed dict, unsupported dtype, Fortran order, bad shape
   * @throws UncheckedIOException when the stream itself fails
   */
  public static NpyHeader parse(InputStream in, String name) {
    byte[] prefix = readExactly(in, 8, name, "the magic string and version");
    if (!Arrays.equals(prefix, 0, MAGIC.length, MAGIC, 0, MAGIC.length)) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": not an .npy file (it does not start with the magic string \\x93NUMPY);"
              + " save the array with numpy.save");
    }
    int major = prefix[6] & 0xff;
    int minor = prefix[7] & 0xff;
    if (major < 1 || major > 3 || minor != 0) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": .npy format version "
              + major
              + "."
              + minor
              + " is not supported; supported versions are 1.0, 2.0 and 3.0");
    }
    int lengthBytes = major == 1 ? 2 : 4;
    byte[] len = readExactly(in, lengthBytes, name, "the header length");
    long headerLength = 0;
    for (int i = lengthBytes - 1; i >= 0; i--) {
      headerLength = (headerLength << 8) | (len[i] & 0xff);
    }
    if (headerLength > MAX_HEADER_BYTES) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": the .npy header length must be at most "
              + MAX_HEADER_BYTES
              + " bytes, but was: "
              + headerLength
              + "; the file is corrupt or not written by numpy");
    }
    byte[] headerBytes = readExactly(in, (int) headerLength, name, "the header");
    String text =
        new String(
            headerBytes, major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    int dataOffset = MAGIC.length + 2 + lengthBytes + (int) headerLength;
    return fromDict(text, name, dataOffset);
  }

  private static NpyHeader fromDict(String text, String name, int dataOffset) {
    Object parsed;
    try {
      parsed = PyLiteral.parse(text);
    } catch (PyLiteral.SyntaxError e) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": the .npy header is not a valid Python dict literal ("
              + e.getMessage()
              + "): "
              + abbreviate(text));
    }
    if (!(parsed instanceof Map<?, ?> dict)) {
      throw new InvalidInputException(
          "Cannot read " + name + ": the .npy header is not a dict: " + abbreviate(text));
    }
    for (Object key : dict.keySet()) {
      if (!List.of("descr", "fortran_order", "shape").contains(key)) {
        throw new InvalidInputException(
            "Cannot read "
                + name
                + ": the .npy header has an unexpected key '"
                + key
                + "'; expected exactly 'descr', 'fortran_order' and 'shape'");
      }
    }
    for (String key : List.of("descr", "fortran_order", "shape")) {
      if (!dict.containsKey(key)) {
        throw new InvalidInputException(
            "Cannot read " + name + ": the .npy header lacks the key '" + key + "': "
                + abbreviate(text));
      }
    }
    NpyDtype dtype = dtype(dict.get("descr"), name);
    Object fortran = dict.get("fortran_order");
    if (!(fortran instanceof Boolean)) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": 'fortran_order' must be True or False, but was: "
              + pyRepr(fortran));
    }
    if ((Boolean) fortran) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": the array is stored in Fortran (column-major) order, but nlspark reads C order;"
              + " save numpy.ascontiguousarray(x) instead");
    }
    long[] shape = shape(dict.get("shape"), name);
    return new NpyHeader(dtype, shape, false, dataOffset);
  }

  private static NpyDtype dtype(Object descr, String name) {
    if (!(descr instanceof String s)) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": dtype "
              + pyRepr(descr)
              + " is a structured (record) dtype; nlspark reads plain little-endian float32"
              + " ('<f4') or float64 ('<f8') arrays");
    }
    switch (s) {
      case "<f4", "=f4":
        return NpyDtype.FLOAT32;
      case "<f8", "=f8":
        return NpyDtype.FLOAT64;
      case ">f4", ">f8":
        throw new InvalidInputException(
            "Cannot read "
                + name
                + ": dtype '"
                + s
                + "' is big-endian; nlspark reads little-endian float32 ('<f4') or float64"
                + " ('<f8'); convert with x.astype('<f"
                + s.charAt(2)
                + "') before numpy.save");
      default:
        throw new InvalidInputException(
            "Cannot read "
                + name
                + ": dtype must be little-endian float32 ('<f4') or float64 ('<f8'), but was: '"
                + s
                + "'"
                + kindName(s)
                + "; convert with x.astype(numpy.float64) before numpy.save");
    }
  }

  /** A readable name for common numpy type codes, so the user sees "int64", not just "<i8". */
  private static String kindName(String descr) {
    String code = descr.isEmpty() ? descr : descr.substring(1);
    if (code.isEmpty()) {
      return "";
    }
    String size = code.substring(1);
    String kind =
        switch (code.charAt(0)) {
          case 'i' -> "int" + bits(size);
          case 'u' -> "uint" + bits(size);
          case 'b' -> "bool";
          case 'f' -> "float" + bits(size);
          case 'c' -> "complex" + bits(size);
          case 'O' -> "Python objects";
          case 'U' -> "unicode strings";
          case 'S' -> "byte strings";
          case 'V' -> "raw bytes";
          case 'M' -> "datetime";
          case 'm' -> "timedelta";
          default -> null;
        };
    return kind == null ? "" : " (" + kind + ")";
  }

  private static String bits(String bytes) {
    try {
      return Integer.toString(Integer.parseInt(bytes) * 8);
    } catch (NumberFormatException e) {
      return "";
    }
  }

  private static long[] shape(Object value, String name) {
    if (!(value instanceof PyLiteral.Tuple tuple)) {
      throw new InvalidInputException(
          "Cannot read " + name + ": 'shape' must be a tuple of integers, but was: "
              + pyRepr(value));
    }
    List<Object> items = tuple.items();
    if (items.size() > MAX_RANK) {
      throw new InvalidInputException(
          "Cannot read " + name + ": rank must be at most " + MAX_RANK + ", but was: "
              + items.size());
    }
    long[] shape = new long[items.size()];
    for (int i = 0; i < shape.length; i++) {
      if (!(items.get(i) instanceof Long d)) {
        throw new InvalidInputException(
            "Cannot read " + name + ": 'shape' must be a tuple of integers, but was: "
                + pyRepr(value));
      }
      if (d < 0) {
        throw new InvalidInputException(
            "Cannot read "
                + name
                + ": dimension "
                + i
                + " of the shape must be >= 0, but was: "
                + d
                + " (shape "
                + pyRepr(value)
                + ")");
      }
      shape[i] = d;
    }
    if (elementCountOrMinusOne(shape) < 0) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": shape "
              + formatShape(shape)
              + " has more than "
              + Long.MAX_VALUE
              + " elements; the header is corrupt");
    }
    return shape;
  }

  private static long elementCountOrMinusOne(long[] shape) {
    long count = 1;
    for (long d : shape) {
      if (d == 0) {
        return 0;
      }
    }
    for (long d : shape) {
      if (count > Long.MAX_VALUE / d) {
        return -1;
      }
      count *= d;
    }
    return count;
  }

  private static byte[] readExactly(InputStream in, int n, String name, String what) {
    byte[] bytes;
    try {
      bytes = in.readNBytes(n);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + name + ": " + e.getMessage(), e);
    }
    if (bytes.length < n) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": the file ends inside "
              + what
              + " ("
              + bytes.length
              + " of "
              + n
              + " bytes); it is truncated or not an .npy file");
    }
    return bytes;
  }

  /** Formats a shape the way Python prints a tuple: {@code (3, 2)}, {@code (3,)}, {@code ()}. */
  public static String formatShape(long[] shape) {
    StringBuilder sb = new StringBuilder("(");
    for (int i = 0; i < shape.length; i++) {
      if (i > 0) {
        sb.append(", ");
      }
      sb.append(shape[i]);
    }
    if (shape.length == 1) {
      sb.append(',');
    }
    return sb.append(')').toString();
  }

  private static String pyRepr(Object value) {
    if (value == null) {
      return "None";
    }
    if (value instanceof String s) {
      return "'" + s + "'";
    }
    if (value instanceof Boolean b) {
      return b ? "True" : "False";
    }
    if (value instanceof PyLiteral.Tuple t) {
      StringBuilder sb = new StringBuilder("(");
      for (int i = 0; i < t.items().size(); i++) {
        sb.append(i > 0 ? ", " : "").append(pyRepr(t.items().get(i)));
      }
      return sb.append(t.items().size() == 1 ? ",)" : ")").toString();
    }
    if (value instanceof List<?> list) {
      StringBuilder sb = new StringBuilder("[");
      for (int i = 0; i < list.size(); i++) {
        sb.append(i > 0 ? ", " : "").append(pyRepr(list.get(i)));
      }
      return sb.append(']').toString();
    }
    if (value instanceof Map<?, ?> map) {
      StringBuilder sb = new StringBuilder("{");
      boolean first = true;
      for (Map.Entry<?, ?> e : map.entrySet()) {
        sb.append(first ? "" : ", ").append(pyRepr(e.getKey())).append(": ")
            .append(pyRepr(e.getValue()));
        first = false;
      }
      return sb.append('}').toString();
    }
    return String.valueOf(value);
  }

  private static String abbreviate(String text) {
    String t = text.strip();
    return t.length() <= 200 ? t : t.substring(0, 200) + "...";
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NpyHeader h
        && dtype == h.dtype
        && Arrays.equals(shape, h.shape)
        && fortranOrder == h.fortranOrder
        && dataOffset == h.dataOffset;
  }

  @Override
  public int hashCode() {
    return Objects.hash(dtype, Arrays.hashCode(shape), fortranOrder, dataOffset);
  }

  @Override
  public String toString() {
    return "NpyHeader[dtype="
        + dtype.descr()
        + ", shape="
        + formatShape(shape)
        + ", fortranOrder="
        + fortranOrder
        + ", dataOffset="
        + dataOffset
        + "]";
  }
}
