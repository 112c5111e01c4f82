package org.nlspark.core.io.nifti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.io.ByteArrayInputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nlspark.core.InvalidInputException;

class NiftiReaderTest {
  private static NiftiReader open(byte[] file, String name) {
    return NiftiReader.open(new ByteArrayInputStream(file), file.length, name);
  }

  private static NiftiHeader.Builder header(NiftiDatatype type, long... shape) {
    return NiftiHeader.builder().datatype(type).shape(shape);
  }

  @ParameterizedTest
  @EnumSource(NiftiDatatype.class)
  void readsEveryTypeWithScalingInBothOrdersVersionsAndCompressions(NiftiDatatype type) {
    int n = 4 * 3 * 2;
    double[] raw = NiftiBytes.rawValues(type, n, type.code());
    double slope = 2.5;
    double inter = -3.25;
    for (int version : new int[] {1, 2}) {
      for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
        for (boolean gzip : new boolean[] {false, true}) {
          NiftiHeader h = header(type, 4, 3, 2).version(version).order(order)
              .scaling(slope, inter).build();
          byte[] file = NiftiBytes.file(h, raw, gzip);
          String label = type + " v" + version + " " + order + (gzip ? " gz" : "");
          double[] d = new double[n];
          try (NiftiReader r = open(file, "t.nii")) {
            assertThat(r.header().version()).as(label).isEqualTo(version);
            assertThat(r.header().order()).as(label).isEqualTo(order);
            assertThat(r.header().datatype()).as(label).isEqualTo(type);
            r.readVolume(d);
          }
          float[] f = new float[n];
          try (NiftiReader r = open(file, "t.nii")) {
            r.readVolume(f);
          }
          for (int i = 0; i < n; i++) {
            double expected = raw[i] * slope + inter;
            assertThat(d[i]).as(label + " [" + i + "]").isEqualTo(expected);
            assertThat(f[i]).as(label + " [" + i + "]").isEqualTo((float) expected);
          }
        }
      }
    }
  }

  @Test
  void slopeZeroOrNaNMeansNoScalingAndFloat32StaysExact() {
    double[] raw = {1.1f, -2.7f, 3e-8f, 4e30f};
    for (double slope : new double[] {0, Double.NaN}) {
      NiftiHeader h = header(NiftiDatatype.FLOAT32, 2, 2, 1).scaling(slope, 7).build();
      float[] f = new float[4];
      try (NiftiReader r = open(NiftiBytes.file(h, raw, false), "s.nii")) {
        assertThat(r.header().hasScaling()).isFalse();
        assertThat(r.header().prefersDouble()).isFalse();
        r.readVolume(f);
      }
      for (int i = 0; i < 4; i++) {
        assertThat(f[i]).isEqualTo((float) raw[i]);
      }
    }
  }

  @Test
  void validSlopeWithNonFiniteInterceptIsRefused() {
    NiftiHeader h = header(NiftiDatatype.INT16, 2, 2, 2).scaling(2, Double.NaN).build();
    assertThatThrownBy(() -> open(NiftiBytes.file(h, new double[8], false), "bad-inter.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("bad-inter.nii")
        .hasMessageContaining("scl_inter must be finite, but was: NaN");
  }

  @Test
  void preferredPrecisionFollowsTypeAndScaling() {
    assertThat(header(NiftiDatatype.INT16, 2, 2, 2).build().prefersDouble()).isFalse();
    assertThat(header(NiftiDatatype.INT32, 2, 2, 2).build().prefersDouble()).isTrue();
    assertThat(header(NiftiDatatype.FLOAT64, 2, 2, 2).build().prefersDouble()).isTrue();
    assertThat(header(NiftiDatatype.INT16, 2, 2, 2).scaling(0.1, 0).build().prefersDouble())
        .isTrue();
    assertThat(header(NiftiDatatype.UINT8, 2, 2, 2).scaling(0.5, 1).build().prefersDouble())
        .isFalse();
  }

  @Test
  void reads4dVolumeByVolumeInFileOrder() {
    int per = 3 * 2 * 2;
    double[] raw = new double[per * 5];
    for (int i = 0; i < raw.length; i++) {
      raw[i] = i;
    }
    NiftiHeader h = header(NiftiDatatype.INT16, 3, 2, 2, 5).build();
    try (NiftiReader r = open(NiftiBytes.file(h, raw, true), "four.nii.gz")) {
      assertThat(r.header().is4d()).isTrue();
      assertThat(r.header().volumes()).isEqualTo(5);
      assertThat(r.header().shape()).containsExactly(3, 2, 2, 5);
      float[] v = new float[per];
      r.readVolume(v);
      r.skipVolume();
      r.readVolume(v);
      for (int i = 0; i < per; i++) {
        assertThat(v[i]).isEqualTo(2 * per + i);
      }
      r.skipVolume();
      r.readVolume(v);
      assertThat(v[per - 1]).isEqualTo(5 * per - 1);
      assertThat(r.volumesRead()).isEqualTo(5);
    }
  }

  @Test
  void trailingSingletonDimensionsAreIgnored() {
    NiftiHeader h = header(NiftiDatatype.UINT8, 4, 3, 2, 1, 1).build();
    try (NiftiReader r = open(NiftiBytes.file(h, new double[24], false), "t.nii")) {
      assertThat(r.header().shape()).containsExactly(4, 3, 2);
      assertThat(r.header().is4d()).isFalse();
      assertThat(r.header().volumes()).isEqualTo(1);
    }
    NiftiHeader twoD = header(NiftiDatatype.UINT8, 4, 3).build();
    try (NiftiReader r = open(NiftiBytes.file(twoD, new double[12], false), "t.nii")) {
      assertThat(r.header().spatialDims()).containsExactly(4, 3, 1);
    }
  }

  @Test
  void fiveDimensionalImagesAreRefused() {
    NiftiHeader h = header(NiftiDatatype.UINT8, 2, 2, 2, 1, 3).build();
    assertThatThrownBy(() -> open(NiftiBytes.file(h, new double[24], false), "five.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("five.nii")
        .hasMessageContaining("reads 3-D and 4-D images, but its dims are (2,2,2,1,3) (5-D)");
  }

  // ------------------------------------------------------------------ affines

  private static void assertAffine(double[][] actual, double[][] expected, double tol) {
    for (int i = 0; i < 4; i++) {
      for (int j = 0; j < 4; j++) {
        assertThat(actual[i][j]).as("[" + i + "][" + j + "] of " + Arrays.deepToString(actual))
            .isCloseTo(expected[i][j], within(tol));
      }
    }
  }

  @Test
  void qformOnlyAffineIsRotationTimesPixdimsWithQfac() {
    // 90 degrees about z: quaternion (cos 45, 0, 0, sin 45); R = [[0,-1,0],[1,0,0],[0,0,1]].
    double s = Math.sqrt(0.5);
    for (int version : new int[] {1, 2}) {
      NiftiHeader h = header(NiftiDatatype.FLOAT32, 5, 6, 7).version(version)
          .pixdim(-1, 2, 3, 4)
          .qform(1, new double[] {0, 0, s}, new double[] {10, 20, 30})
          .build();
      byte[] file = NiftiBytes.file(h, new double[5 * 6 * 7], false);
      try (NiftiReader r = open(file, "q.nii")) {
        assertThat(r.header().affineSource()).isEqualTo("qform");
        assertAffine(r.header().affine(),
            new double[][] {{0, -3, 0, 10}, {2, 0, 0, 20}, {0, 0, -4, 30}, {0, 0, 0, 1}},
            version == 1 ? 1e-6 : 1e-12);
      }
    }
    // Identity rotation, qfac other than -1 taken as 1 (nibabel's fix on load).
    NiftiHeader id = header(NiftiDatatype.FLOAT32, 2, 2, 2).pixdim(0, 1.5, 2, 2.5)
        .qform(2, new double[] {0, 0, 0}, new double[] {-1, -2, -3}).build();
    assertAffine(id.affine(),
        new double[][] {{1.5, 0, 0, -1}, {0, 2, 0, -2}, {0, 0, 2.5, -3}, {0, 0, 0, 1}}, 0);
  }

  @Test
  void qformFrom180DegreeRotationToleratesRoundingOfW() {
    // b = 1 (180 degrees about x): w² = 0 exactly; R = diag(1, -1, -1).
    NiftiHeader h = header(NiftiDatatype.FLOAT32, 2, 2, 2).pixdim(1, 1, 1, 1)
        .qform(1, new double[] {1, 0, 0}, new double[] {0, 0, 0}).build();
    assertAffine(h.affine(),
        new double[][] {{1, 0, 0, 0}, {0, -1, 0, 0}, {0, 0, -1, 0}, {0, 0, 0, 1}}, 0);
    NiftiHeader bad = header(NiftiDatatype.FLOAT32, 2, 2, 2)
        .qform(1, new double[] {1, 0.5, 0}, new double[] {0, 0, 0}).build();
    assertThatThrownBy(() -> open(NiftiBytes.file(bad, new double[8], false), "badq.nii"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("badq.nii")
        .hasMessageContaining("must have b² + c² + d² <= 1");
  }

  @Test
  void pixdimOnlyAffineFollowsNibabelBaseAffine() {
    NiftiHeader h = header(NiftiDatatype.FLOAT32, 4, 5, 6).pixdim(1, 2, 3, 4).build();
    // origin (n - 1) / 2 = (1.5, 2, 2.5); x flipped; translation -origin · zooms.
    assertThat(h.affineSource()).isEqualTo("pixdims");
    assertAffine(h.affine(),
        new double[][] {{-2, 0, 0, 3}, {0, 3, 0, -6}, {0, 0, 4, -10}, {0, 0, 0, 1}}, 0);
  }

  @Test
  void sformWinsOverQformWhenItsCodeIsSet() {
    double[][] rows = {{-2, 0.1, 0, 90}, {0, 2, 0, -126}, {0, 0, 2, -72}};
    NiftiHeader h = header(NiftiDatatype.FLOAT32, 2, 2, 2).pixdim(1, 3, 3, 3)
        .qform(1, new double[] {0, 0, 0}, new double[] {1, 2, 3})
        .sform(4, rows).build();
    try (NiftiReader r = open(NiftiBytes.file(h, new double[8], true), "s.nii.gz")) {
      assertThat(r.header().affineSource()).isEqualTo("sform");
      assertAffine(r.header().affine(),
          new double[][] {rows[0], rows[1], rows[2], {0, 0, 0, 1}}, 1e-6);
    }
  }

  // ------------------------------------------------------------------ malformed files

  private static byte[] goodFile(boolean gzip) {
    NiftiHeader h = header(NiftiDatatype.INT16, 4, 4, 4).build();
    return NiftiBytes.file(h, NiftiBytes.rawValues(NiftiDatatype.INT16, 64, 1), gzip);
  }

  private static void assertRefused(byte[] file, String name, String... parts) {
    var t = assertThatThrownBy(() -> {
      try (NiftiReader r = open(file, name)) {
        for (long v = 0; v < r.header().volumes(); v++) {
          r.skipVolume();
        }
      }
    }).isInstanceOf(InvalidInputException.class).hasMessageContaining(name);
    for (String p : parts) {
      t.hasMessageContaining(p);
    }
  }

  @Test
  void badSizeofHdrIsRefused() {
    byte[] f = goodFile(false);
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putInt(0, 123);
    assertRefused(f, "size.nii", "sizeof_hdr must be 348 for NIfTI-1 or 540 for NIfTI-2",
        "but was: 123 little-endian");
    assertRefused(NiftiBytes.gzip(f), "size.nii.gz", "but was: 123 little-endian");
  }

  @Test
  void badMagicIsRefusedAndPairHeadersNamed() {
    byte[] f = goodFile(false);
    f[NiftiLayout.V1.MAGIC + 1] = 'x';
    assertRefused(f, "magic.nii", "magic must be \"n+1\\x00\", but was: \"nx1\\x00\"");
    byte[] pair = goodFile(false);
    pair[NiftiLayout.V1.MAGIC + 1] = 'i';
    assertRefused(pair, "pair.hdr", ".hdr/.img pair");
    byte[] v2 = NiftiBytes.file(header(NiftiDatatype.UINT8, 2, 2, 2).version(2).build(),
        new double[8], false);
    v2[NiftiLayout.V2.MAGIC + 4] = '\n'; // the \r a text-mode transfer would eat
    assertRefused(v2, "v2.nii", "magic must be \"n+2\\x00\\x0d\\x0a\\x1a\\x0a\"");
  }

  @Test
  void dimsThatDoNotMatchAPlainFileAreRefused() {
    byte[] f = goodFile(false);
    assertRefused(Arrays.copyOf(f, f.length - 1), "short.nii",
        "needs 352 + 128 = 480 bytes, but the file has 479 bytes; the file is truncated");
    assertRefused(Arrays.copyOf(f, f.length + 2), "long.nii",
        "needs 352 + 128 = 480 bytes, but the file has 482 bytes; its dims do not match");
  }

  @Test
  void truncatedGzipIsRefusedWhileInflating() {
    NiftiHeader h = header(NiftiDatatype.FLOAT32, 16, 16, 16).build();
    byte[] gz = NiftiBytes.file(h, NiftiBytes.rawValues(NiftiDatatype.FLOAT32, 4096, 3), true);
    assertRefused(Arrays.copyOf(gz, gz.length / 2), "half.nii.gz", "truncated");
    // Only the 8-byte trailer (CRC, length) missing: found at the end of the last volume.
    assertRefused(Arrays.copyOf(gz, gz.length - 8), "notrailer.nii.gz", "truncated");
    assertRefused(Arrays.copyOf(gz, 6), "gzheader.nii.gz", "truncated");
    byte[] corrupt = gz.clone();
    corrupt[gz.length - 5] ^= 0x55; // CRC
    assertRefused(corrupt, "crc.nii.gz", "damaged");
  }

  @Test
  void gzipDataLongerThanDimsIsRefused() {
    NiftiHeader h = header(NiftiDatatype.UINT8, 2, 2, 2).build();
    byte[] plain = NiftiBytes.file(h, new double[8], false);
    assertRefused(NiftiBytes.gzip(Arrays.copyOf(plain, plain.length + 3)), "more.nii.gz",
        "holds more data than the 360 bytes its header declares");
  }

  @Test
  void unsupportedDatatypeIsNamed() {
    byte[] f = goodFile(false);
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putShort(NiftiLayout.V1.DATATYPE,
        (short) 1024);
    assertRefused(f, "int64.nii", "data type 1024 (int64) is not supported");
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putShort(NiftiLayout.V1.DATATYPE,
        (short) 128);
    assertRefused(f, "rgb.nii", "data type 128 (rgb24) is not supported");
  }

  @Test
  void negativeZeroAndAbsurdDimsAreRefusedBeforeAllocation() {
    byte[] f = goodFile(false);
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putShort(NiftiLayout.V1.DIM + 4,
        (short) -4);
    assertRefused(f, "neg.nii", "dim[2] must be >= 1, but was: -4");
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putShort(NiftiLayout.V1.DIM, (short) 9);
    assertRefused(f, "rank.nii", "dim[0] (the number of dimensions) must be 1 to 7, but was: 9");
    // 1000^3 int16 (2 GB) in a tiny gzip: refused from the header and the compressed size.
    NiftiHeader huge = header(NiftiDatatype.INT16, 1000, 1000, 1000).build();
    byte[] gz = NiftiBytes.gzip(huge.toBytes());
    assertRefused(gz, "huge.nii.gz", "(1000,1000,1000)", "inflates to at most");
    // A volume larger than one Java array (NIfTI-2 allows 64-bit dims).
    NiftiHeader wide = header(NiftiDatatype.UINT8, 100000, 100000, 1).version(2).build();
    assertRefused(NiftiBytes.gzip(wide.toBytes()), "wide.nii.gz",
        "holds 10000000000 voxels, more than the 2147483639 one Java array can hold");
    NiftiHeader overflow = header(NiftiDatatype.FLOAT64, 1L << 40, 1L << 40, 1L << 40)
        .version(2).build();
    assertRefused(NiftiBytes.gzip(overflow.toBytes()), "overflow.nii.gz",
        "declare more than 2^63 bytes");
  }

  @Test
  void voxOffsetOutOfRangeIsRefused() {
    byte[] f = goodFile(false);
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putFloat(NiftiLayout.V1.VOX_OFFSET, 0);
    assertRefused(f, "zero.nii", "vox_offset must be an integer >= 352", "but was: 0.0");
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putFloat(NiftiLayout.V1.VOX_OFFSET, 352.5f);
    assertRefused(f, "half.nii", "but was: 352.5");
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putFloat(NiftiLayout.V1.VOX_OFFSET, 1e6f);
    assertRefused(f, "far.nii", "at vox_offset 1000000", "but the file has 480 bytes");
    assertRefused(NiftiBytes.gzip(f), "far.nii.gz", "at vox_offset 1000000",
        "inflates to at most");
    ByteBuffer.wrap(f).order(ByteOrder.LITTLE_ENDIAN).putFloat(NiftiLayout.V1.VOX_OFFSET, 2000);
    assertRefused(NiftiBytes.gzip(f), "past.nii.gz", "before vox_offset 2000", "truncated");
  }

  @Test
  void truncatedHeaderIsRefused() {
    byte[] f = goodFile(false);
    assertRefused(Arrays.copyOf(f, 200), "cut.nii", "ends after 200 bytes, inside the 348-byte");
    assertRefused(NiftiBytes.gzip(Arrays.copyOf(f, 200)), "cut.nii.gz",
        "ends after 200 bytes, inside the 348-byte");
    assertRefused(new byte[2], "tiny.nii", "holds only 2 bytes");
  }

  @Test
  void nonFiniteSformIsRefused() {
    NiftiHeader h = header(NiftiDatatype.UINT8, 2, 2, 2)
        .sform(1, new double[][] {{1, 0, 0, Double.NaN}, {0, 1, 0, 0}, {0, 0, 1, 0}}).build();
    assertRefused(NiftiBytes.file(h, new double[8], false), "nan.nii",
        "affine (from the sform) must be finite, but element [0][3] was: NaN");
  }
}
