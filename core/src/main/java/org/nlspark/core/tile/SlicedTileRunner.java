package org.nlspark.core.tile;

import java.util.Iterator;

/**
 * A runner whose tiles need every voxel of a replicate's map at once (TFCE and cluster
 * inference, DESIGN §9), for inputs that executors hold as voxel blocks (DESIGN §8). Its tiles
 * run in two stages: {@link #slice} runs where a voxel block is held and returns that block's
 * share of one tile (its columns of the tile's statistic maps); one shuffle brings all slices of
 * a tile to one task, where {@link #assemble} makes the tile's partial, the same bytes {@link
 * #run} makes from the whole inputs. Both are pure functions, so a retry gives the same bytes.
 */
public interface SlicedTileRunner extends TileRunner {
  /**
   * @param block one voxel block of the inputs as an executor holds it (the analysis' data with
   *     that block's columns)
   * @param blockIndex its index on the inputs' grid of voxel blocks
   * @param device the task's GPU, as for {@link #run} (ignored by CPU kernels)
   */
  byte[] slice(Object block, int blockIndex, TileSpec tile, int device);

  /**
   * The tile's partial bytes from the slices of every voxel block, in any order.
   *
   * @param blocks the voxel blocks of the inputs (each sends one slice)
   */
  byte[] assemble(TileSpec tile, int blocks, Iterator<byte[]> slices);
}
