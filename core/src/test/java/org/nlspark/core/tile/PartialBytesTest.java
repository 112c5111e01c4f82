package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * {@link PartialBytes#writeDoubles} (one bulk copy) writes the bytes of {@code
 * DataOutputStream.writeDouble} per value, the layout of every partial written before it: every
 * NaN as the one canonical pattern, everything else bit for bit; {@link PartialBytes#readDoubles}
 * reads them back.
 */
class PartialBytesTest {
  @Test
  void doublesAreTheBytesOfWriteDoublePerValue() throws IOException {
    SplittableRandom rng = new SplittableRandom(11);
    for (int n : new int[] {0, 1, 6, 7, 4096}) {
      double[] v = new double[n];
      for (int i = 0; i < n; i++) {
        v[i] = Double.longBitsToDouble(rng.nextLong());
      }
      if (n > 4) {
        v[0] = Double.longBitsToDouble(0xfff8000000000000L); // x86's NaN of 0/0
        v[1] = Double.longBitsToDouble(0x7ff0000000000001L); // a NaN with a payload
        v[2] = -0.0;
        v[3] = Double.NEGATIVE_INFINITY;
      }
      ByteArrayOutputStream naive = new ByteArrayOutputStream();
      DataOutputStream out = new DataOutputStream(naive);
      out.writeBoolean(true);
      out.writeInt(n);
      for (double x : v) {
        out.writeDouble(x);
      }
      ByteArrayOutputStream bulk = new ByteArrayOutputStream();
      PartialBytes.writeDoubles(new DataOutputStream(bulk), v);
      assertThat(bulk.toByteArray()).as("n=%d", n).isEqualTo(naive.toByteArray());

      double[] back = PartialBytes.readDoubles(
          new DataInputStream(new ByteArrayInputStream(bulk.toByteArray())));
      assertThat(back).hasSize(n);
      for (int i = 0; i < n; i++) {
        assertThat(Double.doubleToLongBits(back[i])).isEqualTo(Double.doubleToLongBits(v[i]));
      }
    }
  }

  @Test
  void absentArraysStayAbsent() throws IOException {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    PartialBytes.writeDoubles(new DataOutputStream(bytes), null);
    assertThat(bytes.toByteArray()).containsExactly(0);
    assertThat(PartialBytes.readDoubles(
        new DataInputStream(new ByteArrayInputStream(bytes.toByteArray())))).isNull();
  }
}
