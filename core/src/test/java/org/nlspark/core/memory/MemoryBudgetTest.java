package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.BackendKind;

class MemoryBudgetTest {
  private static final long GB = 1_000_000_000L;
  private static final FakeMemory ROOMY = new FakeMemory(64 * GB, 100 * GB, 40 * GB);

  @Test
  void explicitWinsUncappedOnEveryDevice() {
    for (BackendKind kind : BackendKind.values()) {
      MemoryBudget b = MemoryBudget.resolve(100.0, kind, ROOMY, true);
      assertThat(b).isEqualTo(new MemoryBudget(100.0, BudgetSource.EXPLICIT, false));
      assertThat(b.bytes()).isEqualTo(100 * GB);
    }
    assertThat(MemoryBudget.explicit(0.25).bytes()).isEqualTo(250_000_000L);
  }

  @Test
  void explicitMustBePositiveAndFinite() {
    for (double bad : new double[] {0.0, -1.0, Double.NaN, Double.POSITIVE_INFINITY}) {
      assertThatThrownBy(() -> MemoryBudget.resolve(bad, BackendKind.CPU, ROOMY, false))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("--memory-budget-gb must be a finite number of GB > 0, but was: " + bad);
    }
  }

  @Test
  void gpuIsFreeDeviceMemoryTimesPointEightNotBoundByTheHeap() {
    MemoryBudget b = MemoryBudget.resolve(null, BackendKind.GPU,
        new FakeMemory(64 * GB, 1 * GB, 10 * GB), false);
    assertThat(b.gb()).isCloseTo(8.0, within(1e-12));
    assertThat(b.source()).isEqualTo(BudgetSource.MEASURED_CUDA);
    assertThat(b.cappedForBatching()).isFalse();
  }

  @Test
  void gpuWithUnknownFreeMemoryMeasuresTheSystem() {
    MemoryBudget b = MemoryBudget.resolve(null, BackendKind.GPU,
        new FakeMemory(6 * GB, 100 * GB, null), false);
    assertThat(b.gb()).isCloseTo(3.0, within(1e-12));
    assertThat(b.source()).isEqualTo(BudgetSource.MEASURED_SYSTEM);
  }

  @Test
  void cpuIsHalfTheAvailableMemoryBoundedByTheHeap() {
    MemoryBudget byRam = MemoryBudget.resolve(null, BackendKind.CPU,
        new FakeMemory(6 * GB, 10 * GB, 40 * GB), false);
    assertThat(byRam.gb()).isCloseTo(3.0, within(1e-12));
    assertThat(byRam.source()).isEqualTo(BudgetSource.MEASURED_SYSTEM);

    MemoryBudget byHeap = MemoryBudget.resolve(null, BackendKind.CPU,
        new FakeMemory(6 * GB, 1_500_000_000L, 40 * GB), false);
    assertThat(byHeap.gb()).isCloseTo(1.5, within(1e-12));
    assertThat(byHeap.source()).isEqualTo(BudgetSource.MEASURED_SYSTEM);
  }

  @Test
  void fallsBackToFourGigabytesWhenMemoryCannotBeMeasured() {
    MemoryBudget b = MemoryBudget.resolve(null, BackendKind.CPU, new FakeMemory(null, 100 * GB, null), false);
    assertThat(b).isEqualTo(new MemoryBudget(4.0, BudgetSource.FALLBACK, false));
    // the heap still bounds on-heap buffers
    MemoryBudget small = MemoryBudget.resolve(null, BackendKind.CPU, new FakeMemory(null, 2 * GB, null), false);
    assertThat(small.gb()).isCloseTo(2.0, within(1e-12));
    assertThat(small.source()).isEqualTo(BudgetSource.FALLBACK);
  }

  @Test
  void batchingCapsOnlyMeasuredBudgetsAtEightGigabytes() {
    MemoryBudget gpu = MemoryBudget.resolve(null, BackendKind.GPU, ROOMY, true); // 32 GB measured
    assertThat(gpu).isEqualTo(new MemoryBudget(8.0, BudgetSource.MEASURED_CUDA, true));
    MemoryBudget uncapped = MemoryBudget.resolve(null, BackendKind.GPU, ROOMY, false);
    assertThat(uncapped.gb()).isCloseTo(32.0, within(1e-12));
    MemoryBudget cpu = MemoryBudget.resolve(null, BackendKind.CPU, ROOMY, true); // 32 GB measured
    assertThat(cpu).isEqualTo(new MemoryBudget(8.0, BudgetSource.MEASURED_SYSTEM, true));
    // below the ceiling the cap applies but changes nothing
    MemoryBudget small = MemoryBudget.resolve(null, BackendKind.CPU, new FakeMemory(6 * GB, 100 * GB, null), true);
    assertThat(small.gb()).isCloseTo(3.0, within(1e-12));
    assertThat(small.cappedForBatching()).isTrue();
  }

  @Test
  void recordRejectsBrokenInvariants() {
    assertThatThrownBy(() -> new MemoryBudget(9.0, BudgetSource.MEASURED_CUDA, true))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("[BUG] only a measured budget of at most 8.0 GB");
    assertThatThrownBy(() -> new MemoryBudget(-1, BudgetSource.FALLBACK, false))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] a memory budget must be finite and >= 0 GB, but was: -1.0");
  }
}
