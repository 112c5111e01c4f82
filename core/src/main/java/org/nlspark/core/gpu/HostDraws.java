package org.nlspark.core.gpu;

import org.nlspark.core.job.Precision;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileSpec;

/**
 * Every draw of a tile, generated on the host before any device work (DESIGN §3.10: recovery from
 * a device OOM never changes which replicates are computed). Window k of the tile occupies rows
 * [k * window, (k + 1) * window) of an (windows * window) x n row-major matrix; rows past the
 * last live replicate stay zero, as the CPU pads its draw matrix.
 */
final class HostDraws {
  /** GEMM draws in float64 (precision float64), else null. */
  final double[] doubles;
  /** GEMM draws in float32 (precision float32), else null. */
  final float[] floats;
  /** Bootstrap draw counts (order statistics), else null. */
  final int[] counts;

  private HostDraws(double[] doubles, float[] floats, int[] counts) {
    this.doubles = doubles;
    this.floats = floats;
    this.counts = counts;
  }

  static HostDraws generate(GpuBlock g, TilePlan plan, TileSpec tile, Precision precision) {
    int w = plan.grid().window();
    int n = g.n;
    long size = (long) tile.windowCount() * w * n;
    if (size > Integer.MAX_VALUE - 8) {
      throw new IllegalStateException("[BUG] the draws of tile " + tile + " (" + size
          + " values) do not fit one array; the planner must give it fewer windows");
    }
    if (!g.usesGemm()) {
      int[] counts = new int[(int) size];
      for (int k = 0; k < tile.windowCount(); k++) {
        int window = tile.firstWindow() + k;
        long first = plan.windowStart(window);
        for (int r = 0; r < plan.windowRows(window); r++) {
          g.fillCounts(first + r, counts, (k * w + r) * n);
        }
      }
      return new HostDraws(null, null, counts);
    }
    double[] d = new double[(int) size];
    for (int k = 0; k < tile.windowCount(); k++) {
      int window = tile.firstWindow() + k;
      long first = plan.windowStart(window);
      for (int r = 0; r < plan.windowRows(window); r++) {
        g.fillDraw(first + r, d, (k * w + r) * n);
      }
    }
    if (precision == Precision.FLOAT64) {
      return new HostDraws(d, null, null);
    }
    float[] f = new float[d.length];
    for (int i = 0; i < d.length; i++) {
      f[i] = (float) d[i];
    }
    return new HostDraws(null, f, null);
  }
}
