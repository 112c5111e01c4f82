package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The bulk copies of {@link Bytes} write and read exactly the bytes of one {@code putDouble} /
 * {@code putLong} / {@code put} per value, from any buffer position (they follow a header), with
 * every bit pattern kept: signed zeros, infinities, NaNs with payloads and either sign.
 */
class BulkBytesTest {
  static double[] awkwardDoubles(int n, long seed) {
    SplittableRandom rng = new SplittableRandom(seed);
    double[] special = {0.0, -0.0, Double.POSITIVE_INFINITY, Double.NEGATIVE_INFINITY, Double.NaN,
        Double.longBitsToDouble(0xfff8000000000000L), Double.longBitsToDouble(0x7ff0000000000001L),
        Double.MIN_VALUE, -Double.MAX_VALUE};
    double[] v = new double[n];
    for (int i = 0; i < n; i++) {
      v[i] = i < special.length ? special[i] : Double.longBitsToDouble(rng.nextLong());
    }
    return v;
  }

  @Test
  void doublesLongsAndFlagsAreTheBytesOfOnePutPerValue() {
    for (int n : new int[] {0, 1, 5, 6, 7, 1000}) {
      double[] d = awkwardDoubles(n, n);
      long[] l = new SplittableRandom(n + 1).longs(n).toArray();
      boolean[] f = new boolean[n];
      for (int i = 0; i < n; i++) {
        f[i] = (l[i] & 1) == 0;
      }
      int size = 3 + 17 * n;
      ByteBuffer naive = ByteBuffer.allocate(size).put(new byte[] {7, 8, 9});
      for (double x : d) {
        naive.putDouble(x);
      }
      for (long x : l) {
        naive.putLong(x);
      }
      for (boolean x : f) {
        naive.put((byte) (x ? 1 : 0));
      }
      ByteBuffer bulk = ByteBuffer.allocate(size).put(new byte[] {7, 8, 9});
      Bytes.putDoubles(bulk, d, n);
      Bytes.putLongs(bulk, l);
      Bytes.putFlags(bulk, f);
      assertThat(bulk.position()).isEqualTo(size);
      assertThat(bulk.array()).as("n=%d", n).isEqualTo(naive.array());

      ByteBuffer in = ByteBuffer.wrap(bulk.array());
      in.position(3);
      double[] d2 = new double[n + 2]; // a longer array: only the first n are read
      long[] l2 = new long[n];
      Bytes.getDoubles(in, d2, n);
      Bytes.getLongs(in, l2);
      assertThat(in.position()).isEqualTo(3 + 16 * n);
      for (int i = 0; i < n; i++) {
        assertThat(Double.doubleToRawLongBits(d2[i])).isEqualTo(Double.doubleToRawLongBits(d[i]));
      }
      assertThat(l2).isEqualTo(l);
    }
  }

  @Test
  void aPrefixOfALongerArrayIsWrittenAlone() {
    double[] d = awkwardDoubles(20, 3);
    ByteBuffer bulk = ByteBuffer.allocate(8 * 5);
    Bytes.putDoubles(bulk, d, 5);
    ByteBuffer naive = ByteBuffer.allocate(8 * 5);
    for (int i = 0; i < 5; i++) {
      naive.putDouble(d[i]);
    }
    assertThat(bulk.array()).isEqualTo(naive.array());
  }
}
