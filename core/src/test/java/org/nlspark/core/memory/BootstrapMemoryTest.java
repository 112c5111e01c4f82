package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

class BootstrapMemoryTest {
  @Test
  void replicateWindowScalesWithWorkersNotReplicates() {
    assertThat(BootstrapMemory.replicateWindow(5000, 4)).isEqualTo(256);
    assertThat(BootstrapMemory.replicateWindow(50, 4)).isEqualTo(50);
    assertThat(BootstrapMemory.replicateWindow(5000, 0)).isEqualTo(64);
    assertThat(BootstrapMemory.replicateWindow(5000, -3)).isEqualTo(64);
    assertThat(BootstrapMemory.replicateWindow(1, 1)).isEqualTo(1);
  }

  @Test
  void requiredBytesCountsEveryOutputSizedArray() {
    // B=1000, c=0.95: k=26, buf=64, window=64 -> 52 + 64 + 2*90 + 64 + 6 = 366 arrays
    assertThat(BootstrapMemory.requiredBytes(10, 1000, 0.95, false, 1)).isEqualTo(10L * 366 * 8);
    // plus all 1000 replicates when kept
    assertThat(BootstrapMemory.requiredBytes(10, 1000, 0.95, true, 1)).isEqualTo(10L * 1366 * 8);
    // 4 workers widen the window to 256
    assertThat(BootstrapMemory.requiredBytes(10, 1000, 0.95, false, 4)).isEqualTo(10L * 558 * 8);
    // B=3 (c=0.5): k=ceil(0.5)+1=2, buf=3, window=3 -> 4+3+10+3+6 = 26 arrays
    assertThat(BootstrapMemory.requiredBytes(7, 3, 0.5, false, 1)).isEqualTo(7L * 26 * 8);
    assertThat(BootstrapMemory.requiredBytes(Long.MAX_VALUE / 4, 1000, 0.95, true, 1))
        .isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void preflightRefusesAnExplicitTinyBudgetBeforeAnyResampling() {
    MemoryBudget tiny = MemoryBudget.explicit(1e-6); // 1,000 bytes; the run needs 29,280
    assertThatThrownBy(() -> BootstrapMemory.preflight(10, 1000, 0.95, false, 1, tiny))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("needs 2.928e-05 GB")
        .hasMessageContaining("10 elements over 1000 replicates")
        .hasMessageContaining("it keeps 26 values per element at each tail")
        .hasMessageContaining("exceeds the 1e-06 GB budget (set by --memory-budget-gb)")
        .hasMessageContaining("fewer --samples")
        .hasMessageContaining("mask to fewer voxels")
        .hasMessageContaining("raise --memory-budget-gb")
        .message().doesNotContain("--save-samples");
  }

  @Test
  void preflightWithSavedSamplesSaysSoAndOffersToDropThem() {
    MemoryBudget measured = new MemoryBudget(1e-5, BudgetSource.MEASURED_SYSTEM, false);
    assertThatThrownBy(() -> BootstrapMemory.preflight(10, 1000, 0.95, true, 1, measured))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("needs 0.00010928 GB")
        .hasMessageContaining("all 1000 replicates (--save-samples) plus 26 values per element at each tail")
        .hasMessageContaining("budget (the measured budget: available memory x 0.5")
        .hasMessageContaining("drop --save-samples");
  }

  @Test
  void preflightPassesAtExactlyTheBudgetAndReturnsTheRequiredGigabytes() {
    MemoryBudget exact = MemoryBudget.explicit(2.928e-05);
    assertThat(BootstrapMemory.preflight(10, 1000, 0.95, false, 1, exact)).isEqualTo(29_280 / 1e9);
  }
}
