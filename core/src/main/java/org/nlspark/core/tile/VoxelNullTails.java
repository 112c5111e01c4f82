package org.nlspark.core.tile;

import java.util.Locale;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.stats.ParetoTail;

/**
 * The merge state of {@code --tail-approximation} for uncorrected p (DESIGN §4): per voxel block
 * an upper-only {@link TailAccumulator} of each voxel's null keys, holding the voxel's largest
 * k = {@link ParetoTail#retainedTailSize}(P) keys. Tiles send their block's accumulator; merges are exact in any order
 * (TailAccumulator's invariants), so the tails — and the fits made from them — are the same for
 * any partitioning and retry.
 */
public final class VoxelNullTails {
  private final Grid grid;
  private final int retained;
  private final TailAccumulator[] blocks;

  private VoxelNullTails(Grid grid, int retained, TailAccumulator[] blocks) {
    this.grid = grid;
    this.retained = retained;
    this.blocks = blocks;
  }

  /** Bytes of the merge state of {@code voxels} voxels: room for 2·k keys each. */
  public static long bytes(int voxels, int retained) {
    return 16L * retained * voxels;
  }

  /**
   * Empty tails of every voxel block of {@code plan}, k = {@code retained}; refused (exit 3)
   * when they exceed the budget the tiles were planned against.
   */
  public static VoxelNullTails allocate(TilePlan plan, int retained) {
    long bytes = bytes(plan.voxels(), retained);
    if (bytes > (long) (plan.budgetGb() * 1e9)) {
      throw new ResourceRefusedException(String.format(Locale.ROOT,
          "Cannot keep the null tails of --tail-approximation: %d voxels x %d retained null"
              + " values need %.3g GB on the driver, more than the %.3g GB budget; lower"
              + " --permutations, mask fewer voxels, raise --memory-budget-gb or drop"
              + " --tail-approximation", plan.voxels(), retained, bytes / 1e9, plan.budgetGb()));
    }
    Grid grid = plan.grid();
    TailAccumulator[] blocks = new TailAccumulator[plan.blocks()];
    for (int k = 0; k < blocks.length; k++) {
      blocks[k] = TailAccumulator.upperOnly(grid.blockEnd(k, plan.voxels())
          - grid.blockStart(k), retained);
    }
    return new VoxelNullTails(grid, retained, blocks);
  }

  /** Adds one tile's tails of its voxel block. */
  public void merge(int block, TailAccumulator part) {
    if (part == null) {
      throw new IllegalStateException("[BUG] a tile of block " + block
          + " sent no null tails although --tail-approximation keeps them");
    }
    blocks[block].merge(part);
  }

  /** k, the keys kept per voxel. */
  public int retained() {
    return retained;
  }

  /** Replicates merged into block {@code block}. */
  public long n(int block) {
    return blocks[block].n();
  }

  /**
   * Voxel v's largest null keys ascending, or null when some draw's statistic was undefined
   * there (no fit is tried).
   */
  public double[] upperKeys(int v) {
    int block = v / grid.voxelBlock();
    int e = v - grid.blockStart(block);
    return blocks[block].undefinedCount(e) > 0 ? null : blocks[block].upperTail(e);
  }
}
