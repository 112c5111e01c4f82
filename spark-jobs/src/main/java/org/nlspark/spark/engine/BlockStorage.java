package org.nlspark.spark.engine;

import java.util.Locale;
import org.apache.spark.storage.StorageLevel;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.spark.budget.ExecutorBudget;

/**
 * Where the persisted voxel blocks wait between the stages that read them (summary.json's
 * engine.ingest.block_storage). Spark's block cache fills the executor's unified memory without
 * knowing of the tiles, which live beside it on the same heap; so the blocks stay in memory only
 * where they and the tiles that run at once both fit the executor's budget, else on local disk,
 * read back a block at a time. Output bytes never depend on it.
 *
 * @param storageLevel what the block RDD is persisted with
 * @param level the level in summary.json's words
 * @param reason why, with the figures
 */
record BlockStorage(StorageLevel storageLevel, String level, String reason) {

  /**
   * @param heldBytes what all blocks hold
   * @param partitions block partitions (spread over the executors)
   */
  static BlockStorage choose(long heldBytes, int partitions, ExecutorBudget budget,
      TilePlan plan) {
    int parts = Math.max(1, partitions);
    long perExecutorParts = (parts + budget.executors() - 1) / budget.executors();
    long held = (heldBytes * perExecutorParts + parts - 1) / parts;
    long tiles = plan.concurrentTiles() * plan.bytesPerTile();
    long room = budget.perExecutor().bytes();
    String figures = String.format(Locale.ROOT, "blocks of %.3g GB an executor and %d tile%s at"
        + " once of %.3g GB each, against the %.3g GB executor budget", held / 1e9,
        plan.concurrentTiles(), plan.concurrentTiles() == 1 ? "" : "s",
        plan.bytesPerTile() / 1e9, room / 1e9);
    if (held + tiles <= room) {
      return new BlockStorage(StorageLevel.MEMORY_AND_DISK(), "memory_and_disk",
          "both fit: " + figures);
    }
    return new BlockStorage(StorageLevel.DISK_ONLY(), "disk_only", "not both in memory: "
        + figures + "; the blocks wait on local disk, so the tiles keep their budget");
  }
}
