package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TileSpec;

/**
 * {@link MapSlice}: slices of whole maps cut by voxel block, assembled in any order, give back
 * the maps bit for bit (the naive reference is the maps themselves), with each statistic's own
 * rows; a slice of another tile, a block twice, or a missing block is a broken invariant.
 */
class MapSliceTest {
  private static final TileSpec TILE = new TileSpec(3, 0, 2, 2);

  /** Statistic s's observed map (row -1) and replicate maps, row-major, voxels a row. */
  private static double[][] maps(int[] rows, int voxels, long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    double[][] m = new double[rows.length][];
    for (int s = 0; s < rows.length; s++) {
      m[s] = new double[(rows[s] + 1) * voxels];
      for (int i = 0; i < m[s].length; i++) {
        m[s][i] = i % 17 == 0 ? Double.NaN : r.nextGaussian();
      }
    }
    return m;
  }

  private static byte[] slice(double[][] maps, int[] rows, int voxels, Grid grid, int block) {
    int from = grid.blockStart(block);
    int b = grid.blockEnd(block, voxels) - from;
    MapSlice.Writer w = new MapSlice.Writer(TILE, block, from, b, rows);
    for (int s = 0; s < rows.length; s++) {
      double[] buf = new double[Math.max(1, rows[s]) * b];
      System.arraycopy(maps[s], from, buf, 0, b);
      w.observed(s, buf);
      for (int r = 0; r < rows[s]; r++) { // one row at a time, as windows of one row
        System.arraycopy(maps[s], (r + 1) * voxels + from, buf, 0, b);
        w.rows(s, r, buf, 1);
      }
      w.undefinedVoxels(s, block + s);
    }
    w.flops(100 + block);
    return w.toBytes();
  }

  @Test
  void slicesInAnyOrderAssembleTheWholeMaps() {
    for (int voxels : new int[] {1, 7, 64, 200}) {
      Grid grid = new Grid(16, 4);
      int[] rows = {5, 0, 3}; // a statistic with fewer replicates, one with none
      double[][] maps = maps(rows, voxels, voxels);
      int blocks = grid.blocks(voxels);
      List<byte[]> slices = new ArrayList<>();
      for (int b = 0; b < blocks; b++) {
        slices.add(slice(maps, rows, voxels, grid, b));
      }
      Collections.shuffle(slices, new java.util.Random(voxels));
      MapSlice.Assembly a = new MapSlice.Assembly(TILE, voxels, blocks, rows);
      for (byte[] s : slices) {
        a.add(s);
      }
      a.checkComplete();
      long flops = 0;
      for (int b = 0; b < blocks; b++) {
        flops += 100 + b;
      }
      assertThat(a.flops()).isEqualTo(flops);
      for (int s = 0; s < rows.length; s++) {
        double[] observed = java.util.Arrays.copyOfRange(maps[s], 0, voxels);
        double[] replicates = java.util.Arrays.copyOfRange(maps[s], voxels, maps[s].length);
        assertThat(a.observed(s)).as("observed " + s).isEqualTo(observed);
        assertThat(a.maps(s)).as("maps " + s).isEqualTo(replicates);
        assertThat(a.rows(s)).isEqualTo(rows[s]);
        int undefined = 0;
        for (int b = 0; b < blocks; b++) {
          undefined += b + s;
        }
        assertThat(a.undefinedVoxels(s)).isEqualTo(undefined);
      }
    }
  }

  @Test
  void aSecondCopyAnotherTileOrAMissingBlockIsABrokenInvariant() {
    Grid grid = new Grid(4, 4);
    int[] rows = {2};
    double[][] maps = maps(rows, 10, 1);
    MapSlice.Assembly a = new MapSlice.Assembly(TILE, 10, 3, rows);
    a.add(slice(maps, rows, 10, grid, 1));
    assertThatThrownBy(() -> a.add(slice(maps, rows, 10, grid, 1)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("[BUG] tile 3 of 3 blocks got a slice of tile 3, block 1 a second"
            + " time");
    assertThatThrownBy(a::checkComplete).isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] tile 3 got the slices of 1 of 3 voxel blocks");
    MapSlice.Assembly other = new MapSlice.Assembly(new TileSpec(4, 0, 0, 1), 10, 3, rows);
    assertThatThrownBy(() -> other.add(slice(maps, rows, 10, grid, 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("got a slice of tile 3, block 0");
    MapSlice.Assembly moreRows = new MapSlice.Assembly(TILE, 10, 3, new int[] {3});
    assertThatThrownBy(() -> moreRows.add(slice(maps, rows, 10, grid, 0)))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] tile 3, block 0: statistic 0 has 2 rows, the tile 3");
    assertThatThrownBy(() -> new MapSlice.Writer(TILE, 0, 0, 4, rows).rows(0, 1, new double[8],
        2)).isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] rows 1..3 of a slice of 2 rows");
    byte[] notASlice = new byte[64];
    assertThatThrownBy(() -> a.add(notASlice)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("Cannot read a map slice");
  }
}
