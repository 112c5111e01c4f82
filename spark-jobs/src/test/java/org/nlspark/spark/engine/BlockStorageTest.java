package org.nlspark.spark.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.spark.budget.ExecutorBudget;

/**
 * The blocks stay in memory only where they and the tiles at once fit the executor's budget:
 * Spark's cache does not know of the tiles beside it on the heap.
 */
class BlockStorageTest {
  @Test
  void theBlocksGoToDiskWhereTheyAndTheTilesDoNotBothFit() {
    // 1 GB explicit budget on each of 2 executors; 4 partitions, two an executor
    ExecutorBudget budget = ExecutorBudget.compute(4L << 30, 0.6, 2, 1, 2, false, 1.0);
    TilePlan twoTiles = new TilePlan(new Grid(4, 8), 16, 64, 1, 2, 200_000_000L, 0, 1.0, "t");
    BlockStorage fits = BlockStorage.choose(1_200_000_000L, 4, budget, twoTiles);
    assertThat(fits.level()).isEqualTo("memory_and_disk");
    assertThat(fits.reason()).isEqualTo("both fit: blocks of 0.600 GB an executor and 2 tiles"
        + " at once of 0.200 GB each, against the 1.00 GB executor budget");
    BlockStorage disk = BlockStorage.choose(1_300_000_000L, 4, budget, twoTiles);
    assertThat(disk.level()).isEqualTo("disk_only");
    assertThat(disk.storageLevel().useMemory()).isFalse();
    assertThat(disk.reason()).startsWith("not both in memory: blocks of 0.650 GB");
    // uneven: 3 partitions on 2 executors, so one holds two of them
    assertThat(BlockStorage.choose(900_000_000L, 3, budget, twoTiles).reason())
        .contains("blocks of 0.600 GB an executor");
  }
}
