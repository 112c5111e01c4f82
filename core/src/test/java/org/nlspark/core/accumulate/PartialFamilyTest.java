package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.nlspark.core.tile.PartialBytes;
import org.nlspark.core.tile.TileSpec;

/** One registry of partial byte forms: every family its own id, unknown bytes refused. */
class PartialFamilyTest {
  @Test
  void everyFamilyHasItsOwnIdByte() {
    Set<Byte> ids = new HashSet<>();
    for (PartialFamily f : PartialFamily.values()) {
      assertThat(ids.add(f.id())).as(f + " shares its id").isTrue();
      assertThat(PartialFamily.of(f.id())).isEqualTo(f);
    }
    assertThat(PartialFamily.TAIL_ACCUMULATOR.id())
        .isNotEqualTo(PartialFamily.WHOLE_MAP_PARTIAL.id());
  }

  @Test
  void theAccumulatorsWriteTheirFamilysHeader() {
    assertHeader(new TailAccumulator(2, 3).toBytes(), PartialFamily.TAIL_ACCUMULATOR);
    assertHeader(TailAccumulator.upperOnly(2, 3).toBytes(),
        PartialFamily.UPPER_TAIL_ACCUMULATOR);
    assertHeader(new MomentAccumulator(2).toBytes(), PartialFamily.MOMENT_ACCUMULATOR);
    assertHeader(new ExceedanceCounter(2).toBytes(), PartialFamily.EXCEEDANCE_COUNTER);
    assertHeader(new NullMaxAccumulator(0, 3).toBytes(), PartialFamily.NULL_MAX_ACCUMULATOR);
  }

  private static void assertHeader(byte[] bytes, PartialFamily family) {
    assertThat(bytes[0]).isEqualTo(family.id());
    assertThat(bytes[1]).isEqualTo(family.version());
  }

  @ParameterizedTest
  @EnumSource(PartialFamily.class)
  void aTileHeaderOfOneFamilyIsRefusedByEveryOther(PartialFamily written) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      PartialBytes.writeHeader(out, written, new TileSpec(3, 1, 4, 2));
    }
    for (PartialFamily reader : PartialFamily.values()) {
      DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes.toByteArray()));
      if (reader == written) {
        assertThat(PartialBytes.readHeader(in, reader)).isEqualTo(new TileSpec(3, 1, 4, 2));
      } else {
        assertThatThrownBy(() -> PartialBytes.readHeader(in, reader))
            .isInstanceOf(IllegalArgumentException.class)
            .hasMessage(String.format("Cannot read %s: magic byte must be 0x%02x, but was: 0x%02x"
                + " (bytes of %s)", reader.what(), reader.id(), written.id(), written.what()));
      }
    }
  }

  @Test
  void bytesOfNoFamilyAndOtherVersionsAreRefusedWithAMessage() {
    assertThat(PartialFamily.of((byte) 'Z')).isNull();
    assertThatThrownBy(() -> PartialFamily.TILE_PARTIAL.check((byte) 'Z', (byte) 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read a partial result: magic byte must be 0x50, but was: 0x5a (bytes"
            + " of no partial this build knows)");
    assertThatThrownBy(() -> PartialFamily.WHOLE_MAP_PARTIAL.check((byte) 'W', (byte) 1))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("Cannot read a TFCE partial result: unknown format version 1 (this build"
            + " reads version 4); use the same nlspark version on driver and executors");
  }

  @Test
  void everyFormIsBigEndianLikeTheTilePartials() throws Exception {
    // The accumulators' element counts stand right after the two header bytes.
    assertThat(java.nio.ByteBuffer.wrap(new ExceedanceCounter(3).toBytes(), 2, 4).getInt())
        .isEqualTo(3);
    assertThat(java.nio.ByteBuffer.wrap(new MomentAccumulator(5).toBytes(), 2, 4).getInt())
        .isEqualTo(5);
    assertThat(java.nio.ByteBuffer.wrap(new TailAccumulator(7, 2).toBytes(), 2, 4).getInt())
        .isEqualTo(7);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      PartialBytes.writeHeader(out, PartialFamily.TILE_PARTIAL, new TileSpec(3, 1, 4, 2));
    }
    assertThat(java.nio.ByteBuffer.wrap(bytes.toByteArray(), 2, 4).getInt()).isEqualTo(3);
  }
}
