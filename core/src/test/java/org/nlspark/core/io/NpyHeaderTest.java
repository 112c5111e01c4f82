package org.nlspark.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.nlspark.core.InvalidInputException;

class NpyHeaderTest {
  private static NpyHeader parse(byte[] file) {
    return NpyHeader.parse(new ByteArrayInputStream(file), "x.npy");
  }

  private static NpyHeader parseDict(String dict) {
    return parse(NpyBytes.file(dict, new byte[0]));
  }

  private static void assertRejected(String dict, String... messageParts) {
    assertThatThrownBy(() -> parseDict(dict))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot read x.npy: ")
        .hasMessageContainingAll(messageParts);
  }

  @Test
  void parsesWhatNumpyWrites() {
    NpyHeader h = parse(NpyBytes.base64(NpyBytes.NUMPY_F8_3X2));
    assertThat(h.dtype()).isEqualTo(NpyDtype.FLOAT64);
    assertThat(h.shape()).containsExactly(3, 2);
    assertThat(h.fortranOrder()).isFalse();
    assertThat(h.dataOffset()).isEqualTo(128);
    assertThat(h.elementCount()).isEqualTo(6);
    assertThat(h.rank()).isEqualTo(2);
  }

  @Test
  void leavesTheStreamAtTheFirstElement() throws IOException {
    InputStream in = new ByteArrayInputStream(NpyBytes.base64(NpyBytes.NUMPY_F8_3X2));
    NpyHeader h = NpyHeader.parse(in, "x.npy");
    assertThat(h.dataOffset()).isEqualTo(128);
    // 6 doubles remain: exactly the data.
    assertThat(in.readAllBytes()).hasSize(48);
  }

  @Test
  void acceptsAnyKeyOrderQuotesSpacingAndMissingTrailingComma() {
    String dict = "{ \"shape\" :(3 ,2 ) ,\"fortran_order\":False,'descr':\"<f4\"}";
    NpyHeader h = parseDict(dict);
    assertThat(h.dtype()).isEqualTo(NpyDtype.FLOAT32);
    assertThat(h.shape()).containsExactly(3, 2);
    assertThat(h.dataOffset()).isEqualTo(10 + dict.length());
  }

  @Test
  void acceptsTrailingPaddingAndPython2LongSuffix() {
    NpyHeader h = parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (4L, 5L), }   \t\n");
    assertThat(h.shape()).containsExactly(4, 5);
  }

  @Test
  void acceptsNativeByteOrderSpelling() {
    assertThat(parseDict("{'descr': '=f4', 'fortran_order': False, 'shape': (2,)}").dtype())
        .isEqualTo(NpyDtype.FLOAT32);
    assertThat(parseDict("{'descr': '=f8', 'fortran_order': False, 'shape': (2,)}").dtype())
        .isEqualTo(NpyDtype.FLOAT64);
  }

  @Test
  void readsVersions2And3WithFourByteLength() {
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (7,), }\n";
    for (int major : new int[] {2, 3}) {
      NpyHeader h = parse(NpyBytes.file(major, dict, new byte[0]));
      assertThat(h.shape()).containsExactly(7);
      assertThat(h.dataOffset()).isEqualTo(12 + dict.length());
    }
  }

  @Test
  void version3HeaderIsDecodedAsUtf8AndOlderVersionsAsLatin1() {
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), 'é': 1}\n";
    for (int major : new int[] {1, 3}) {
      assertThatThrownBy(() -> parse(NpyBytes.file(major, dict, new byte[0])))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("Cannot read x.npy: the .npy header has an unexpected key 'é';");
    }
  }

  @Test
  void shapesOfEveryRankIncludingEmptyAndScalar() {
    assertThat(parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': ()}").elementCount())
        .isEqualTo(1);
    NpyHeader empty = parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (0,)}");
    assertThat(empty.shape()).containsExactly(0);
    assertThat(empty.elementCount()).isZero();
    NpyHeader cube = parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3, 4)}");
    assertThat(cube.elementCount()).isEqualTo(24);
    // A zero dimension makes any product empty, even one that would overflow otherwise.
    NpyHeader huge =
        parseDict(
            "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296, 0)}");
    assertThat(huge.elementCount()).isZero();
  }

  @Test
  void shapeAccessorReturnsACopy() {
    NpyHeader h = parseDict("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}");
    h.shape()[0] = 99;
    assertThat(h.shape()).containsExactly(2, 3);
  }

  @Test
  void rejectsAFileThatIsNotNpy() {
    byte[] csv = "1.0,2.0,3.0\n4.0,5.0,6.0\n".getBytes(StandardCharsets.US_ASCII);
    assertThatThrownBy(() -> parse(csv))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: not an .npy file (it does not start with the magic string"
                + " \\x93NUMPY); save the array with numpy.save");
  }

  @Test
  void rejectsAFileEndingInsideTheMagic() {
    assertThatThrownBy(() -> parse(new byte[] {(byte) 0x93, 'N', 'U'}))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: the file ends inside the magic string and version (3 of 8 bytes);"
                + " it is truncated or not an .npy file");
  }

  @ParameterizedTest
  @CsvSource({"4, 0", "1, 1", "0, 0"})
  void rejectsUnsupportedVersions(int major, int minor) {
    byte[] file = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    file[6] = (byte) major;
    file[7] = (byte) minor;
    assertThatThrownBy(() -> parse(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: .npy format version "
                + major
                + "."
                + minor
                + " is not supported; supported versions are 1.0, 2.0 and 3.0");
  }

  @Test
  void rejectsAHostileHeaderLengthBeforeReadingIt() {
    byte[] file = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 2, 0, -1, -1, -1, -1};
    assertThatThrownBy(() -> parse(file))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: the .npy header length must be at most 1048576 bytes, but was:"
                + " 4294967295; the file is corrupt or not written by numpy");
  }

  @Test
  void rejectsATruncatedHeader() {
    byte[] whole = NpyBytes.base64(NpyBytes.NUMPY_F8_3X2);
    byte[] cut = java.util.Arrays.copyOf(whole, 60);
    assertThatThrownBy(() -> parse(cut))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage(
            "Cannot read x.npy: the file ends inside the header (50 of 118 bytes);"
                + " it is truncated or not an .npy file");
  }

  @Test
  void rejectsBigEndianNamingTheDtype() {
    assertRejected(
        "{'descr': '>f8', 'fortran_order': False, 'shape': (3,)}",
        "dtype '>f8' is big-endian; nlspark reads little-endian float32 ('<f4') or float64"
            + " ('<f8'); convert with x.astype('<f8') before numpy.save");
    assertRejected(
        "{'descr': '>f4', 'fortran_order': False, 'shape': (3,)}",
        "dtype '>f4' is big-endian", "x.astype('<f4')");
  }

  @ParameterizedTest
  @CsvSource(
      delimiter = ';',
      value = {
        "<i8;'<i8' (int64)",
        "<u2;'<u2' (uint16)",
        "|b1;'|b1' (bool)",
        "<c16;'<c16' (complex128)",
        "|O;'|O' (Python objects)",
        "<U3;'<U3' (unicode strings)",
        "<f2;'<f2' (float16)",
        "<f16;'<f16' (float128)",
        "<M8[ns];'<M8[ns]' (datetime)"
      })
  void rejectsOtherDtypesNamingThem(String descr, String shown) {
    assertRejected(
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (3,)}",
        "dtype must be little-endian float32 ('<f4') or float64 ('<f8'), but was: "
            + shown
            + "; convert with x.astype(numpy.float64) before numpy.save");
  }

  @Test
  void rejectsStructuredDtype() {
    assertRejected(
        "{'descr': [('a', '<f8'), ('b', '<i4')], 'fortran_order': False, 'shape': (3,)}",
        "dtype [('a', '<f8'), ('b', '<i4')] is a structured (record) dtype");
  }

  @Test
  void rejectsFortranOrder() {
    assertRejected(
        "{'descr': '<f8', 'fortran_order': True, 'shape': (3, 2)}",
        "the array is stored in Fortran (column-major) order, but nlspark reads C order;"
            + " save numpy.ascontiguousarray(x) instead");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': 0, 'shape': (3, 2)}",
        "'fortran_order' must be True or False, but was: 0");
  }

  @Test
  void rejectsBadShapes() {
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3, -2)}",
        "dimension 1 of the shape must be >= 0, but was: -2 (shape (3, -2))");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (4294967296, 4294967296)}",
        "shape (4294967296, 4294967296) has more than 9223372036854775807 elements");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': [3, 2]}",
        "'shape' must be a tuple of integers, but was: [3, 2]");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3, 'a')}",
        "'shape' must be a tuple of integers, but was: (3, 'a')");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (99999999999999999999,)}",
        "integer 99999999999999999999 does not fit in 64 bits");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3)}",
        "a one-element tuple needs a trailing comma");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (2.5,)}", "expected an integer");
  }

  @Test
  void rejectsWrongKeys() {
    assertRejected(
        "{'descr': '<f8', 'shape': (3,)}", "the .npy header lacks the key 'fortran_order'");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3,), 'extra': 1}",
        "the .npy header has an unexpected key 'extra';"
            + " expected exactly 'descr', 'fortran_order' and 'shape'");
    assertRejected(
        "{'descr': '<f8', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
        "duplicate key 'descr' at character 17");
  }

  @Test
  void rejectsMalformedDicts() {
    assertRejected(
        "{'descr': '<f8', 'fortran_order': False, 'shape': (3,)",
        "the .npy header is not a valid Python dict literal (unexpected end of header at"
            + " character 54)");
    assertRejected(
        "{'descr': '<f8', 'fortran_order': false, 'shape': (3,)}",
        "unknown name 'false' at character 34");
    assertRejected(
        "{'descr': '<f8'} trailing", "unexpected text after the literal at character 17");
    assertRejected("['descr', '<f8']", "the .npy header is not a dict: ['descr', '<f8']");
    assertRejected("", "unexpected end of header at character 0");
    assertRejected("{'descr: '<f8'}", "expected ':' but found '<' at character 10");
    assertRejected("[".repeat(100), "nesting deeper than 32");
  }
}
