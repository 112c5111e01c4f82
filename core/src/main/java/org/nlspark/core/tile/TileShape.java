package org.nlspark.core.tile;

/**
 * What an analysis' tiles are made of, for the one planner ({@link TilePlanner}): the fixed grid
 * over its cells (voxels, or output elements) and replicates, and the windows one tile may hold.
 * The planner chooses windows per tile within {@code [minWindowsPerTile, maxWindowsPerTile]} and
 * the tiles at once; neither choice changes an output bit (DESIGN §5).
 *
 * @param grid the fixed grid (voxel block x replicate window)
 * @param cells the cells the grid covers (voxels, or output elements)
 * @param replicates replicates (or permutations, or surrogates) drawn
 * @param tailSize retained values per cell at each tail (0 when no percentile interval)
 * @param minWindowsPerTile the fewest windows a tile may hold (all of them when a block's
 *     replicates share per-block work, as ISC's and the time series' do)
 * @param maxWindowsPerTile the most windows a tile may hold
 * @param maxCellsPerTile the most (replicate x cell) values one tile may hold in one array, or
 *     {@link Long#MAX_VALUE}
 */
public record TileShape(Grid grid, int cells, long replicates, int tailSize, int minWindowsPerTile,
    int maxWindowsPerTile, long maxCellsPerTile) {

  public TileShape {
    int windows = grid.windows(replicates);
    minWindowsPerTile = Math.max(1, Math.min(minWindowsPerTile, windows));
    maxWindowsPerTile = Math.max(minWindowsPerTile, Math.min(maxWindowsPerTile, windows));
  }

  /** Tiles of any run of windows (the planner balances and fits them to the budget). */
  public static TileShape windows(Grid grid, int cells, long replicates, int tailSize) {
    return new TileShape(grid, cells, replicates, tailSize, 1, Integer.MAX_VALUE, Long.MAX_VALUE);
  }

  /** Tiles of exactly {@code windowsPerTile} windows (all of them for a per-block analysis). */
  public static TileShape fixed(Grid grid, int cells, long replicates, int tailSize,
      int windowsPerTile) {
    return new TileShape(grid, cells, replicates, tailSize, windowsPerTile, windowsPerTile,
        Long.MAX_VALUE);
  }

  /** One tile per voxel block, holding every replicate window of it. */
  public static TileShape perBlock(Grid grid, int cells, long replicates, int tailSize) {
    return fixed(grid, cells, replicates, tailSize, Integer.MAX_VALUE);
  }

  /** The same shape with at most {@code max} (replicate x cell) values in one tile's array. */
  public TileShape withMaxCellsPerTile(long max) {
    return new TileShape(grid, cells, replicates, tailSize, minWindowsPerTile, maxWindowsPerTile,
        max);
  }

  /** Values one tile of {@code windowsPerTile} windows holds in its array of all cells. */
  long cellsPerTile(int windowsPerTile) {
    return (long) windowsPerTile * grid.window() * Math.min(grid.voxelBlock(), Math.max(1, cells));
  }
}
