package org.nlspark.core.tfce;

import java.util.SplittableRandom;

/** Seeded random grids and maps with the awkward cases TFCE must get right. */
final class RandomMaps {
  final int ni;
  final int nj;
  final int nk;
  final boolean[] mask;
  final MaskGrid grid;
  final String kind;
  private final SplittableRandom rng;

  static final String[] KINDS = {
    "gaussian", "integers", "rounded", "plateaus", "constant", "negative", "nan", "infinite",
    "sparse", "smooth"
  };

  RandomMaps(long seed) {
    rng = new SplittableRandom(seed);
    ni = 1 + rng.nextInt(6);
    nj = 1 + rng.nextInt(7);
    nk = 1 + rng.nextInt(8);
    double density = new double[] {0.3, 0.6, 0.9, 1.0}[rng.nextInt(4)];
    mask = new boolean[ni * nj * nk];
    for (int c = 0; c < mask.length; c++) {
      mask[c] = rng.nextDouble() < density;
    }
    grid = MaskGrid.of(ni, nj, nk, mask);
    kind = KINDS[rng.nextInt(KINDS.length)];
  }

  double[] map() {
    int n = grid.voxels();
    double[] x = new double[n];
    double scale = Math.exp(rng.nextDouble(-3, 3));
    double c = (rng.nextInt(3) - 1) * rng.nextDouble(0.1, 5);
    for (int v = 0; v < n; v++) {
      double g = rng.nextGaussian();
      switch (kind) {
        case "integers": // many ties, including exactly 0 and exactly the maximum
          x[v] = rng.nextInt(7) - 3;
          break;
        case "rounded":
          x[v] = Math.round(g * 4) / 4.0 * scale;
          break;
        case "plateaus":
          x[v] = (grid.cellOf(v) / 5 % 4 - 1) * scale;
          break;
        case "constant":
          x[v] = c;
          break;
        case "negative":
          x[v] = -Math.abs(g) * scale - 1e-3;
          break;
        case "nan":
          x[v] = rng.nextDouble() < 0.2 ? Double.NaN : g * scale;
          break;
        case "infinite":
          x[v] = rng.nextDouble() < 0.15 ? (rng.nextBoolean() ? 1 : -1) / 0.0 : g * scale;
          break;
        case "sparse":
          x[v] = rng.nextDouble() < 0.2 ? g * scale : 0.0;
          break;
        case "smooth":
          int cell = grid.cellOf(v);
          int k = cell % nk;
          int j = cell / nk % nj;
          int i = cell / (nj * nk);
          x[v] = scale * (Math.sin(i * 0.9 + c) + Math.cos(j * 0.7) + Math.sin(k * 1.3)) + 0.1 * g;
          break;
        default:
          x[v] = g * scale;
      }
    }
    return x;
  }
}
