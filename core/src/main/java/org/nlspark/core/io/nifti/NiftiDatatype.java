package org.nlspark.core.io.nifti;

import org.nlspark.core.InvalidInputException;

/**
 * The NIfTI data types nlspark reads (DESIGN §8), with their header codes and sizes. Other
 * codes are refused by name (see {@link #of}).
 */
public enum NiftiDatatype {
  UINT8(2, 1),
  INT16(4, 2),
  INT32(8, 4),
  FLOAT32(16, 4),
  FLOAT64(64, 8),
  INT8(256, 1),
  UINT16(512, 2);

  private final int code;
  private final int bytes;

  NiftiDatatype(int code, int bytes) {
    this.code = code;
    this.bytes = bytes;
  }

  /** The {@code datatype} code of the header. */
  public int code() {
    return code;
  }

  /** Bytes per value. */
  public int bytes() {
    return bytes;
  }

  /** The {@code bitpix} field. */
  public int bitpix() {
    return 8 * bytes;
  }

  /** Lower-case name as nibabel prints it ("uint8", "float32"). */
  public String label() {
    return name().toLowerCase(java.util.Locale.ROOT);
  }

  /**
   * Whether float32 holds every value of this type after scaling-free reading. int32 and float64
   * do not, so their natural in-memory precision is float64; the others fit float32 exactly.
   */
  public boolean fitsFloat32() {
    return this != INT32 && this != FLOAT64;
  }

  /**
   * The type of a header code.
   *
   * @throws InvalidInputException naming the code and its NIfTI name when it is not supported
   */
  public static NiftiDatatype of(int code, String name) {
    for (NiftiDatatype t : values()) {
      if (t.code == code) {
        return t;
      }
    }
    throw new InvalidInputException(
        "Cannot read "
            + name
            + ": its data type "
            + code
            + " ("
            + unsupportedName(code)
            + ") is not supported; supported are uint8, int8, int16, uint16, int32, float32"
            + " and float64, so convert the image (e.g. with nibabel or fslmaths -odt float)");
  }

  private static String unsupportedName(int code) {
    switch (code) {
      case 0:
        return "unknown";
      case 1:
        return "binary";
      case 32:
        return "complex64";
      case 128:
        return "rgb24";
      case 768:
        return "uint32";
      case 1024:
        return "int64";
      case 1280:
        return "uint64";
      case 1536:
        return "float128";
      case 1792:
        return "complex128";
      case 2048:
        return "complex256";
      case 2304:
        return "rgba32";
      default:
        return "not a NIfTI data type";
    }
  }
}
