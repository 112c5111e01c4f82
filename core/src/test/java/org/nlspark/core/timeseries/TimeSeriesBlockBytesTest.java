package org.nlspark.core.timeseries;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.PartialFamily;

/** A time-series block outcome travels with its family's header and round-trips bit for bit. */
class TimeSeriesBlockBytesTest {
  @Test
  void roundTripsWithItsHeaderAndRefusesOtherBytes() {
    TimeSeriesCorrelation.BlockOut out = new TimeSeriesCorrelation.BlockOut(64,
        new double[] {0.25, -0.75}, new ExceedanceCounter(2), new NullMaxAccumulator(0, 3));
    byte[] bytes = out.toBytes();
    assertThat(bytes[0]).isEqualTo(PartialFamily.TIME_SERIES_BLOCK.id());
    assertThat(bytes[1]).isEqualTo(PartialFamily.TIME_SERIES_BLOCK.version());
    TimeSeriesCorrelation.BlockOut back = TimeSeriesCorrelation.BlockOut.fromBytes(bytes);
    assertThat(back.from()).isEqualTo(64);
    assertThat(back.observed()).containsExactly(0.25, -0.75);
    assertThat(back.counter().toBytes()).isEqualTo(out.counter().toBytes());
    assertThat(back.nullMax().toBytes()).isEqualTo(out.nullMax().toBytes());
    assertThat(back.toBytes()).isEqualTo(bytes);

    byte[] isc = new org.nlspark.core.isc.Isc.BlockOutcome(0, new double[0], new double[0],
        new double[0], new long[0], null, null).toBytes();
    assertThatThrownBy(() -> TimeSeriesCorrelation.BlockOut.fromBytes(isc))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read a time-series block outcome: magic byte must be 0x43, but was:"
            + " 0x49 (bytes of an isc block outcome)");
  }
}
