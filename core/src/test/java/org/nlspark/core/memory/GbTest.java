package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GbTest {
  @Test
  void decimalGigabytesTruncatedToWholeBytes() {
    assertThat(Gb.toBytes(1.5)).isEqualTo(1_500_000_000L);
    assertThat(Gb.toBytes(8.0)).isEqualTo(8_000_000_000L);
    assertThat(Gb.toBytes(0.1)).isEqualTo(100_000_000L);
    assertThat(Gb.toBytes(1.9e-9)).isEqualTo(1L); // 1.9 bytes truncates, as int() does
    assertThat(Gb.fromBytes(2_500_000_000L)).isEqualTo(2.5);
  }

  @Test
  void nonFiniteIsABug() {
    assertThatThrownBy(() -> Gb.toBytes(Double.NaN))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] GB must be finite to convert to bytes, but was: NaN");
  }

  @Test
  void formatsLikePythonsSixSignificantDigits() {
    // expected strings are what Python prints for format(x, ".6g")
    assertThat(Gb.format(0.5)).isEqualTo("0.5");
    assertThat(Gb.format(4.0)).isEqualTo("4");
    assertThat(Gb.format(2.928e-05)).isEqualTo("2.928e-05");
    assertThat(Gb.format(0.0001)).isEqualTo("0.0001");
    assertThat(Gb.format(1234567.0)).isEqualTo("1.23457e+06");
    assertThat(Gb.format(999999.5)).isEqualTo("1e+06");
    assertThat(Gb.format(123456.0)).isEqualTo("123456");
    assertThat(Gb.format(3.1415926535)).isEqualTo("3.14159");
    assertThat(Gb.format(0)).isEqualTo("0");
  }
}
