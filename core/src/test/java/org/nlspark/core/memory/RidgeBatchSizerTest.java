package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class RidgeBatchSizerTest {
  @Test
  void chargesResidentSolveAndRetainedOutputPerReplicate() {
    // resident = (100*50 + 100*1000) * 8 * 3.0 = 2,520,000; retained = 1000 * 8 = 8,000
    // 0.1 GB / 2,528,000 = 39.56 -> 39 per batch; ceil(1000/39) = 26 batches
    BatchPlan plan = RidgeBatchSizer.plan(1000, 100, 50, 1000, new long[] {1000}, 8,
        MemoryBudget.explicit(0.1));
    assertThat(plan).isEqualTo(new BatchPlan(39, 26));
  }

  @Test
  void multiDimensionalAndScalarOutputs() {
    // resident = (10*10 + 10*10) * 4 * 3 = 2,400; retained = 20*30*8 = 4,800 -> 7,200 per replicate
    // 0.0001 GB = 100,000 bytes -> 13 per batch; ceil(50/13) = 4
    assertThat(RidgeBatchSizer.plan(50, 10, 10, 10, new long[] {20, 30}, 4, MemoryBudget.explicit(1e-4)))
        .isEqualTo(new BatchPlan(13, 4));
    // empty shape is one value: 2,400 + 8 = 2,408 -> 41 per batch, 2 batches
    assertThat(RidgeBatchSizer.plan(50, 10, 10, 10, new long[0], 4, MemoryBudget.explicit(1e-4)))
        .isEqualTo(new BatchPlan(41, 2));
  }

  @Test
  void usesTheCappedMeasuredBudget() {
    MemoryBudget capped = MemoryBudget.resolve(null, org.nlspark.core.backend.BackendKind.GPU,
        new FakeMemory(null, 1L, 80_000_000_000L), true); // 64 GB measured -> capped at 8
    // (1*1 + 1*1) * 1 * 3 = 6 resident + 1e9 retained bytes per replicate: 8e9 / (1e9 + 6) = 7.99
    BatchPlan plan = RidgeBatchSizer.plan(100, 1, 1, 1, new long[] {125_000_000}, 1, capped);
    assertThat(plan).isEqualTo(new BatchPlan(7, 15));
  }

  @Test
  void refusesAnUncappedMeasuredBudget() {
    MemoryBudget uncapped = new MemoryBudget(64.0, BudgetSource.MEASURED_CUDA, false);
    assertThatThrownBy(() -> RidgeBatchSizer.plan(10, 1, 1, 1, new long[] {1}, 8, uncapped))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("[BUG] a ridge batch must be sized against a budget resolved for batching");
  }
}
