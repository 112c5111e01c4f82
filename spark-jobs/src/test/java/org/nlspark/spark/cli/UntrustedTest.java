package org.nlspark.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UntrustedTest {
  @Test
  void controlCharactersAndBidiOverridesAreShownNotObeyed() {
    assertThat(Untrusted.escape("plain/path-1.npy ünï")).isEqualTo("plain/path-1.npy ünï");
    assertThat(Untrusted.escape("a\u001b[31mb\u0007c\u0000d\u007fe\u0085f"))
        .isEqualTo("a\\x1b[31mb\\x07c\\x00d\\x7fe\\x85f");
    assertThat(Untrusted.escape("x\ny\rz\tw")).isEqualTo("x\\ny\\rz\\tw");
    assertThat(Untrusted.escape("evil\u202egnp.exe\u2066")).isEqualTo("evil\\u202egnp.exe\\u2066");
    assertThat(Untrusted.escape(null)).isNull();
    // Brute force: nothing below 0x20, DEL or C1 survives, for every char value.
    for (char c = 0; c < 0x100; c++) {
      String e = Untrusted.escape("<" + c + ">");
      assertThat(e.chars().noneMatch(x -> x < 0x20 || (x >= 0x7f && x <= 0x9f)))
          .as("char %d", (int) c).isTrue();
    }
  }
}
