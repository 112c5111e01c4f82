package org.nlspark.core.resample;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The draws' generator must be the JDK's SplittableRandom stream bit for bit. */
class SplitMixTest {
  @Test
  void nextLongAndBoundedIntMatchSplittableRandom() {
    int[] bounds = {1, 2, 3, 7, 8, 30, 31, 50, 64, 100, 1000, 1 << 20, (1 << 30) + 1,
        Integer.MAX_VALUE};
    for (long seed : new long[] {0, 1, -1, 42, Long.MIN_VALUE, 0x632BE59BD9B4E019L}) {
      SplittableRandom jdk = new SplittableRandom(seed);
      SplitMix ours = new SplitMix().reset(seed);
      for (int i = 0; i < 2000; i++) {
        int bound = bounds[i % bounds.length];
        switch (i % 3) {
          case 0:
            assertThat(ours.nextLong()).isEqualTo(jdk.nextLong());
            break;
          case 1:
            assertThat(ours.nextInt(bound)).isEqualTo(jdk.nextInt(bound));
            break;
          default:
            assertThat(ours.nextInt()).isEqualTo(jdk.nextInt());
            break;
        }
      }
    }
  }

  @Test
  void drawsAreThoseOfTheReplicateGenerator() {
    for (long r = 0; r < 200; r++) {
      SplittableRandom jdk = Seeds.forReplicate(7, r);
      int[] counts = new int[37];
      Draws.bootstrapCounts(7, r, 37, counts);
      int[] expected = new int[37];
      for (int i = 0; i < 37; i++) {
        expected[jdk.nextInt(37)]++;
      }
      assertThat(counts).isEqualTo(expected);

      jdk = Seeds.forReplicate(7, r);
      double[] signs = new double[130];
      Draws.signFlips(7, r, 130, signs, 0);
      long bits = 0;
      for (int i = 0; i < 130; i++) {
        if ((i & 63) == 0) {
          bits = jdk.nextLong();
        }
        assertThat(signs[i]).isEqualTo(((bits >>> (i & 63)) & 1L) == 0 ? 1.0 : -1.0);
      }
    }
  }
}
