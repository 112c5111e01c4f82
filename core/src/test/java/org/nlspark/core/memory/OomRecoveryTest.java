package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BinaryOperator;
import org.junit.jupiter.api.Test;
import org.nlspark.core.ResourceRefusedException;

class OomRecoveryTest {
  /** Pre-generated "draws": the function only reads them by index, as the contract requires. */
  private static final long[] DRAWS = {17, 3, 99, 42, 8, 15, 4, 23, 16, 61};

  private static final BinaryOperator<List<Long>> CONCAT = (a, b) -> {
    List<Long> out = new ArrayList<>(a);
    out.addAll(b);
    return out;
  };

  /** Squares the draws in [from, to); runs out of device memory above maxItems. */
  private static OomRecovery.RangeFunction<List<Long>> squares(int maxItems, List<String> calls) {
    return (from, to) -> {
      calls.add(from + ".." + to);
      if (to - from > maxItems) {
        throw new DeviceOutOfMemoryException("CUDA out of memory for " + (to - from) + " items");
      }
      List<Long> out = new ArrayList<>();
      for (int i = from; i < to; i++) {
        out.add(DRAWS[i] * DRAWS[i]);
      }
      return out;
    };
  }

  @Test
  void halvesLeftFirstAndReturnsTheUnsplitResult() {
    List<Long> unsplit = squares(Integer.MAX_VALUE, new ArrayList<>()).apply(0, DRAWS.length);

    List<String> calls = new ArrayList<>();
    AtomicInteger released = new AtomicInteger();
    List<Long> recovered = OomRecovery.run(DRAWS.length, 1, squares(3, calls), CONCAT,
        released::incrementAndGet);

    assertThat(recovered).isEqualTo(unsplit);
    assertThat(calls).containsExactly("0..10", "0..5", "0..2", "2..5", "5..10", "5..7", "7..10");
    assertThat(released).hasValue(3); // once per OOM: 0..10, 0..5, 5..10
  }

  @Test
  void noOomMeansOneCallAndNoRelease() {
    List<String> calls = new ArrayList<>();
    AtomicInteger released = new AtomicInteger();
    OomRecovery.run(DRAWS.length, 1, squares(100, calls), CONCAT, released::incrementAndGet);
    assertThat(calls).containsExactly("0..10");
    assertThat(released).hasValue(0);
  }

  @Test
  void otherFailuresAreNeverRetried() {
    List<String> calls = new ArrayList<>();
    assertThatThrownBy(() -> OomRecovery.run(8, 1, (from, to) -> {
      calls.add(from + ".." + to);
      throw new IllegalStateException("cuBLAS error 13");
    }, CONCAT, () -> {}))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("cuBLAS error 13");
    assertThat(calls).containsExactly("0..8");
  }

  @Test
  void atTheMinimumChunkItFailsNamingRemedies() {
    List<String> calls = new ArrayList<>();
    AtomicInteger released = new AtomicInteger();
    assertThatThrownBy(() -> OomRecovery.run(4, 1, squares(0, calls), CONCAT, released::incrementAndGet))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("ran out of memory even for a chunk of 1 item(s) [0, 1)")
        .hasMessageContaining("--memory-budget-gb")
        .hasMessageContaining("fewer voxels per tile")
        .hasMessageContaining("--backend cpu")
        .hasCauseInstanceOf(DeviceOutOfMemoryException.class);
    assertThat(calls).containsExactly("0..4", "0..2", "0..1");
    assertThat(released).hasValue(3);
  }

  @Test
  void aLargerMinimumChunkStopsEarlier() {
    List<String> calls = new ArrayList<>();
    assertThatThrownBy(() -> OomRecovery.run(8, 2, squares(1, calls), CONCAT, () -> {}))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("chunk of 2 item(s) [0, 2) (minimum chunk 2)");
    assertThat(calls).containsExactly("0..8", "0..4", "0..2");
  }
}
