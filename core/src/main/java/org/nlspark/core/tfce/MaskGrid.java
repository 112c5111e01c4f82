package org.nlspark.core.tfce;

import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Arrays;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * A brain mask on a 3-D voxel grid and the neighbours of every in-mask voxel, computed once so
 * that every map of a run reuses them (DESIGN §8, §9). Connectivity 6 (the default) joins voxels
 * that share a face, 18 also those that share an edge, 26 also those that share a corner (FSL's
 * and scipy.ndimage's structuring elements of rank 1, 2 and 3).
 *
 * <p>In-mask voxels are numbered in nilearn's {@code NiftiMasker} order: C order over the grid
 * indices (i, j, k), k fastest, so a masked vector of a statistic map is indexed by these numbers.
 * Neighbours are stored as CSR: the neighbours of voxel v are {@code neighbours[offsets[v] ..
 * offsets[v + 1])}, in-mask voxel numbers in increasing order.
 *
 * <p>Serialized as its dimensions and the mask as bits (a 2 mm brain: about 110 kB, not the
 * 7 MB of neighbour lists); the lists are built where they are first used.
 *
 * <pre>
 * Invariants
 *  1. offsets.length = voxels + 1, offsets[0] = 0, non-decreasing, offsets[voxels] = neighbours.length.
 *  2. u is a neighbour of v if and only if v is a neighbour of u; no voxel is its own neighbour.
 *  3. At most {@code connectivity} neighbours per voxel.
 * </pre>
 */
public final class MaskGrid extends Adjacency {
  private static final long serialVersionUID = 1L;

  private final int ni;
  private final int nj;
  private final int nk;
  private final int[] gridIndex;
  private final int connectivity;
  /**
   * The neighbour lists (CSR), built on first use: a grid travels to every task of a run, and
   * most (those that compute slices of maps) never ask for its neighbours; at 26 neighbours a
   * million voxels' lists hold 104 MB ({@link #neighbourBytes}).
   */
  private int[] offsets;
  private int[] neighbours;

  private MaskGrid(int ni, int nj, int nk, int[] gridIndex, int connectivity) {
    this.connectivity = connectivity;
    this.ni = ni;
    this.nj = nj;
    this.nk = nk;
    this.gridIndex = gridIndex;
  }

  /**
   * Bytes a grid of {@code voxels} in-mask voxels of {@code cells} grid cells holds once its
   * neighbour lists are built, and while they are built (the lists at their largest, a copy
   * of them, and a cell-to-voxel table): what a tile that joins voxels holds for it.
   */
  public static long neighbourBytes(long voxels, long cells, int connectivity) {
    return voxels * 8 + 2 * voxels * connectivity * 4L + cells * 4;
  }

  /**
   * Builds the grid from a mask in C order over (i, j, k): {@code mask[(i * nj + j) * nk + k]}.
   *
   * @throws InvalidInputException when a dimension is not positive or the mask length differs
   *     from ni × nj × nk
   */
  public static MaskGrid of(int ni, int nj, int nk, boolean[] mask) {
    return of(ni, nj, nk, mask, 6);
  }

  /**
   * Checks a connectivity (the one rule for {@code --connectivity} and {@code
   * --tfce-connectivity}).
   *
   * @param flag the option, for the message
   */
  public static int checkConnectivity(int connectivity, String flag) {
    if (connectivity != 6 && connectivity != 18 && connectivity != 26) {
      throw new InvalidInputException(flag + " must be 6 (faces), 18 (faces and edges) or 26"
          + " (faces, edges and corners), but was: " + connectivity);
    }
    return connectivity;
  }

  /** The same as {@link #of(int, int, int, boolean[])} with 6, 18 or 26 neighbours. */
  /**
   * The neighbour steps (di, dj, dk) of a connectivity: faces (6), with edges (18), with corners
   * (26), in lexicographic order, so that the targets of a voxel come in C order.
   */
  static int[][] steps(int connectivity) {
    int[][] steps = new int[connectivity][];
    int ns = 0;
    for (int di = -1; di <= 1; di++) {
      for (int dj = -1; dj <= 1; dj++) {
        for (int dk = -1; dk <= 1; dk++) {
          int order = Math.abs(di) + Math.abs(dj) + Math.abs(dk);
          if (order > 0 && (order == 1 || connectivity >= 18 && order == 2
              || connectivity == 26)) {
            steps[ns++] = new int[] {di, dj, dk};
          }
        }
      }
    }
    return steps;
  }

  public static MaskGrid of(int ni, int nj, int nk, boolean[] mask, int connectivity) {
    checkConnectivity(connectivity, "connectivity");
    if (ni < 1 || nj < 1 || nk < 1) {
      throw new InvalidInputException(
          "grid dimensions must be >= 1, but were: " + ni + " x " + nj + " x " + nk);
    }
    long cells = (long) ni * nj * nk;
    if (cells > Integer.MAX_VALUE - 8) {
      throw new InvalidInputException(
          "grid must have fewer than 2^31 voxels, but was: " + ni + " x " + nj + " x " + nk);
    }
    if (mask.length != cells) {
      throw new InvalidInputException("Cannot build a TFCE grid: the mask has " + mask.length
          + " values, but the grid " + ni + " x " + nj + " x " + nk + " has " + cells);
    }
    int voxels = 0;
    for (boolean m : mask) {
      voxels += m ? 1 : 0;
    }
    int[] gridIndex = new int[voxels];
    for (int c = 0, v = 0; c < cells; c++) {
      if (mask[c]) {
        gridIndex[v++] = c;
      }
    }
    return new MaskGrid(ni, nj, nk, gridIndex, connectivity);
  }

  /** The neighbour lists, built on first use (the CSR of the class comment). */
  private synchronized void buildNeighbours() {
    if (neighbours != null) {
      return;
    }
    int voxels = gridIndex.length;
    int[] cellToVoxel = new int[ni * nj * nk];
    Arrays.fill(cellToVoxel, -1);
    for (int v = 0; v < voxels; v++) {
      cellToVoxel[gridIndex[v]] = v;
    }
    int[] offsets = new int[voxels + 1];
    int[] scratch = new int[connectivity * voxels];
    int edges = 0;
    int sj = nk;
    int si = nj * nk;
    int[][] steps = steps(connectivity);
    for (int i = 0; i < ni; i++) {
      for (int j = 0; j < nj; j++) {
        for (int k = 0; k < nk; k++) {
          int c = i * si + j * sj + k;
          int v = cellToVoxel[c];
          if (v < 0) {
            continue;
          }
          offsets[v] = edges;
          if (connectivity != 6) {
            for (int[] d : steps) {
              int ti = i + d[0];
              int tj = j + d[1];
              int tk = k + d[2];
              if (ti >= 0 && ti < ni && tj >= 0 && tj < nj && tk >= 0 && tk < nk) {
                int u = cellToVoxel[ti * si + tj * sj + tk];
                if (u >= 0) {
                  scratch[edges++] = u;
                }
              }
            }
            continue;
          }
          // Listed in increasing cell order, hence increasing voxel number.
          if (i > 0 && cellToVoxel[c - si] >= 0) {
            scratch[edges++] = cellToVoxel[c - si];
          }
          if (j > 0 && cellToVoxel[c - sj] >= 0) {
            scratch[edges++] = cellToVoxel[c - sj];
          }
          if (k > 0 && cellToVoxel[c - 1] >= 0) {
            scratch[edges++] = cellToVoxel[c - 1];
          }
          if (k + 1 < nk && cellToVoxel[c + 1] >= 0) {
            scratch[edges++] = cellToVoxel[c + 1];
          }
          if (j + 1 < nj && cellToVoxel[c + sj] >= 0) {
            scratch[edges++] = cellToVoxel[c + sj];
          }
          if (i + 1 < ni && cellToVoxel[c + si] >= 0) {
            scratch[edges++] = cellToVoxel[c + si];
          }
        }
      }
    }
    offsets[voxels] = edges;
    this.offsets = offsets;
    this.neighbours = edges == scratch.length ? scratch : Arrays.copyOf(scratch, edges);
  }

  /** The same mask with 6, 18 or 26 neighbours (this grid when it already has them). */
  public MaskGrid withConnectivity(int c) {
    return c == connectivity ? this : of(ni, nj, nk, cells(), c);
  }

  /** 6 (faces), 18 (and edges) or 26 (and corners). */
  public int connectivity() {
    return connectivity;
  }

  @Override
  public int maxNeighbours() {
    return connectivity;
  }

  /**
   * The TFCE grid of an image mask: the one place where the data plane's {@link NiftiMask} becomes
   * a grid. Both number voxels in nilearn's order (C order over (i, j, k), k fastest), so voxel n
   * of a masked map is voxel n here; that is checked voxel by voxel, not assumed.
   */
  public static MaskGrid of(NiftiMask mask) {
    int[] d = mask.grid().dims();
    int ni = d[0];
    int nj = d.length > 1 ? d[1] : 1;
    int nk = d.length > 2 ? d[2] : 1;
    boolean[] cells = new boolean[Math.multiplyExact(Math.multiplyExact(ni, nj), nk)];
    for (int n = 0; n < mask.count(); n++) {
      int[] ijk = mask.ijk(n);
      cells[(ijk[0] * nj + ijk[1]) * nk + ijk[2]] = true;
    }
    MaskGrid grid = of(ni, nj, nk, cells);
    if (grid.voxels() != mask.count()) {
      throw new IllegalStateException("[BUG] the TFCE grid has " + grid.voxels()
          + " voxels, the mask " + mask.count());
    }
    for (int n = 0; n < mask.count(); n++) {
      int[] ijk = mask.ijk(n);
      if (grid.cellOf(n) != (ijk[0] * nj + ijk[1]) * nk + ijk[2]) {
        throw new IllegalStateException("[BUG] voxel " + n + " of the mask is at (" + ijk[0] + ","
            + ijk[1] + "," + ijk[2] + "), but the TFCE grid numbers another voxel " + n);
      }
    }
    return grid;
  }

  /** A grid whose mask is every voxel. */
  public static MaskGrid full(int ni, int nj, int nk) {
    boolean[] mask = new boolean[Math.max(0, ni) * Math.max(0, nj) * Math.max(0, nk)];
    Arrays.fill(mask, true);
    return of(ni, nj, nk, mask);
  }

  /** Number of in-mask voxels: the length of every masked map on this grid. */
  @Override
  public int voxels() {
    return gridIndex.length;
  }

  public int ni() {
    return ni;
  }

  public int nj() {
    return nj;
  }

  public int nk() {
    return nk;
  }

  /** C-order cell index {@code (i * nj + j) * nk + k} of in-mask voxel {@code v}. */
  public int cellOf(int v) {
    return gridIndex[v];
  }

  /** Start of voxel v's neighbours in {@link #neighbours()}; the end is {@code offset(v + 1)}. */
  public int offset(int v) {
    return offsetsArray()[v];
  }

  @Override
  int[] offsetsArray() {
    buildNeighbours();
    return offsets;
  }

  @Override
  int[] neighboursArray() {
    buildNeighbours();
    return neighbours;
  }

  @Override
  public long heldBytes() {
    return neighbourBytes(voxels(), (long) ni * nj * nk, connectivity);
  }

  @Override
  public boolean onSurface() {
    return false;
  }

  @Override
  public java.util.Map<String, Object> describe() {
    java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
    p.put("grid", new int[] {ni, nj, nk});
    p.put("mask_voxels", voxels());
    return p;
  }

  /** Every voxel counts 1: a cluster's extent is its number of voxels. */
  @Override
  double[] extentWeights() {
    return null;
  }

  /** The mask in C order over (i, j, k), as {@link #of(int, int, int, boolean[])} takes it. */
  public boolean[] cells() {
    boolean[] mask = new boolean[ni * nj * nk];
    for (int c : gridIndex) {
      mask[c] = true;
    }
    return mask;
  }

  private Object writeReplace() {
    return new Compact(this);
  }

  private void readObject(ObjectInputStream in) throws java.io.InvalidObjectException {
    throw new java.io.InvalidObjectException("[BUG] a MaskGrid travels as its compact form");
  }

  /** The serialized form: dimensions and the mask as bits; the neighbours are rebuilt. */
  private static final class Compact implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int ni;
    private final int nj;
    private final int nk;
    private final long[] bits;
    private final int connectivity;

    Compact(MaskGrid grid) {
      this.connectivity = grid.connectivity;
      this.ni = grid.ni;
      this.nj = grid.nj;
      this.nk = grid.nk;
      java.util.BitSet set = new java.util.BitSet(ni * nj * nk);
      for (int c : grid.gridIndex) {
        set.set(c);
      }
      this.bits = set.toLongArray();
    }

    private Object readResolve() {
      java.util.BitSet set = java.util.BitSet.valueOf(bits);
      boolean[] mask = new boolean[ni * nj * nk];
      for (int c = set.nextSetBit(0); c >= 0; c = set.nextSetBit(c + 1)) {
        mask[c] = true;
      }
      return MaskGrid.of(ni, nj, nk, mask, connectivity);
    }
  }
}
