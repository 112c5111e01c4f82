package org.nlspark.core.tfce;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.tile.TileSpec;

/**
 * One voxel block's slice of a whole-map tile (DESIGN §9, inputs held as voxel blocks, DESIGN
 * §8): for each statistic of the tile (one for the permutation tests, one per contrast for
 * {@code glm}, and with variance smoothing one more per contrast, its variance: {@link
 * VarianceSmoothing}) the block's columns of the observed map and of every replicate map of the
 * tile.
 * The executor holding the block writes it ({@link Writer}); one shuffle brings every block's
 * slice of a tile to one task, which copies them into whole maps ({@link Assembly}) and folds
 * those as the driver-read path folds its own ({@link WholeMapInference#fold}). The values are
 * the kernels' doubles, copied, so the maps are the same bits either way.
 *
 * <p>Layout (version 1, big-endian): magic 'L' ({@link PartialFamily#MAP_SLICE}), version, tile
 * index, block, first voxel, width, statistic count S, flops (long), then per statistic its
 * undefined voxels (int) and rows R (int), then per statistic the observed values (width
 * doubles) and its R x width replicate values, row-major.
 *
 * <p>Invariants: 1. an assembly takes each block of the tile exactly once, in any order; 2. a
 * slice's rows per statistic are the assembly's (the tile's replicates of that statistic).
 */
public final class MapSlice {
  private static final PartialFamily FAMILY = PartialFamily.MAP_SLICE;
  private static final int HEADER = 2 + 4 * 5 + 8;

  private MapSlice() {}

  /** Writes one block's slice straight into its bytes (no second copy of the values). */
  public static final class Writer {
    private final ByteBuffer buf;
    private final int width;
    private final int[] rows;
    private final int[] offsets; // first byte of each statistic's observed values

    public Writer(TileSpec tile, int block, int from, int width, int[] rows) {
      this.width = width;
      this.rows = rows.clone();
      int s = rows.length;
      long size = HEADER + 8L * s;
      this.offsets = new int[s];
      for (int i = 0; i < s; i++) {
        offsets[i] = Math.toIntExact(size);
        size += 8L * width * (1L + rows[i]);
      }
      this.buf = ByteBuffer.allocate(Math.toIntExact(size)).order(ByteOrder.BIG_ENDIAN);
      buf.put(FAMILY.id()).put(FAMILY.version()).putInt(tile.index()).putInt(block)
          .putInt(from).putInt(width).putInt(s).putLong(0);
      for (int i = 0; i < s; i++) {
        buf.putInt(0).putInt(rows[i]);
      }
    }

    /** Statistic {@code s}'s observed values of the block ({@code width} of {@code values}). */
    public void observed(int s, double[] values) {
      buf.position(offsets[s]);
      buf.asDoubleBuffer().put(values, 0, width);
    }

    /** {@code count} replicate rows of statistic {@code s} from row {@code row0} of the tile. */
    public void rows(int s, int row0, double[] values, int count) {
      if (row0 < 0 || row0 + count > rows[s]) {
        throw new IllegalArgumentException("[BUG] rows " + row0 + ".." + (row0 + count)
            + " of a slice of " + rows[s] + " rows");
      }
      buf.position(offsets[s] + 8 * width * (1 + row0));
      buf.asDoubleBuffer().put(values, 0, count * width);
    }

    public void undefinedVoxels(int s, int undefined) {
      buf.putInt(HEADER + 8 * s, undefined);
    }

    public void flops(long flops) {
      buf.putLong(HEADER - 8, flops);
    }

    public byte[] toBytes() {
      return buf.array();
    }
  }

  /**
   * A tile's whole maps, filled from its blocks' slices as they arrive: per statistic the
   * observed map (voxels) and the replicate maps (rows x voxels, row-major), as {@link
   * WholeMapInference#fold} takes them.
   */
  public static final class Assembly {
    private final TileSpec tile;
    private final int voxels;
    private final int[] rows;
    private final double[][] observed;
    private final double[][] maps;
    private final int[] undefined;
    private final boolean[] seen;
    private int blocksSeen;
    private long flops;

    /** @param blocks the voxel blocks of the inputs, each to arrive once */
    public Assembly(TileSpec tile, int voxels, int blocks, int[] rows) {
      this.tile = tile;
      this.voxels = voxels;
      this.rows = rows.clone();
      this.observed = new double[rows.length][];
      this.maps = new double[rows.length][];
      for (int s = 0; s < rows.length; s++) {
        observed[s] = new double[voxels];
        maps[s] = new double[Math.multiplyExact(rows[s], voxels)];
      }
      this.undefined = new int[rows.length];
      this.seen = new boolean[blocks];
    }

    public void add(byte[] slice) {
      ByteBuffer in = ByteBuffer.wrap(slice).order(ByteOrder.BIG_ENDIAN);
      FAMILY.check(in.get(), in.get());
      int index = in.getInt();
      int block = in.getInt();
      int from = in.getInt();
      int width = in.getInt();
      int s = in.getInt();
      if (index != tile.index() || block < 0 || block >= seen.length || seen[block]
          || s != rows.length || from < 0 || from + width > voxels) {
        throw new IllegalStateException("[BUG] tile " + tile.index() + " of " + seen.length
            + " blocks got a slice of tile " + index + ", block " + block + (block >= 0
            && block < seen.length && seen[block] ? " a second time" : "") + " (" + s
            + " statistics, voxels " + from + ".." + (from + width) + ")");
      }
      seen[block] = true;
      blocksSeen++;
      flops += in.getLong();
      for (int i = 0; i < s; i++) {
        undefined[i] += in.getInt();
        int r = in.getInt();
        if (r != rows[i]) {
          throw new IllegalStateException("[BUG] tile " + tile.index() + ", block " + block
              + ": statistic " + i + " has " + r + " rows, the tile " + rows[i]);
        }
      }
      java.nio.DoubleBuffer values = in.asDoubleBuffer();
      for (int i = 0; i < s; i++) {
        values.get(observed[i], from, width);
        for (int r = 0; r < rows[i]; r++) {
          values.get(maps[i], r * voxels + from, width);
        }
      }
    }

    /** Refuses (as a broken invariant) a tile some block never sent its slice to. */
    public void checkComplete() {
      if (blocksSeen != seen.length) {
        throw new IllegalStateException("[BUG] tile " + tile.index() + " got the slices of "
            + blocksSeen + " of " + seen.length + " voxel blocks");
      }
    }

    public double[] observed(int s) {
      return observed[s];
    }

    public double[] maps(int s) {
      return maps[s];
    }

    public int rows(int s) {
      return rows[s];
    }

    public int undefinedVoxels(int s) {
      return undefined[s];
    }

    public long flops() {
      return flops;
    }
  }
}
