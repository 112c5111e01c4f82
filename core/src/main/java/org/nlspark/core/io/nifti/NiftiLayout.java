package org.nlspark.core.io.nifti;

/**
 * The byte layout of the NIfTI-1 (348-byte) and NIfTI-2 (540-byte) single-file headers, in one
 * place: every offset the reader and the writer use is here, next to its C type. Offsets are
 * from the start of the file; multi-byte fields are in the file's byte order, which a reader
 * finds from {@code sizeof_hdr} (348 or 540 read in the right order).
 *
 * <p>Source: the NIfTI-1 header {@code nifti1.h} and the NIfTI-2 header {@code nifti2.h} of the
 * NIfTI Data Format Working Group. After the header come 4 extension bytes (the first non-zero
 * when extensions follow; they are skipped), then the data at {@code vox_offset}, in Fortran
 * order (the first index varies fastest).
 */
public final class NiftiLayout {
  private NiftiLayout() {}

  /** Field offsets of a NIfTI-1 header; types in the comments (short = int16). */
  public static final class V1 {
    private V1() {}

    public static final int SIZEOF_HDR_VALUE = 348;
    /** The smallest vox_offset of a single file: header plus the 4 extension bytes. */
    public static final int MIN_VOX_OFFSET = 352;

    public static final int SIZEOF_HDR = 0; // int32
    public static final int DIM_INFO = 39; // char
    public static final int DIM = 40; // short[8]
    public static final int INTENT_CODE = 68; // short
    public static final int DATATYPE = 70; // short
    public static final int BITPIX = 72; // short
    public static final int PIXDIM = 76; // float[8]
    public static final int VOX_OFFSET = 108; // float
    public static final int SCL_SLOPE = 112; // float
    public static final int SCL_INTER = 116; // float
    public static final int XYZT_UNITS = 123; // char
    public static final int CAL_MAX = 124; // float
    public static final int CAL_MIN = 128; // float
    public static final int DESCRIP = 148; // char[80]
    public static final int QFORM_CODE = 252; // short
    public static final int SFORM_CODE = 254; // short
    public static final int QUATERN_B = 256; // float, then quatern_c, quatern_d
    public static final int QOFFSET_X = 268; // float, then qoffset_y, qoffset_z
    public static final int SROW_X = 280; // float[4], then srow_y at 296, srow_z at 312
    public static final int MAGIC = 344; // char[4]: "n+1\0" single file, "ni1\0" .hdr/.img pair
  }

  /** Field offsets of a NIfTI-2 header; types in the comments. */
  public static final class V2 {
    private V2() {}

    public static final int SIZEOF_HDR_VALUE = 540;
    public static final int MIN_VOX_OFFSET = 544;

    public static final int SIZEOF_HDR = 0; // int32
    public static final int MAGIC = 4; // char[8]: "n+2\0\r\n\032\n" single file, "ni2\0..." pair
    public static final int DATATYPE = 12; // int16
    public static final int BITPIX = 14; // int16
    public static final int DIM = 16; // int64[8]
    public static final int PIXDIM = 104; // double[8]
    public static final int VOX_OFFSET = 168; // int64
    public static final int SCL_SLOPE = 176; // double
    public static final int SCL_INTER = 184; // double
    public static final int CAL_MAX = 192; // double
    public static final int CAL_MIN = 200; // double
    public static final int DESCRIP = 240; // char[80]
    public static final int QFORM_CODE = 344; // int32
    public static final int SFORM_CODE = 348; // int32
    public static final int QUATERN_B = 352; // double, then quatern_c, quatern_d
    public static final int QOFFSET_X = 376; // double, then qoffset_y, qoffset_z
    public static final int SROW_X = 400; // double[4], then srow_y at 432, srow_z at 464
    public static final int XYZT_UNITS = 500; // int32
    public static final int INTENT_CODE = 504; // int32
    public static final int DIM_INFO = 524; // char
  }

  /** Bytes of the extension flag that follows the header in a single file. */
  public static final int EXTENSION_BYTES = 4;

  /** Length of the descrip field in both versions. */
  public static final int DESCRIP_LENGTH = 80;

  static final byte[] MAGIC_V1_SINGLE = {'n', '+', '1', 0};
  static final byte[] MAGIC_V1_PAIR = {'n', 'i', '1', 0};
  static final byte[] MAGIC_V2_SINGLE = {'n', '+', '2', 0, '\r', '\n', 032, '\n'};
  static final byte[] MAGIC_V2_PAIR = {'n', 'i', '2', 0, '\r', '\n', 032, '\n'};
}
