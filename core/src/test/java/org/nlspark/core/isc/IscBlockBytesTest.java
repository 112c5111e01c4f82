package org.nlspark.core.isc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.PartialFamily;

/** An isc block outcome travels with its family's header and round-trips bit for bit. */
class IscBlockBytesTest {
  @Test
  void roundTripsWithItsHeaderAndRefusesOtherBytes() {
    Isc.BlockOutcome out = new Isc.BlockOutcome(2, new double[] {0.5, -0.0},
        new double[] {0.1, Double.NaN}, null, new long[] {3, 0}, new double[] {0.9}, null);
    byte[] bytes = out.toBytes();
    assertThat(bytes[0]).isEqualTo(PartialFamily.ISC_BLOCK.id());
    assertThat(bytes[1]).isEqualTo(PartialFamily.ISC_BLOCK.version());
    Isc.BlockOutcome back = Isc.BlockOutcome.fromBytes(bytes);
    assertThat(back.block()).isEqualTo(2);
    assertThat(back.observed()).containsExactly(0.5, -0.0);
    assertThat(Double.doubleToRawLongBits(back.observed()[1]))
        .isEqualTo(Double.doubleToRawLongBits(-0.0));
    assertThat(back.lower()).containsExactly(0.1, Double.NaN);
    assertThat(back.upper()).isNull();
    assertThat(back.counts()).containsExactly(3, 0);
    assertThat(back.nullMax()).containsExactly(0.9);
    assertThat(back.samples()).isNull();
    assertThat(back.toBytes()).isEqualTo(bytes);

    byte[] other = new ExceedanceCounter(2).toBytes();
    assertThatThrownBy(() -> Isc.BlockOutcome.fromBytes(other))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read an isc block outcome: magic byte must be 0x49, but was: 0x45"
            + " (bytes of ExceedanceCounter)");
  }
}
