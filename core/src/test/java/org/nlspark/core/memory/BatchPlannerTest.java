package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

class BatchPlannerTest {
  @Test
  void handComputedPlans() {
    // 0.05 GB = 5e7 bytes; 1e6 bytes per item -> 50 per batch, 100 items -> 2 batches
    assertThat(BatchPlanner.plan(100, 1e6, 0.05, 1.0)).isEqualTo(new BatchPlan(50, 2));
    // overhead 3 -> 16 per batch (16.67 floored), ceil(100/16) = 7 batches
    assertThat(BatchPlanner.plan(100, 1e6, 0.05, 3.0)).isEqualTo(new BatchPlan(16, 7));
    // capacity above n_items -> one batch of n_items
    assertThat(BatchPlanner.plan(10, 1e6, 1.0, 1.0)).isEqualTo(new BatchPlan(10, 1));
  }

  @Test
  void nonPositivePerItemSizeMeansOneBatch() {
    assertThat(BatchPlanner.plan(1234, 0, 1.0, 1.0)).isEqualTo(new BatchPlan(1234, 1));
    assertThat(BatchPlanner.plan(7, 1e6, 1.0, 0.0)).isEqualTo(new BatchPlan(7, 1));
  }

  @Test
  void matchesABruteForceSearchForTheLargestFittingBatch() {
    SplittableRandom rnd = new SplittableRandom(42);
    for (int trial = 0; trial < 2000; trial++) {
      long n = 1 + rnd.nextInt(5000);
      long perItem = 1 + rnd.nextInt(2_000_000);
      double budgetGb = (1 + rnd.nextInt(5000)) / 1000.0;
      long budgetBytes = Gb.toBytes(budgetGb);
      if (perItem > budgetBytes) {
        continue;
      }
      long best = 0;
      while (best < n && (best + 1) * perItem <= budgetBytes) {
        best++;
      }
      BatchPlan plan = BatchPlanner.plan(n, perItem, budgetGb, 1.0);
      assertThat(plan.batchSize()).as("n=%d per=%d budget=%s", n, perItem, budgetGb).isEqualTo(best);
      assertThat((long) plan.nBatches() * plan.batchSize()).isGreaterThanOrEqualTo(n);
      assertThat((long) (plan.nBatches() - 1) * plan.batchSize()).isLessThan(n);
    }
  }

  @Test
  void rejectsNoItemsAndNoBudget() {
    assertThatThrownBy(() -> BatchPlanner.plan(0, 1e6, 1.0, 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Number of items to batch must be > 0, but was: 0");
    assertThatThrownBy(() -> BatchPlanner.plan(10, 1e6, 0.0, 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Memory budget must be a finite number of GB > 0, but was: 0.0 (set --memory-budget-gb)");
    assertThatThrownBy(() -> BatchPlanner.plan(10, 1e6, -2.0, 1.0))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("but was: -2.0");
  }

  @Test
  void oneItemOverBudgetIsRefusedWithBothSizes() {
    assertThatThrownBy(() -> BatchPlanner.plan(5, 1e9, 1.5, 2.0))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("one item needs 2 GB")
        .hasMessageContaining("the 1.5 GB budget")
        .hasMessageContaining("--memory-budget-gb");
  }
}
