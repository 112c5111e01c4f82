package org.nlspark.core.tile;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How a run is cut: the fixed {@link Grid}, how many windows each tile holds, and how many tiles
 * may run at once. Only the last two come from the memory budget and the parallelism, and neither
 * changes any output bit.
 */
public final class TilePlan implements Serializable {
  private static final long serialVersionUID = 1L;

  private final Grid grid;
  private final int voxels;
  private final long replicates;
  private final int windowsPerTile;
  private final int concurrentTiles;
  private final long bytesPerTile;
  private final int tailSize;
  private final double budgetGb;
  private final String budgetSource;

  public TilePlan(Grid grid, int voxels, long replicates, int windowsPerTile, int concurrentTiles,
      long bytesPerTile, int tailSize, double budgetGb, String budgetSource) {
    this.grid = grid;
    this.voxels = voxels;
    this.replicates = replicates;
    this.windowsPerTile = Math.max(1, Math.min(windowsPerTile, grid.windows(replicates)));
    this.concurrentTiles = Math.max(1, concurrentTiles);
    this.bytesPerTile = bytesPerTile;
    this.tailSize = tailSize;
    this.budgetGb = budgetGb;
    this.budgetSource = budgetSource;
  }

  public Grid grid() {
    return grid;
  }

  public int voxels() {
    return voxels;
  }

  public long replicates() {
    return replicates;
  }

  public int blocks() {
    return grid.blocks(voxels);
  }

  public int windows() {
    return grid.windows(replicates);
  }

  public int windowsPerTile() {
    return windowsPerTile;
  }

  public int concurrentTiles() {
    return concurrentTiles;
  }

  public long bytesPerTile() {
    return bytesPerTile;
  }

  /** Retained values per voxel at each tail (0 when no percentile interval is needed). */
  public int tailSize() {
    return tailSize;
  }

  /** Windows-major tile order: all blocks of the first window group, then the next group. */
  public List<TileSpec> tiles() {
    List<TileSpec> tiles = new ArrayList<>();
    int index = 0;
    for (int first = 0; first < windows(); first += windowsPerTile) {
      int count = Math.min(windowsPerTile, windows() - first);
      for (int block = 0; block < blocks(); block++) {
        tiles.add(new TileSpec(index++, block, first, count));
      }
    }
    return Collections.unmodifiableList(tiles);
  }

  public int tileCount() {
    int groups = (windows() + windowsPerTile - 1) / windowsPerTile;
    return groups * blocks();
  }

  /** First replicate of a window. */
  public long windowStart(int window) {
    return (long) window * grid.window();
  }

  /** Live replicates of a window (the last may be partial). */
  public int windowRows(int window) {
    return (int) Math.min(grid.window(), replicates - windowStart(window));
  }

  /** A copy with another number of windows per tile (same grid, same outputs). */
  public TilePlan withWindowsPerTile(int perTile) {
    return new TilePlan(grid, voxels, replicates, perTile, concurrentTiles, bytesPerTile, tailSize,
        budgetGb, budgetSource);
  }

  /**
   * The budget the tiles were sized against, in GB: one process's (a Spark executor's, or the
   * local JVM's), shared by the {@link #concurrentTiles} that run in it at once.
   */
  public double budgetGb() {
    return budgetGb;
  }

  /** Where that budget came from ({@link org.nlspark.core.memory.BudgetSource#describe()}). */
  public String budgetSource() {
    return budgetSource;
  }

  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>(grid.toMap());
    m.put("voxel_blocks", blocks());
    m.put("replicate_windows", windows());
    m.put("windows_per_tile", windowsPerTile);
    m.put("tile_count", tileCount());
    m.put("concurrent_tiles", concurrentTiles);
    m.put("bytes_per_tile", bytesPerTile);
    m.put("tail_size", tailSize);
    m.put("budget_gb", budgetGb);
    m.put("budget_source", budgetSource);
    return m;
  }
}
