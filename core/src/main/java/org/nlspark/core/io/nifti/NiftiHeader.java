package org.nlspark.core.io.nifti;

import java.io.Serializable;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import org.nlspark.core.InvalidInputException;

/**
 * A parsed, validated NIfTI-1 or NIfTI-2 single-file header (offsets in {@link NiftiLayout}).
 * Everything that can be wrong in a header is refused by {@link #parse} with an {@link
 * InvalidInputException} naming the file and the value, before any data is allocated.
 *
 * <p>Invariants of a parsed header: 1 ≤ dim[0] ≤ 7; dim[1..dim[0]] ≥ 1; at most 4 dimensions
 * after trailing singletons are dropped; one volume (dim1·dim2·dim3) fits one Java array; the
 * data size fits a long; vox_offset is an integer ≥ the header and extension bytes; the affine
 * is finite.
 *
 * <p>The affine follows nibabel's {@code get_best_affine}: the sform when {@code sform_code} is
 * non-zero, else the qform (quaternion, {@code qfac} = pixdim[0], which nibabel treats as 1
 * unless it is -1), else the pixdims ({@code shape_zoom_affine} with the x axis flipped and the
 * origin at the centre).
 */
public final class NiftiHeader implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The largest array the JVM allocates; one volume must fit one array. */
  public static final int MAX_VOLUME_VOXELS = Integer.MAX_VALUE - 8;

  private final int version;
  /** ByteOrder is not Serializable, so the order is kept as a flag. */
  private final boolean bigEndian;
  private final long[] dim;
  private final double[] pixdim;
  private final NiftiDatatype datatype;
  private final long voxOffset;
  private final double sclSlope;
  private final double sclInter;
  private final int qformCode;
  private final int sformCode;
  private final double[] quatern;
  private final double[] qoffset;
  private final double[][] srow;
  private final int xyztUnits;
  private final String descrip;

  private NiftiHeader(Builder b) {
    this.version = b.version;
    this.bigEndian = b.order == ByteOrder.BIG_ENDIAN;
    this.dim = b.dim.clone();
    this.pixdim = b.pixdim.clone();
    this.datatype = b.datatype;
    this.voxOffset = b.voxOffset;
    this.sclSlope = b.sclSlope;
    this.sclInter = b.sclInter;
    this.qformCode = b.qformCode;
    this.sformCode = b.sformCode;
    this.quatern = b.quatern.clone();
    this.qoffset = b.qoffset.clone();
    this.srow = new double[][] {b.srow[0].clone(), b.srow[1].clone(), b.srow[2].clone()};
    this.xyztUnits = b.xyztUnits;
    this.descrip = b.descrip;
  }

  // ---------------------------------------------------------------- parsing

  /**
   * Reads the byte order and version from the first 4 bytes ({@code sizeof_hdr}).
   *
   * @return 348 or 540 as a positive number for little-endian, negated for big-endian
   * @throws InvalidInputException when sizeof_hdr is neither 348 nor 540 in either order
   */
  static int sniffSizeofHdr(byte[] first4, String name) {
    int le = ByteBuffer.wrap(first4).order(ByteOrder.LITTLE_ENDIAN).getInt(0);
    int be = ByteBuffer.wrap(first4).order(ByteOrder.BIG_ENDIAN).getInt(0);
    if (le == NiftiLayout.V1.SIZEOF_HDR_VALUE || le == NiftiLayout.V2.SIZEOF_HDR_VALUE) {
      return le;
    }
    if (be == NiftiLayout.V1.SIZEOF_HDR_VALUE || be == NiftiLayout.V2.SIZEOF_HDR_VALUE) {
      return -be;
    }
    throw new InvalidInputException(
        "Cannot read "
            + name
            + ": it is not a NIfTI file (sizeof_hdr must be 348 for NIfTI-1 or 540 for NIfTI-2,"
            + " in either byte order, but was: "
            + le
            + " little-endian / "
            + be
            + " big-endian)");
  }

  /**
   * Parses and validates a whole header.
   *
   * @param bytes the first 348 (NIfTI-1) or 540 (NIfTI-2) bytes of the file
   * @param name the file's name, used in messages
   */
  public static NiftiHeader parse(byte[] bytes, String name) {
    if (bytes.length < 4) {
      throw truncatedHeader(name, bytes.length, NiftiLayout.V1.SIZEOF_HDR_VALUE);
    }
    int sized = sniffSizeofHdr(Arrays.copyOf(bytes, 4), name);
    ByteOrder order = sized > 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
    int size = Math.abs(sized);
    if (bytes.length < size) {
      throw truncatedHeader(name, bytes.length, size);
    }
    ByteBuffer h = ByteBuffer.wrap(bytes).order(order);
    Builder b = builder().order(order);
    if (size == NiftiLayout.V1.SIZEOF_HDR_VALUE) {
      checkMagic(bytes, NiftiLayout.V1.MAGIC, NiftiLayout.MAGIC_V1_SINGLE,
          NiftiLayout.MAGIC_V1_PAIR, name);
      b.version(1);
      int datatypeCode = h.getShort(NiftiLayout.V1.DATATYPE);
      for (int i = 0; i < 8; i++) {
        b.dim[i] = h.getShort(NiftiLayout.V1.DIM + 2 * i);
        b.pixdim[i] = h.getFloat(NiftiLayout.V1.PIXDIM + 4 * i);
      }
      checkDims(b.dim, name);
      b.datatype(NiftiDatatype.of(datatypeCode, name));
      double offset = h.getFloat(NiftiLayout.V1.VOX_OFFSET);
      if (!(offset >= 0 && offset == Math.rint(offset))) {
        throw voxOffsetError(name, offset, NiftiLayout.V1.MIN_VOX_OFFSET);
      }
      b.voxOffset = (long) offset;
      b.sclSlope = h.getFloat(NiftiLayout.V1.SCL_SLOPE);
      b.sclInter = h.getFloat(NiftiLayout.V1.SCL_INTER);
      b.qformCode = h.getShort(NiftiLayout.V1.QFORM_CODE);
      b.sformCode = h.getShort(NiftiLayout.V1.SFORM_CODE);
      for (int i = 0; i < 3; i++) {
        b.quatern[i] = h.getFloat(NiftiLayout.V1.QUATERN_B + 4 * i);
        b.qoffset[i] = h.getFloat(NiftiLayout.V1.QOFFSET_X + 4 * i);
        for (int j = 0; j < 4; j++) {
          b.srow[i][j] = h.getFloat(NiftiLayout.V1.SROW_X + 16 * i + 4 * j);
        }
      }
      b.xyztUnits = bytes[NiftiLayout.V1.XYZT_UNITS] & 0xff;
      b.descrip = readString(bytes, NiftiLayout.V1.DESCRIP, NiftiLayout.DESCRIP_LENGTH);
    } else {
      checkMagic(bytes, NiftiLayout.V2.MAGIC, NiftiLayout.MAGIC_V2_SINGLE,
          NiftiLayout.MAGIC_V2_PAIR, name);
      b.version(2);
      int datatypeCode = h.getShort(NiftiLayout.V2.DATATYPE);
      for (int i = 0; i < 8; i++) {
        b.dim[i] = h.getLong(NiftiLayout.V2.DIM + 8 * i);
        b.pixdim[i] = h.getDouble(NiftiLayout.V2.PIXDIM + 8 * i);
      }
      checkDims(b.dim, name);
      b.datatype(NiftiDatatype.of(datatypeCode, name));
      b.voxOffset = h.getLong(NiftiLayout.V2.VOX_OFFSET);
      b.sclSlope = h.getDouble(NiftiLayout.V2.SCL_SLOPE);
      b.sclInter = h.getDouble(NiftiLayout.V2.SCL_INTER);
      b.qformCode = h.getInt(NiftiLayout.V2.QFORM_CODE);
      b.sformCode = h.getInt(NiftiLayout.V2.SFORM_CODE);
      for (int i = 0; i < 3; i++) {
        b.quatern[i] = h.getDouble(NiftiLayout.V2.QUATERN_B + 8 * i);
        b.qoffset[i] = h.getDouble(NiftiLayout.V2.QOFFSET_X + 8 * i);
        for (int j = 0; j < 4; j++) {
          b.srow[i][j] = h.getDouble(NiftiLayout.V2.SROW_X + 32 * i + 8 * j);
        }
      }
      b.xyztUnits = h.getInt(NiftiLayout.V2.XYZT_UNITS);
      b.descrip = readString(bytes, NiftiLayout.V2.DESCRIP, NiftiLayout.DESCRIP_LENGTH);
    }
    NiftiHeader header = new NiftiHeader(b);
    header.validate(name);
    return header;
  }

  private static InvalidInputException truncatedHeader(String name, int have, int need) {
    return new InvalidInputException(
        "Cannot read "
            + name
            + ": the file ends after "
            + have
            + " bytes, inside the "
            + need
            + "-byte NIfTI header; the file is truncated or not a NIfTI file");
  }

  private static void checkMagic(
      byte[] bytes, int at, byte[] single, byte[] pair, String name) {
    byte[] magic = Arrays.copyOfRange(bytes, at, at + single.length);
    if (Arrays.equals(magic, single)) {
      return;
    }
    if (Arrays.equals(magic, pair)) {
      throw new InvalidInputException(
          "Cannot read "
              + name
              + ": it is the header of a .hdr/.img pair (magic \""
              + printable(magic)
              + "\"), which nlspark does not read; convert it to one .nii/.nii.gz file");
    }
    throw new InvalidInputException(
        "Cannot read "
            + name
            + ": its NIfTI magic must be \""
            + printable(single)
            + "\", but was: \""
            + printable(magic)
            + "\"; the file is corrupt or not a NIfTI file");
  }

  private static String printable(byte[] magic) {
    StringBuilder s = new StringBuilder();
    for (byte c : magic) {
      if (c >= 0x20 && c < 0x7f) {
        s.append((char) c);
      } else {
        s.append(String.format("\\x%02x", c & 0xff));
      }
    }
    return s.toString();
  }

  private static void checkDims(long[] dim, String name) {
    if (dim[0] < 1 || dim[0] > 7) {
      throw new InvalidInputException(
          "Cannot read " + name + ": dim[0] (the number of dimensions) must be 1 to 7, but was: "
              + dim[0] + "; the header is corrupt (or in the other byte order)");
    }
    for (int i = 1; i <= dim[0]; i++) {
      if (dim[i] < 1) {
        throw new InvalidInputException(
            "Cannot read " + name + ": dim[" + i + "] must be >= 1, but was: " + dim[i]
                + " (dims " + formatDims(dim) + "); the header is corrupt");
      }
    }
    // Trailing singletons are ignored (nibabel keeps them, but they hold no data).
    int rank = rank(dim);
    if (rank > 4 && name.toLowerCase(java.util.Locale.ROOT)
        .matches(".*\\.(dtseries|dscalar|dlabel|ptseries|pscalar|plabel|pconn|dconn|pdconn|dpconn"
            + "|pconnseries|pconnscalar|dfan)\\.nii(\\.gz)?")) {
      throw new InvalidInputException("Cannot read " + name + ": it is a CIFTI file"
          + " (dims " + formatDims(dim) + "), and the CIFTI files nlspark reads are dense"
          + " scalars and series (.dscalar.nii, .dtseries.nii)");
    }
    if (rank > 4) {
      throw new InvalidInputException(
          "Cannot read " + name + ": nlspark reads 3-D and 4-D images, but its dims are "
              + formatDims(dim) + " (" + rank + "-D); split it into 3-D or 4-D files");
    }
  }

  private static int rank(long[] dim) {
    int rank = (int) dim[0];
    while (rank > 1 && dim[rank] == 1) {
      rank--;
    }
    return rank;
  }

  private void validate(String name) {
    long voxels;
    long total;
    try {
      voxels = Math.multiplyExact(Math.multiplyExact(dimAt(1), dimAt(2)), dimAt(3));
      total = Math.multiplyExact(Math.multiplyExact(voxels, volumes()), datatype.bytes());
      Math.addExact(total, voxOffset);
    } catch (ArithmeticException e) {
      throw new InvalidInputException(
          "Cannot read " + name + ": its dims " + formatDims(dim)
              + " declare more than 2^63 bytes of data; the header is corrupt");
    }
    if (voxels > MAX_VOLUME_VOXELS) {
      throw new InvalidInputException(
          "Cannot read " + name + ": one volume of dims " + formatDims(dim) + " holds " + voxels
              + " voxels, more than the " + MAX_VOLUME_VOXELS
              + " one Java array can hold; the header is corrupt or the grid too fine");
    }
    int min = version == 1 ? NiftiLayout.V1.MIN_VOX_OFFSET : NiftiLayout.V2.MIN_VOX_OFFSET;
    if (voxOffset < min) {
      throw voxOffsetError(name, voxOffset, min);
    }
    if (hasScaling() && !Double.isFinite(sclInter)) {
      throw new InvalidInputException(
          "Cannot read " + name + ": scl_slope is " + sclSlope + " but scl_inter must be finite,"
              + " but was: " + sclInter + "; the header is corrupt");
    }
    double[][] a;
    try {
      a = affine();
    } catch (InvalidInputException e) {
      throw new InvalidInputException("Cannot read " + name + ": " + e.getMessage());
    }
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        if (!Double.isFinite(a[i][j])) {
          throw new InvalidInputException(
              "Cannot read " + name + ": its affine (from the " + affineSource()
                  + ") must be finite, but element [" + i + "][" + j + "] was: " + a[i][j]);
        }
      }
    }
  }

  private static InvalidInputException voxOffsetError(String name, double offset, int min) {
    return new InvalidInputException(
        "Cannot read " + name + ": vox_offset must be an integer >= " + min
            + " (the header and its extension flag), but was: " + offset
            + "; the header is corrupt");
  }

  private static String readString(byte[] bytes, int at, int length) {
    int end = at;
    while (end < at + length && bytes[end] != 0) {
      end++;
    }
    return new String(bytes, at, end - at, StandardCharsets.ISO_8859_1);
  }

  // ---------------------------------------------------------------- accessors

  /** 1 for NIfTI-1, 2 for NIfTI-2. */
  public int version() {
    return version;
  }

  public ByteOrder order() {
    return bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
  }

  public NiftiDatatype datatype() {
    return datatype;
  }

  /** The raw dim field (8 entries, dim[0] = number of dimensions). */
  public long[] dim() {
    return dim.clone();
  }

  /** The raw pixdim field (8 entries, pixdim[0] = qfac). */
  public double[] pixdim() {
    return pixdim.clone();
  }

  public long voxOffset() {
    return voxOffset;
  }

  public double sclSlope() {
    return sclSlope;
  }

  public double sclInter() {
    return sclInter;
  }

  public int qformCode() {
    return qformCode;
  }

  public int sformCode() {
    return sformCode;
  }

  /** quatern_b, quatern_c, quatern_d. */
  public double[] quatern() {
    return quatern.clone();
  }

  /** qoffset_x, qoffset_y, qoffset_z. */
  public double[] qoffset() {
    return qoffset.clone();
  }

  /** srow_x, srow_y, srow_z (3 × 4). */
  public double[][] srow() {
    return new double[][] {srow[0].clone(), srow[1].clone(), srow[2].clone()};
  }

  public int xyztUnits() {
    return xyztUnits;
  }

  public String descrip() {
    return descrip;
  }

  /** dim[i] for a spatial/temporal axis i in 1..4, 1 beyond dim[0]. */
  private long dimAt(int i) {
    return i <= dim[0] ? dim[i] : 1;
  }

  /** The shape with trailing singletons dropped: 1 to 4 entries. */
  public long[] shape() {
    long[] s = new long[rank(dim)];
    for (int i = 0; i < s.length; i++) {
      s[i] = dim[i + 1];
    }
    return s;
  }

  /** (nx, ny, nz), with 1 for axes the image does not have. */
  public int[] spatialDims() {
    return new int[] {(int) dimAt(1), (int) dimAt(2), (int) dimAt(3)};
  }

  /** Voxels of one volume: nx·ny·nz. */
  public int voxelsPerVolume() {
    return (int) (dimAt(1) * dimAt(2) * dimAt(3));
  }

  /** Number of 3-D volumes: dim[4], or 1 for a 3-D image. */
  public long volumes() {
    return dimAt(4);
  }

  /** Whether the image has a 4th axis with more than one volume. */
  public boolean is4d() {
    return shape().length == 4;
  }

  /** Bytes of data the header declares: voxels · volumes · bytes per value. */
  public long dataBytes() {
    return (long) voxelsPerVolume() * volumes() * datatype.bytes();
  }

  /** Whether scl_slope applies: it is finite and non-zero (nibabel's rule). */
  public boolean hasScaling() {
    return sclSlope != 0 && Double.isFinite(sclSlope);
  }

  /** The slope applied when reading: scl_slope, or 1 when it does not apply. */
  public double effectiveSlope() {
    return hasScaling() ? sclSlope : 1.0;
  }

  /** The intercept applied when reading: scl_inter, or 0 when scaling does not apply. */
  public double effectiveInter() {
    return hasScaling() ? sclInter : 0.0;
  }

  /**
   * Whether values read from this file are held in float64 to keep their precision: float64
   * data, int32 data, and any data scaled by a slope/intercept that float32 would round.
   */
  public boolean prefersDouble() {
    if (!datatype.fitsFloat32()) {
      return true;
    }
    double slope = effectiveSlope();
    double inter = effectiveInter();
    return (float) slope != slope || (float) inter != inter;
  }

  /** The grid: spatial dims and affine. */
  public NiftiGrid grid() {
    return new NiftiGrid(spatialDims(), affine());
  }

  /** "sform", "qform" or "pixdims": where {@link #affine()} comes from. */
  public String affineSource() {
    if (sformCode != 0) {
      return "sform";
    }
    return qformCode != 0 ? "qform" : "pixdims";
  }

  /** The voxel-to-world affine (4 × 4), by nibabel's rule (see the class comment). */
  public double[][] affine() {
    if (sformCode != 0) {
      return new double[][] {
        srow[0].clone(), srow[1].clone(), srow[2].clone(), {0, 0, 0, 1}
      };
    }
    if (qformCode != 0) {
      return qformAffine();
    }
    return pixdimAffine();
  }

  /** nibabel's {@code Nifti1Header.get_qform}: R(quaternion) · diag(pixdim1, 2, qfac·pixdim3). */
  double[][] qformAffine() {
    double b = quatern[0];
    double c = quatern[1];
    double d = quatern[2];
    double w2 = 1.0 - (b * b + c * c + d * d);
    // nibabel tolerates a slightly negative w² from rounding (3 eps of the field's type).
    double threshold = -3 * (version == 1 ? Math.ulp(1.0f) : Math.ulp(1.0));
    double a;
    if (w2 < 0) {
      if (w2 < threshold) {
        throw new InvalidInputException(
            "its qform quaternion (b, c, d) = (" + b + ", " + c + ", " + d
                + ") must have b² + c² + d² <= 1, but 1 - (b² + c² + d²) was: " + w2);
      }
      a = 0;
    } else {
      a = Math.sqrt(w2);
    }
    double[][] r = quaternionToRotation(a, b, c, d);
    double[] vox = {pixdim[1], pixdim[2], pixdim[3]};
    if (vox[0] < 0 || vox[1] < 0 || vox[2] < 0) {
      throw new InvalidInputException(
          "its pixdim[1..3] must be >= 0 for the qform, but were: " + Arrays.toString(vox));
    }
    // nibabel fixes any qfac other than -1 or 1 to 1 when it loads a header.
    double qfac = pixdim[0] == -1 ? -1 : 1;
    vox[2] *= qfac;
    double[][] out = new double[4][4];
    for (int i = 0; i < 3; i++) {
      for (int j = 0; j < 3; j++) {
        out[i][j] = r[i][j] * vox[j];
      }
      out[i][3] = qoffset[i];
    }
    out[3][3] = 1;
    return out;
  }

  /** nibabel's {@code quat2mat}: rotation of the quaternion (w, x, y, z), normalised. */
  static double[][] quaternionToRotation(double w, double x, double y, double z) {
    double nq = w * w + x * x + y * y + z * z;
    if (nq < Math.ulp(1.0)) {
      return new double[][] {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
    }
    double s = 2.0 / nq;
    double bx = x * s;
    double by = y * s;
    double bz = z * s;
    double wx = w * bx;
    double wy = w * by;
    double wz = w * bz;
    double xx = x * bx;
    double xy = x * by;
    double xz = x * bz;
    double yy = y * by;
    double yz = y * bz;
    double zz = z * bz;
    return new double[][] {
      {1.0 - (yy + zz), xy - wz, xz + wy},
      {xy + wz, 1.0 - (xx + zz), yz - wx},
      {xz - wy, yz + wx, 1.0 - (xx + yy)}
    };
  }

  /**
   * nibabel's {@code get_base_affine} ({@code shape_zoom_affine} with x flipped): diagonal
   * pixdims, x negated, the origin at the centre voxel ((n - 1) / 2 on each axis).
   */
  double[][] pixdimAffine() {
    int[] n = spatialDims();
    double[] zooms = {
      dim[0] >= 1 ? pixdim[1] : 1, dim[0] >= 2 ? pixdim[2] : 1, dim[0] >= 3 ? pixdim[3] : 1
    };
    zooms[0] = -zooms[0];
    double[][] out = new double[4][4];
    for (int i = 0; i < 3; i++) {
      out[i][i] = zooms[i];
      out[i][3] = -((n[i] - 1) / 2.0) * zooms[i];
    }
    out[3][3] = 1;
    return out;
  }

  static String formatDims(long[] dim) {
    StringBuilder s = new StringBuilder("(");
    int n = (int) Math.max(1, Math.min(7, dim[0]));
    for (int i = 1; i <= n; i++) {
      s.append(i > 1 ? "," : "").append(dim[i]);
    }
    return s.append(')').toString();
  }

  // ---------------------------------------------------------------- writing

  /** Bytes of the header plus the extension flag, padded with zeros up to vox_offset. */
  public byte[] toBytes() {
    int size = version == 1 ? NiftiLayout.V1.SIZEOF_HDR_VALUE : NiftiLayout.V2.SIZEOF_HDR_VALUE;
    if (voxOffset < size + NiftiLayout.EXTENSION_BYTES || voxOffset > (1 << 20)) {
      throw new IllegalStateException("[BUG] vox_offset to write must be in [" + (size + 4)
          + ", 2^20], but was: " + voxOffset);
    }
    byte[] bytes = new byte[(int) voxOffset];
    ByteBuffer h = ByteBuffer.wrap(bytes).order(order());
    h.putInt(0, size);
    byte[] text = descrip.getBytes(StandardCharsets.ISO_8859_1);
    int textLength = Math.min(text.length, NiftiLayout.DESCRIP_LENGTH - 1);
    if (version == 1) {
      h.putInt(32, 16384); // extents: ANALYZE 7.5 leftover that some readers still check
      bytes[38] = 'r'; // regular: likewise
      for (int i = 0; i < 8; i++) {
        h.putShort(NiftiLayout.V1.DIM + 2 * i, (short) dim[i]);
        h.putFloat(NiftiLayout.V1.PIXDIM + 4 * i, (float) pixdim[i]);
      }
      h.putShort(NiftiLayout.V1.DATATYPE, (short) datatype.code());
      h.putShort(NiftiLayout.V1.BITPIX, (short) datatype.bitpix());
      h.putFloat(NiftiLayout.V1.VOX_OFFSET, voxOffset);
      h.putFloat(NiftiLayout.V1.SCL_SLOPE, (float) sclSlope);
      h.putFloat(NiftiLayout.V1.SCL_INTER, (float) sclInter);
      bytes[NiftiLayout.V1.XYZT_UNITS] = (byte) xyztUnits;
      System.arraycopy(text, 0, bytes, NiftiLayout.V1.DESCRIP, textLength);
      h.putShort(NiftiLayout.V1.QFORM_CODE, (short) qformCode);
      h.putShort(NiftiLayout.V1.SFORM_CODE, (short) sformCode);
      for (int i = 0; i < 3; i++) {
        h.putFloat(NiftiLayout.V1.QUATERN_B + 4 * i, (float) quatern[i]);
        h.putFloat(NiftiLayout.V1.QOFFSET_X + 4 * i, (float) qoffset[i]);
        for (int j = 0; j < 4; j++) {
          h.putFloat(NiftiLayout.V1.SROW_X + 16 * i + 4 * j, (float) srow[i][j]);
        }
      }
      System.arraycopy(NiftiLayout.MAGIC_V1_SINGLE, 0, bytes, NiftiLayout.V1.MAGIC, 4);
    } else {
      System.arraycopy(NiftiLayout.MAGIC_V2_SINGLE, 0, bytes, NiftiLayout.V2.MAGIC, 8);
      h.putShort(NiftiLayout.V2.DATATYPE, (short) datatype.code());
      h.putShort(NiftiLayout.V2.BITPIX, (short) datatype.bitpix());
      for (int i = 0; i < 8; i++) {
        h.putLong(NiftiLayout.V2.DIM + 8 * i, dim[i]);
        h.putDouble(NiftiLayout.V2.PIXDIM + 8 * i, pixdim[i]);
      }
      h.putLong(NiftiLayout.V2.VOX_OFFSET, voxOffset);
      h.putDouble(NiftiLayout.V2.SCL_SLOPE, sclSlope);
      h.putDouble(NiftiLayout.V2.SCL_INTER, sclInter);
      System.arraycopy(text, 0, bytes, NiftiLayout.V2.DESCRIP, textLength);
      h.putInt(NiftiLayout.V2.QFORM_CODE, qformCode);
      h.putInt(NiftiLayout.V2.SFORM_CODE, sformCode);
      for (int i = 0; i < 3; i++) {
        h.putDouble(NiftiLayout.V2.QUATERN_B + 8 * i, quatern[i]);
        h.putDouble(NiftiLayout.V2.QOFFSET_X + 8 * i, qoffset[i]);
        for (int j = 0; j < 4; j++) {
          h.putDouble(NiftiLayout.V2.SROW_X + 32 * i + 8 * j, srow[i][j]);
        }
      }
      h.putInt(NiftiLayout.V2.XYZT_UNITS, xyztUnits);
    }
    return bytes;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** A builder starting from this header's fields. */
  public Builder toBuilder() {
    Builder b = new Builder();
    b.version = version;
    b.order = order();
    b.dim = dim.clone();
    b.pixdim = pixdim.clone();
    b.datatype = datatype;
    b.voxOffset = voxOffset;
    b.sclSlope = sclSlope;
    b.sclInter = sclInter;
    b.qformCode = qformCode;
    b.sformCode = sformCode;
    b.quatern = quatern.clone();
    b.qoffset = qoffset.clone();
    b.srow = srow();
    b.xyztUnits = xyztUnits;
    b.descrip = descrip;
    return b;
  }

  /**
   * Builds headers to write. Defaults: NIfTI-1, little-endian, float32, unit pixdims with qfac
   * 1, no scaling (slope 1, intercept 0), both codes 0, vox_offset right after the header.
   */
  public static final class Builder {
    private int version = 1;
    private ByteOrder order = ByteOrder.LITTLE_ENDIAN;
    private long[] dim = {3, 1, 1, 1, 1, 1, 1, 1};
    private double[] pixdim = {1, 1, 1, 1, 1, 1, 1, 1};
    private NiftiDatatype datatype = NiftiDatatype.FLOAT32;
    private long voxOffset = NiftiLayout.V1.MIN_VOX_OFFSET;
    private double sclSlope = 1;
    private double sclInter = 0;
    private int qformCode;
    private int sformCode;
    private double[] quatern = new double[3];
    private double[] qoffset = new double[3];
    private double[][] srow = {{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}};
    private int xyztUnits;
    private String descrip = "";

    private Builder() {}

    /** 1 or 2; also sets vox_offset to that version's minimum. */
    public Builder version(int v) {
      if (v != 1 && v != 2) {
        throw new IllegalArgumentException("NIfTI version must be 1 or 2, but was: " + v);
      }
      version = v;
      voxOffset = v == 1 ? NiftiLayout.V1.MIN_VOX_OFFSET : NiftiLayout.V2.MIN_VOX_OFFSET;
      return this;
    }

    public Builder order(ByteOrder o) {
      order = o;
      return this;
    }

    /** The shape (1 to 7 entries); sets dim[0] to its length. */
    public Builder shape(long... shape) {
      if (shape.length < 1 || shape.length > 7) {
        throw new IllegalArgumentException(
            "shape must have 1 to 7 entries, but was: " + Arrays.toString(shape));
      }
      dim = new long[8];
      Arrays.fill(dim, 1);
      dim[0] = shape.length;
      System.arraycopy(shape, 0, dim, 1, shape.length);
      return this;
    }

    /** The raw dim field (8 entries), for headers tests want to make wrong on purpose. */
    public Builder dim(long... raw) {
      dim = Arrays.copyOf(raw, 8);
      return this;
    }

    public Builder pixdim(double... raw) {
      pixdim = Arrays.copyOf(raw, 8);
      return this;
    }

    public Builder datatype(NiftiDatatype t) {
      datatype = t;
      return this;
    }

    public Builder voxOffset(long offset) {
      voxOffset = offset;
      return this;
    }

    public Builder scaling(double slope, double inter) {
      sclSlope = slope;
      sclInter = inter;
      return this;
    }

    /** qform code, quaternion (b, c, d) and offset (x, y, z). */
    public Builder qform(int code, double[] bcd, double[] offset) {
      qformCode = code;
      quatern = bcd.clone();
      qoffset = offset.clone();
      return this;
    }

    /** sform code and the first three rows of the affine. */
    public Builder sform(int code, double[][] rows) {
      sformCode = code;
      srow = new double[][] {rows[0].clone(), rows[1].clone(), rows[2].clone()};
      return this;
    }

    public Builder xyztUnits(int units) {
      xyztUnits = units;
      return this;
    }

    public Builder descrip(String text) {
      descrip = text;
      return this;
    }

    /** The header; {@link #validated} checks it as {@link #parse} would. */
    public NiftiHeader build() {
      return new NiftiHeader(this);
    }

    /** Builds and validates with the reader's rules; message names {@code name}. */
    public NiftiHeader validated(String name) {
      NiftiHeader h = new NiftiHeader(this);
      checkDims(h.dim, name);
      h.validate(name);
      return h;
    }
  }

  @Override
  public String toString() {
    return "NIfTI-" + version + " " + datatype.label() + " " + formatDims(dim) + " "
        + (bigEndian ? "big" : "little") + "-endian";
  }
}
