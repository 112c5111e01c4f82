package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.ResourceRefusedException;

class CpuWorkerPlannerTest {
  private static final long MB = 1024L * 1024;

  @Test
  void ceilingFollowsJoblib() {
    assertThat(CpuWorkerPlanner.ceiling(-1, 8)).isEqualTo(8);
    assertThat(CpuWorkerPlanner.ceiling(-2, 8)).isEqualTo(7);
    assertThat(CpuWorkerPlanner.ceiling(4, 8)).isEqualTo(4);
    assertThat(CpuWorkerPlanner.ceiling(16, 8)).isEqualTo(16);
    assertThat(CpuWorkerPlanner.ceiling(0, 8)).isEqualTo(1);
    assertThat(CpuWorkerPlanner.ceiling(-9, 8)).isEqualTo(1);
    assertThat(CpuWorkerPlanner.ceiling(-20, 8)).isEqualTo(1);
  }

  @Test
  void perWorkerIsThreeCopiesOfTheDataPlusResults() {
    // 1 MB: 1,048,576 x 3 + 5000 x 4 x 0.1 = 3,145,728 + 2,000
    assertThat(CpuWorkerPlanner.bytesPerWorker(MB, 5000)).isEqualTo(3_147_728.0);
    assertThat(CpuWorkerPlanner.estimateDataBytes(1000, 8)).isEqualTo(8100);
    assertThat(CpuWorkerPlanner.estimateDataBytes(0, 8)).isZero();
  }

  @Test
  void workersAreTheBudgetOverPerWorkerCappedAtTheCeiling() {
    MemoryBudget eight = MemoryBudget.explicit(8.0);
    // small data: 8e9 / 3,147,728 = 2541 fit, capped at 16
    assertThat(CpuWorkerPlanner.workers(MB, 5000, eight, 16)).isEqualTo(16);
    // large data: 8e9 / 314,574,800 = 25.4 -> 25 under a ceiling of 64
    assertThat(CpuWorkerPlanner.workers(100 * MB, 5000, eight, 64)).isEqualTo(25);
    // nothing to copy: one worker per the reference's guard, whatever the ceiling
    assertThat(CpuWorkerPlanner.workers(0, 0, eight, 64)).isEqualTo(1);
  }

  @Test
  void refusesWhenNotEvenOneWorkerFits() {
    MemoryBudget tiny = MemoryBudget.explicit(0.001);
    assertThatThrownBy(() -> CpuWorkerPlanner.workers(MB, 5000, tiny, 8))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("one worker needs about 0.00314773 GB")
        .hasMessageContaining("the 0.001 GB budget (set by --memory-budget-gb)")
        .hasMessageContaining("Raise --memory-budget-gb");
  }

  @Test
  void bootstrapWorkersAreNeverZero() {
    MemoryBudget tiny = MemoryBudget.explicit(0.001);
    assertThat(CpuWorkerPlanner.bootstrapWorkers(MB, 5000, tiny, 8)).isEqualTo(1);
    assertThat(CpuWorkerPlanner.bootstrapWorkers(100 * MB, 5000, MemoryBudget.explicit(8.0), 64))
        .isEqualTo(25);
  }

  @Test
  void ceilingBelowOneIsABug() {
    assertThatThrownBy(() -> CpuWorkerPlanner.workers(MB, 10, MemoryBudget.explicit(1.0), 0))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("[BUG] worker ceiling must be >= 1, but was: 0");
  }
}
