package org.nlspark.core.io;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/** Builds raw {@code .npy} bytes by hand for tests, independently of {@link NpyWriter}. */
final class NpyBytes {
  private NpyBytes() {}

  /** Magic, version major.0, little-endian length, the dict text as given, then data. */
  static byte[] file(int major, String dict, byte[] data) {
    byte[] header = dict.getBytes(major == 3 ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(new byte[] {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', (byte) major, 0});
    int lengthBytes = major == 1 ? 2 : 4;
    ByteBuffer len = ByteBuffer.allocate(lengthBytes).order(ByteOrder.LITTLE_ENDIAN);
    if (major == 1) {
      len.putShort((short) header.length);
    } else {
      len.putInt(header.length);
    }
    out.writeBytes(len.array());
    out.writeBytes(header);
    out.writeBytes(data);
    return out.toByteArray();
  }

  static byte[] file(String dict, byte[] data) {
    return file(1, dict, data);
  }

  static byte[] f8(double... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
    for (double v : values) {
      b.putDouble(v);
    }
    return b.array();
  }

  static byte[] f4(float... values) {
    ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
    for (float v : values) {
      b.putFloat(v);
    }
    return b.array();
  }

  static byte[] base64(String text) {
    return Base64.getDecoder().decode(text);
  }

  // Produced by numpy 2.4 with io.BytesIO + np.save(f, a), then base64.b64encode(f.getvalue()).

  /** np.arange(6.).reshape(3, 2) */
  static final String NUMPY_F8_3X2 =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsIDIpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAPA/AAAAAAAAAEAAAAAAAAAIQAAAAAAAABBAAAAAAAAAFEA=";

  /** np.array([1.5, -2.25, 0, 3e38], dtype='<f4') */
  static final String NUMPY_F4_4 =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDQsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAMA/AAAQwAAAAADmsWF/";

  /** np.zeros((0, 5)) */
  static final String NUMPY_F8_0X5 =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDAsIDUpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAo=";

  /** np.arange(24.).reshape(2, 3, 4) */
  static final String NUMPY_F8_2X3X4 =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDMsIDQpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAPA/AAAAAAAAAEAAAAAAAAAIQAAAAAAAABBAAAAAAAAAFEAAAAAAAAAYQAAAAAAAABxAAAAAAAAAIEAAAAAAAAAiQAAAAAAAACRAAAAAAAAAJkAAAAAAAAAoQAAAAAAAACpAAAAAAAAALEAAAAAAAAAuQAAAAAAAADBAAAAAAAAAMUAAAAAAAAAyQAAAAAAAADNAAAAAAAAANEAAAAAAAAA1QAAAAAAAADZAAAAAAAAAN0A=";

  /** np.float64(7.0), a 0-D array */
  static final String NUMPY_F8_SCALAR =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKCksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAcQA==";

  /** np.zeros((12345678901, 0)): a long first axis eats into the growth padding */
  static final String NUMPY_F8_LONG_AXIS_EMPTY =
      "k05VTVBZAQB2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDEyMzQ1Njc4OTAxLCAwKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAo=";

  /**
   * np.zeros((0, 10, 10, 10, 10, 10, 10, 10, 1000, 10000)): the unpadded header is exactly 128
   * bytes, so numpy adds a full 64 bytes of padding (192 in all).
   */
  static final String NUMPY_F8_ALIGNED_RANK10 =
      "k05VTVBZAQC2AHsnZGVzY3InOiAnPGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDAsIDEwLCAxMCwgMTAsIDEwLCAxMCwgMTAsIDEwLCAxMDAwLCAxMDAwMCksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAK";
}
