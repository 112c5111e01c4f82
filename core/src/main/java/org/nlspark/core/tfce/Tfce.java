package org.nlspark.core.tfce;

import java.util.Arrays;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;

/**
 * Threshold-free cluster enhancement of masked statistic maps (DESIGN §9; Smith &amp; Nichols 2009,
 * as fslmaths {@code -tfce} and nilearn compute it):
 *
 * <pre>
 *   score(v) = Σ_{k = 1..K, x_v ≥ h_k} e_k(v)^E · h_k^H
 * </pre>
 *
 * where x is the map, e_k(v) the extent of v's cluster among the voxels with x ≥ h_k (clusters
 * joined by the {@link Adjacency}'s neighbours inside the mask: on a grid faces, or 18 or 26
 * neighbours when the grid has them, and the extent the voxel count; on a surface mesh triangle
 * edges, and the extent the summed vertex areas), E = 0.5, H = 2 and K = 100 by default. The step
 * is not multiplied in (fslmaths and nilearn) unless asked: PALM multiplies the sum by dh, and
 * the surface TFCE follows PALM (DESIGN §9). A CIFTI study's map holds both kinds: cortex
 * vertices and subcortical voxels, never joined to each other, each cluster with its own kind's
 * E. Non-finite voxels belong to no cluster and score NaN.
 *
 * <p><b>Thresholds.</b> With m the largest value of the map (of |x| for two tails) and dh = m / K,
 * h_k = k · dh for k &lt; K and h_K = m exactly: the values of nilearn's {@code np.linspace(0, m, K
 * + 1)[1:]}, bit for bit. Rounding can make K · dh exceed m (for about 6% of maxima), and the rule
 * "k · dh ≤ m" would then drop the top level and the map's peak would lose about 1/30 of its score;
 * pinning h_K = m keeps the peak in, as the definition "up to the maximum" intends.
 *
 * <p><b>Tails.</b> {@code UPPER} enhances x; {@code LOWER} enhances −x and keeps the sign (scores
 * ≤ 0), so {@link Tail#key(double)} of a score is its enhancement in every tail; {@code TWO}
 * enhances the positive and the negative parts separately with the thresholds of m = max |x| and
 * keeps the sign. A map with m ≤ 0 (nothing on the tail's side) scores 0.
 *
 * <p><b>Algorithm</b> (the same sums as the definition, not K labelings). Each voxel gets its level
 * (the number of thresholds it reaches); voxels are bucketed by level (a counting sort, O(V)),
 * which orders them by value as far as the thresholds can tell. Levels are swept from K down to 1
 * with a union-find that keeps cluster sizes. A cluster's size only changes when it merges, so between merges its contribution
 * is size^E · Σ_j h_j^H over a run of levels, taken from prefix sums of h^H kept as double-double
 * (so a difference of two sums stays exact to rounding). Each such piece becomes a node of the
 * component tree (leaf = a voxel entering, inner node = a merge); a voxel's score is the sum of the
 * pieces on its path to the root, summed top-down once at the end. Cost per map: O(V α(V) + K),
 * with V in-mask voxels; only positive terms are added, so the result equals the definition
 * within about (K + 10) ulps relative. (Per-root running sums with offsets stored at each union
 * would be shorter, but they subtract the large sum of a high cluster from itself and lose up to
 * about 1e-10 relative on voxels that join it near the bottom.)
 *
 * <p>Memory locality decides the speed: the sweep names voxels by their place in it, and the
 * neighbours each voxel joins are listed beforehand in one pass in voxel order, so the only
 * random reads left are one per joining edge.
 *
 * <p>An instance holds work arrays for one grid (about 75 bytes a voxel: 17 MB for a 2 mm brain)
 * and is not thread-safe: use one per thread.
 */
public final class Tfce {
  /** Extent exponent of FSL's {@code -T} and nilearn. */
  public static final double DEFAULT_EXTENT_EXPONENT = 0.5;
  /** Height exponent for t maps, FSL's {@code -T} and nilearn. */
  public static final double DEFAULT_HEIGHT_EXPONENT = 2.0;
  /** Number of thresholds: dh = max / 100, as fslmaths and nilearn's {@code dh='auto'}. */
  public static final int DEFAULT_STEPS = 100;


  private final Adjacency grid;
  private final double[] weights; // per voxel, its share of an extent; null: every voxel counts 1
  private final double[] rootExtent; // per root (sweep position), the summed weights of its set
  private final boolean timesStep; // PALM: the sum multiplied by dh
  private final double extentExponent;
  /** Per voxel, whether it takes {@link #gridExtentExponent} (a CIFTI voxel); null: none does. */
  private final boolean[] gridPart;
  private final double gridExtentExponent;
  private final double heightExponent;
  private final int steps;
  private final int maxNeighbours; // the most neighbours of a voxel: the stride of earlierEdges

  // Work arrays, reused by every map.
  private final UnionFind clusters; // over sweep positions
  private final double[] thresholds; // [1..steps]
  private final double[] prefixHi; // Σ_{j ≤ k} h_j^H as hi + lo
  private final double[] prefixLo;
  private final int[] level; // per voxel, levels reached on the side being enhanced
  private final int[] bucketStart; // counting sort by level
  private final int[] byLevel;
  // per root r (a sweep position): [2r] the tree node of its current size, [2r + 1] the highest level not yet in a
  // closed node (interleaved: the sweep reads both at once)
  private final int[] openState;
  private final int[] positionOf; // per voxel: its place in the sweep (MAX_VALUE if never active)
  private final int[] earlierEdges; // per position: positions of neighbours active before it
  private final byte[] earlierCount; // per position: how many
  private int leaves; // leaves of the side being enhanced: nodes below this number are leaves
  private final int[] treeParent; // per node; -1 at a root of the component forest
  private final double[] treeWeight; // per node: its piece, then the path sum

  /** TFCE with FSL's {@code -T} parameters (E = 0.5, H = 2, 100 steps). */
  public Tfce(MaskGrid grid) {
    this(grid, DEFAULT_EXTENT_EXPONENT, DEFAULT_HEIGHT_EXPONENT, DEFAULT_STEPS);
  }

  public Tfce(Adjacency grid, double extentExponent, double heightExponent, int steps) {
    this(grid, extentExponent, heightExponent, steps, false);
  }

  /**
   * TFCE with the given parameters; {@code timesStep} multiplies every score by dh = m / K, as
   * PALM does (its surface TFCE and its volumes alike).
   */
  public Tfce(Adjacency grid, double extentExponent, double heightExponent, int steps,
      boolean timesStep) {
    this(grid, extentExponent, heightExponent, steps, timesStep, extentExponent);
  }

  /**
   * The same, where the elements of the adjacency's grid part (the subcortical voxels of a CIFTI
   * study, among the cortex's vertices: DESIGN §9) take the extent exponent {@code
   * gridExtentExponent}, the others {@code extentExponent}. No cluster holds both kinds (no
   * neighbour joins them), so each cluster has one exponent.
   */
  public Tfce(Adjacency grid, double extentExponent, double heightExponent, int steps,
      boolean timesStep, double gridExtentExponent) {
    if (!(gridExtentExponent > 0) || Double.isInfinite(gridExtentExponent)) {
      throw new InvalidInputException(
          "TFCE extent exponent E must be finite and > 0, but was: " + gridExtentExponent);
    }
    if (!(extentExponent > 0) || Double.isInfinite(extentExponent)) {
      throw new InvalidInputException(
          "TFCE extent exponent E must be finite and > 0, but was: " + extentExponent);
    }
    if (!(heightExponent > 0) || Double.isInfinite(heightExponent)) {
      throw new InvalidInputException(
          "TFCE height exponent H must be finite and > 0, but was: " + heightExponent);
    }
    if (steps < 1 || steps > 100_000) {
      throw new InvalidInputException("TFCE steps must be in [1, 100000], but was: " + steps);
    }
    if (grid.maxNeighbours() > Byte.MAX_VALUE) {
      throw new InvalidInputException("TFCE joins at most " + Byte.MAX_VALUE
          + " neighbours per voxel or vertex, but this one has " + grid.maxNeighbours());
    }
    this.grid = grid;
    this.weights = grid.extentWeights();
    this.rootExtent = weights == null ? null : new double[grid.voxels()];
    this.timesStep = timesStep;
    this.extentExponent = extentExponent;
    this.gridPart = grid.gridPart();
    this.gridExtentExponent = gridExtentExponent;
    this.heightExponent = heightExponent;
    this.steps = steps;
    this.maxNeighbours = grid.maxNeighbours();
    int v = grid.voxels();
    this.clusters = new UnionFind(v);
    this.thresholds = new double[steps + 1];
    this.prefixHi = new double[steps + 1];
    this.prefixLo = new double[steps + 1];
    this.level = new int[v];
    this.bucketStart = new int[steps + 2];
    this.byLevel = new int[v];
    this.openState = new int[2 * v];
    this.positionOf = new int[v];
    this.earlierEdges = new int[maxNeighbours * v];
    this.earlierCount = new byte[v];
    this.treeParent = new int[Math.max(1, 2 * v)];
    this.treeWeight = new double[Math.max(1, 2 * v)];
  }

  /** The voxels (or vertices) and their neighbours. */
  public Adjacency adjacency() {
    return grid;
  }

  /** The enhanced map of {@code stat} (a masked map of {@code grid().voxels()} values). */
  public double[] enhance(double[] stat, Tail tail) {
    double[] out = new double[grid.voxels()];
    enhance(stat, 0, tail, out, 0);
    return out;
  }

  /**
   * Writes the enhanced map of {@code stat[offset .. offset + V)} to {@code out[outOffset .. +
   * V)}, V = {@code grid().voxels()}. Non-finite statistics give NaN; every other voxel gets a
   * finite score (0 off the tail's side or below the first threshold). The two ranges must not
   * overlap (the output is cleared before the map is read).
   */
  public void enhance(double[] stat, int offset, Tail tail, double[] out, int outOffset) {
    grid.checkMap("enhance a map", stat, offset);
    grid.checkMap("write an enhanced map", out, outOffset);
    int n = grid.voxels();
    double max = 0;
    for (int v = 0; v < n; v++) {
      double s = stat[offset + v];
      if (Double.isFinite(s)) {
        double x = tail == Tail.UPPER ? s : tail == Tail.LOWER ? -s : Math.abs(s);
        if (x > max) {
          max = x;
        }
        out[outOffset + v] = 0.0;
      } else {
        out[outOffset + v] = Double.NaN;
      }
    }
    if (!(max > 0)) {
      return;
    }
    setThresholds(max);
    if (tail != Tail.LOWER) {
      enhanceSide(stat, offset, 1.0, out, outOffset);
    }
    if (tail != Tail.UPPER) {
      enhanceSide(stat, offset, -1.0, out, outOffset);
    }
  }

  /** The thresholds used for a map whose maximum (of the tail's side) is {@code max} > 0. */
  public double[] thresholds(double max) {
    if (!(max > 0) || Double.isInfinite(max)) {
      throw new IllegalArgumentException("max must be finite and > 0, but was: " + max);
    }
    setThresholds(max);
    return Arrays.copyOfRange(thresholds, 1, steps + 1);
  }

  private void setThresholds(double max) {
    double dh = max / steps;
    // np.linspace(0, max, steps + 1)[1:]: k * dh, the last pinned to max; a step that underflows
    // to 0 is handled as numpy does (k / steps * max).
    for (int k = 1; k < steps; k++) {
      thresholds[k] = dh != 0 ? k * dh : ((double) k / steps) * max;
    }
    thresholds[steps] = max;
    double hi = 0;
    double lo = 0;
    for (int k = 1; k <= steps; k++) {
      double term = heightPower(thresholds[k]);
      double s = hi + term; // TwoSum: the rounding error of hi + term goes to lo
      double bb = s - hi;
      lo += (hi - (s - bb)) + (term - bb);
      hi = s;
      prefixHi[k] = hi;
      prefixLo[k] = lo;
    }
  }

  /** Enhances the part of sign {@code sign} (x = sign · stat > 0) and writes sign · score. */
  private void enhanceSide(double[] stat, int offset, double sign, double[] out, int outOffset) {
    int n = grid.voxels();
    int[] bucket = bucketStart;
    Arrays.fill(bucket, 0);
    double dh = thresholds[1];
    for (int v = 0; v < n; v++) {
      double x = sign * stat[offset + v];
      int k = 0;
      if (x >= dh && x > 0 && Double.isFinite(x)) {
        k = (int) Math.min(steps, x / dh); // a first guess, corrected against the thresholds
        if (k < 1) {
          k = 1;
        }
        while (k < steps && thresholds[k + 1] <= x) {
          k++;
        }
        while (k > 0 && thresholds[k] > x) {
          k--;
        }
      }
      level[v] = k;
      bucket[k]++;
    }
    // Counting sort, highest level first; voxel order within a level (any order gives the same
    // clusters; a fixed one gives the same rounding).
    int start = 0;
    for (int k = steps; k >= 1; k--) {
      int c = bucket[k];
      bucket[k] = start;
      start += c;
    }
    int active = start;
    int[] position = positionOf;
    for (int v = 0; v < n; v++) {
      int k = level[v];
      if (k > 0) {
        int i = bucket[k]++;
        byLevel[i] = v;
        position[v] = i;
      } else {
        position[v] = Integer.MAX_VALUE; // never active: after every position
      }
    }
    if (active == 0) {
      return;
    }

    // From here on voxels are named by their sweep position i (byLevel[i] is the voxel), so a
    // voxel's own state is read in order. Neighbour u is already active when the voxel at i
    // enters exactly when position[u] < i. One pass in voxel order, where the neighbours'
    // positions stream through the cache, lists those earlier neighbours per position (at most
    // the grid's connectivity, fixed stride), so the sweep visits each joining edge once, in
    // order, and never probes an inactive voxel.
    int[] offsets = grid.offsetsArray();
    int[] neighbours = grid.neighboursArray();
    int[] edges = earlierEdges;
    byte[] edgeCount = earlierCount;
    for (int v = 0; v < n; v++) {
      int i = position[v];
      if (i == Integer.MAX_VALUE) {
        continue;
      }
      int c = 0;
      for (int e = offsets[v], last = offsets[v + 1]; e < last; e++) {
        int pu = position[neighbours[e]];
        if (pu < i) {
          edges[maxNeighbours * i + c++] = pu;
        }
      }
      edgeCount[i] = (byte) c;
    }

    UnionFind uf = clusters;
    uf.reset();
    int[] open = openState;
    // Node i is the leaf of position i; merges are numbered from `active` up, and a node's parent
    // always has a larger number, so one pass from the last node down sums every path.
    int nodes = active;
    leaves = active;
    int i = 0;
    for (int k = steps; k >= 1; k--) {
      for (int end = bucket[k]; i < end; i++) {
        uf.activate(i);
        if (rootExtent != null) {
          rootExtent[i] = weights[byLevel[i]];
        }
        open[2 * i] = i;
        open[2 * i + 1] = k;
        int root = i;
        for (int e = maxNeighbours * i, last = e + edgeCount[i]; e < last; e++) {
          int ru = uf.find(edges[e]);
          if (ru != root) {
            root = merge(uf, root, ru, k, nodes);
            if (open[2 * root] == nodes) {
              nodes++;
            }
          }
        }
      }
    }
    for (i = 0; i < active; i++) {
      if (uf.find(i) == i) {
        close(i, 0, extent(uf, i));
        treeParent[open[2 * i]] = -1;
      }
    }
    // Root to leaf, adding only non-negative terms.
    for (int m = nodes - 1; m >= 0; m--) {
      int p = treeParent[m];
      if (p >= 0) {
        treeWeight[m] += treeWeight[p];
      }
    }
    double scale = timesStep ? sign * thresholds[1] : sign;
    for (i = 0; i < active; i++) {
      out[outOffset + byLevel[i]] = scale * treeWeight[i];
    }
  }

  /**
   * Joins the clusters of roots a and b at level k and returns the new root. Each had its size
   * from its open level down to k + 1, so its open node closes there; the joined cluster opens a
   * node at level k: node {@code fresh} (the caller then counts it), or, when one side already
   * opened a merge node at level k with a larger number than the other side's node, that one.
   */
  private int merge(UnionFind uf, int a, int b, int k, int fresh) {
    int[] open = openState;
    int nodeA = open[2 * a];
    int nodeB = open[2 * b];
    int keep;
    int other;
    if (open[2 * a + 1] == k && nodeA > nodeB && nodeA >= leaves) {
      keep = a;
      other = b;
    } else if (open[2 * b + 1] == k && nodeB > nodeA && nodeB >= leaves) {
      keep = b;
      other = a;
    } else {
      close(a, k, extent(uf, a));
      close(b, k, extent(uf, b));
      treeParent[nodeA] = fresh;
      treeParent[nodeB] = fresh;
      int root = link(uf, a, b);
      open[2 * root] = fresh;
      open[2 * root + 1] = k;
      return root;
    }
    int node = open[2 * keep];
    close(other, k, extent(uf, other));
    treeParent[open[2 * other]] = node;
    int root = link(uf, a, b);
    open[2 * root] = node;
    open[2 * root + 1] = k;
    return root;
  }

  /** Joins two roots' sets, and their extents when voxels have weights. */
  private int link(UnionFind uf, int a, int b) {
    int root = uf.link(a, b);
    if (rootExtent != null) {
      // The earlier root's extent first: a fixed order gives the same rounding every time.
      rootExtent[root] = a < b ? rootExtent[a] + rootExtent[b] : rootExtent[b] + rootExtent[a];
    }
    return root;
  }

  /** The extent of root r's set: its voxel count, or its summed weights (vertex areas). */
  private double extent(UnionFind uf, int r) {
    return rootExtent == null ? uf.size(r) : rootExtent[r];
  }

  /** Closes root r's open node: extent^E · Σ_{j = below + 1 .. top} h_j^H. */
  private void close(int r, int below, double extent) {
    int top = openState[2 * r + 1];
    double heights = (prefixHi[top] - prefixHi[below]) + (prefixLo[top] - prefixLo[below]);
    double e = gridPart != null && gridPart[byLevel[r]] ? gridExtentExponent : extentExponent;
    treeWeight[openState[2 * r]] = top == below ? 0.0 : extentPower(extent, e) * heights;
  }

  private static double extentPower(double extent, double e) {
    return e == 0.5 ? Math.sqrt(extent) : e == 1.0 ? extent : StrictMath.pow(extent, e);
  }

  private double heightPower(double h) {
    return heightExponent == 2.0 ? h * h : StrictMath.pow(h, heightExponent);
  }
}
