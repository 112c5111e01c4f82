package org.nlspark.core.accumulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.stats.NumpyPercentile;

class TailSizeTest {
  @Test
  void referenceFollowsTheReferenceIncludingItsFloatingPointOrder() {
    assertThat(TailSize.reference(1000, 0.95)).isEqualTo(26); // 999*0.025.. = 24.975 -> 25+1
    // (1-0.95)/2 = 0.025000000000000022, so 1000 x it is just above 25 -> 26+1
    assertThat(TailSize.reference(1001, 0.95)).isEqualTo(27);
    // (1-0.9)/2 = 0.04999999999999999, so 100 x it is just below 5 -> 5+1
    assertThat(TailSize.reference(101, 0.9)).isEqualTo(6);
    assertThat(TailSize.reference(10, 0.5)).isEqualTo(4); // ceil(2.25)+1
    assertThat(TailSize.reference(2, 0.95)).isEqualTo(2); // ceil(0.025)+1 = 2
    assertThat(TailSize.reference(1, 0.95)).isEqualTo(1); // never more than B
  }

  @Test
  void referenceRejectsBadSamplesAndConfidence() {
    assertThatThrownBy(() -> TailSize.reference(0, 0.95))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--samples must be >= 1, but was: 0");
    assertThatThrownBy(() -> TailSize.reference(100, 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--confidence must be in (0, 1), but was: 1.0");
  }

  @Test
  void retainedIsTheReferenceRaisedToWhatTheIntervalReads() {
    for (long b = 1; b <= 400; b++) {
      for (double c : new double[] {0.4, 0.5, 0.8, 0.9, 0.95, 0.99}) {
        int k = TailSize.retained(b, c);
        assertThat(k).isBetween(TailSize.reference(b, c), (int) b);
        assertThat(k).isGreaterThanOrEqualTo((int) Math.min(b, Math.max(
            NumpyPercentile.minimumTailSize(b, BootstrapSummary.lowerPercentile(c)),
            NumpyPercentile.minimumTailSize(b, BootstrapSummary.upperPercentile(c)))));
      }
    }
    assertThat(TailSize.retained(91, 0.4)).isEqualTo(TailSize.reference(91, 0.4) + 1);
  }
}
