package org.nlspark.core.tfce;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Tail;

/**
 * Cluster extent and cluster mass at a fixed cluster-forming threshold T (DESIGN §9, {@code
 * --cluster-threshold}, {@code --cluster-mass}): a voxel is in a cluster when its statistic is
 * finite and reaches T on the tail's side (ties included, as TFCE's levels), and clusters are
 * joined by the grid's neighbours inside the mask (26 by default for clusters, as randomise and
 * PALM; {@code --connectivity}).
 *
 * <ul>
 *   <li>{@code UPPER}: stat ≥ T;
 *   <li>{@code LOWER}: −stat ≥ T (T is the height of the negated map, as TFCE's lower tail);
 *   <li>{@code TWO}: stat ≥ T and stat ≤ −T form clusters separately; a positive and a negative
 *       voxel never join.
 * </ul>
 *
 * Extent: each voxel's value is the extent of its cluster (0 outside every cluster): its voxel
 * count on a grid, its summed vertex areas (mm²) on a surface mesh ({@link Adjacency}, PALM's
 * surface cluster extent); the map's value for the max-statistic FWER rule is its largest cluster
 * (0 when there is none).
 * Mass (randomise {@code -C}, PALM {@code -C -Cstat mass}): Σ of the statistic over the cluster's
 * voxels, not the excess over T, summed in voxel order; a negative cluster's mass is negative, so
 * the sign is kept, and the FWER rule takes each map's largest |mass| (0 without a cluster).
 *
 * <p>{@link Rule#NILEARN} ({@code --cluster-rule nilearn}) is nilearn's definition instead: a
 * voxel is in a cluster when its statistic exceeds T (strictly), and the mass is Σ(|stat| − T).
 *
 * <p>An instance holds work arrays for one grid and is not thread-safe: use one per thread.
 */
public final class ClusterExtent {
  /** Which voxels form clusters at T, and what a cluster's mass sums (DESIGN §9). */
  public enum Rule {
    /** randomise's and PALM's: |stat| ≥ T on the tail's side; mass = Σ stat. */
    RANDOMISE,
    /** nilearn's ({@code non_parametric_inference(threshold=)}): |stat| &gt; T; Σ(|stat| − T). */
    NILEARN;

    /** The rule named {@code name} ("randomise", "nilearn"); exit 2 for another name. */
    public static Rule named(String name) {
      for (Rule r : values()) {
        if (r.name().equalsIgnoreCase(name)) {
          return r;
        }
      }
      throw new InvalidInputException("--cluster-rule must be randomise or nilearn, but was: "
          + name);
    }
  }

  private final Adjacency grid;
  private final double[] weights; // per voxel its share of an extent; null: counts
  private double[] extent; // per root: summed weights (weighted adjacencies only)
  private final double threshold;
  private final Tail tail;
  private final Rule rule;
  private final UnionFind clusters;
  private final byte[] side;
  private double[] sums; // per root: Σ of the tail's side of the statistic (mass only)

  /**
   * @throws InvalidInputException when {@code threshold} is not finite and &gt; 0
   */
  public ClusterExtent(Adjacency grid, double threshold, Tail tail) {
    this(grid, threshold, tail, Rule.RANDOMISE);
  }

  /** Clusters at {@code threshold} by {@code rule}. */
  public ClusterExtent(Adjacency grid, double threshold, Tail tail, Rule rule) {
    checkThreshold(threshold);
    this.grid = grid;
    this.weights = grid.extentWeights();
    this.threshold = threshold;
    this.tail = tail;
    this.rule = java.util.Objects.requireNonNull(rule, "rule");
    this.clusters = new UnionFind(grid.voxels());
    this.side = new byte[grid.voxels()];
  }

  /**
   * Checks a cluster-forming threshold (the one rule for {@code --cluster-threshold}).
   *
   * @throws InvalidInputException when {@code threshold} is not finite and &gt; 0
   */
  public static double checkThreshold(double threshold) {
    return checkThreshold(threshold, "--cluster-threshold");
  }

  /** The same rule for {@code flag} ({@code --cluster-threshold} or {@code --cluster-mass}). */
  public static double checkThreshold(double threshold, String flag) {
    if (!(threshold > 0) || Double.isInfinite(threshold)) {
      throw new InvalidInputException(flag + " must be finite and > 0 (a height on the"
          + " tail's side; for --tail lower give the height of the negated map), but was: "
          + threshold);
    }
    return threshold;
  }

  /**
   * Writes each voxel's cluster mass for {@code stat[offset .. offset + V)} into {@code
   * out[outOffset ..)} (signed, 0 outside every cluster) and returns the largest |mass|.
   */
  public double masses(double[] stat, int offset, double[] out, int outOffset) {
    grid.checkMap("sum clusters", stat, offset);
    if (outOffset < 0 || (long) outOffset + grid.voxels() > out.length) {
      throw new IllegalArgumentException("Cannot write cluster masses: need " + grid.voxels()
          + " values from offset " + outOffset + ", but the array has " + out.length);
    }
    sum(stat, offset);
    int n = grid.voxels();
    double largest = 0;
    for (int v = 0; v < n; v++) {
      double mass = side[v] == 0 ? 0.0 : side[v] * sums[clusters.find(v)];
      out[outOffset + v] = mass;
      largest = Math.max(largest, Math.abs(mass));
    }
    return largest;
  }

  /**
   * The cluster masses of a masked map (a new array); see {@link #masses(double[], int,
   * double[], int)}.
   */
  public double[] masses(double[] stat) {
    double[] out = new double[grid.voxels()];
    masses(stat, 0, out, 0);
    return out;
  }

  /** The largest |mass| of each of {@code rows} maps, as {@link #largestPerRow} for extent. */
  public void largestMassPerRow(double[] maps, int offset, int rows, double[] out) {
    int n = grid.voxels();
    if (rows < 0 || out.length < rows) {
      throw new IllegalArgumentException(
          "Cannot collect largest cluster masses: " + rows + " rows into " + out.length
          + " values");
    }
    for (int r = 0; r < rows; r++) {
      grid.checkMap("sum clusters", maps, offset + r * n);
      sum(maps, offset + r * n);
      double largest = 0;
      for (int v = 0; v < n; v++) {
        if (side[v] != 0 && clusters.find(v) == v) {
          largest = Math.max(largest, sums[v]);
        }
      }
      out[r] = largest;
    }
  }

  /**
   * Labels the map, then sums the tail's side of the statistic (nilearn: its excess over T) per
   * root, in voxel order.
   */
  private void sum(double[] stat, int offset) {
    label(stat, offset);
    int n = grid.voxels();
    if (sums == null) {
      sums = new double[n];
    }
    java.util.Arrays.fill(sums, 0.0);
    double excessOver = rule == Rule.NILEARN ? threshold : 0.0;
    for (int v = 0; v < n; v++) {
      if (side[v] != 0) {
        sums[clusters.find(v)] += side[v] * stat[offset + v] - excessOver;
      }
    }
  }

  public double threshold() {
    return threshold;
  }

  public Tail tail() {
    return tail;
  }

  public Rule rule() {
    return rule;
  }

  /** Cluster sizes (voxel counts) of a masked map; see {@link #sizes(double[], int, int[], int)}. */
  public int[] sizes(double[] stat) {
    int[] out = new int[grid.voxels()];
    sizes(stat, 0, out, 0);
    return out;
  }

  /**
   * Writes each voxel's cluster size for {@code stat[offset .. offset + V)} into {@code
   * out[outOffset ..)} (0 outside every cluster) and returns the largest cluster size.
   */
  public int sizes(double[] stat, int offset, int[] out, int outOffset) {
    grid.checkMap("label clusters", stat, offset);
    if (outOffset < 0 || (long) outOffset + grid.voxels() > out.length) {
      throw new IllegalArgumentException("Cannot write cluster sizes: need " + grid.voxels()
          + " values from offset " + outOffset + ", but the array has " + out.length);
    }
    label(stat, offset);
    int n = grid.voxels();
    int largest = 0;
    for (int v = 0; v < n; v++) {
      int size = side[v] == 0 ? 0 : clusters.size(clusters.find(v));
      out[outOffset + v] = size;
      largest = Math.max(largest, size);
    }
    return largest;
  }

  /**
   * Each voxel's cluster extent for {@code stat} (0 outside every cluster): the voxel count on a
   * grid (as {@link #sizes(double[])}), the summed vertex areas on a mesh.
   */
  public double[] extents(double[] stat) {
    grid.checkMap("label clusters", stat, 0);
    label(stat, 0);
    int n = grid.voxels();
    double[] out = new double[n];
    if (weights != null) {
      sumWeights();
    }
    for (int v = 0; v < n; v++) {
      if (side[v] != 0) {
        int r = clusters.find(v);
        out[v] = weights == null ? clusters.size(r) : extent[r];
      }
    }
    return out;
  }

  /**
   * The largest cluster extent of {@code stat[offset .. offset + V)}, 0 when no voxel reaches T:
   * a voxel count on a grid, an area on a mesh.
   */
  public double largest(double[] stat, int offset) {
    grid.checkMap("label clusters", stat, offset);
    label(stat, offset);
    int n = grid.voxels();
    if (weights != null) {
      sumWeights();
    }
    double largest = 0;
    for (int v = 0; v < n; v++) {
      if (side[v] != 0 && clusters.find(v) == v) {
        largest = Math.max(largest, weights == null ? clusters.size(v) : extent[v]);
      }
    }
    return largest;
  }

  /** Sums the weights of each labelled cluster at its root, in voxel order. */
  private void sumWeights() {
    int n = grid.voxels();
    if (extent == null) {
      extent = new double[n];
    }
    java.util.Arrays.fill(extent, 0.0);
    for (int v = 0; v < n; v++) {
      if (side[v] != 0) {
        extent[clusters.find(v)] += weights[v];
      }
    }
  }

  /**
   * Largest cluster of each of {@code rows} maps stored one after another from {@code offset}
   * (row-major, V values a row), into {@code out[0 .. rows)} as doubles: the per-replicate keys
   * for {@code NullMaxAccumulator.updateRowMaxima}.
   */
  public void largestPerRow(double[] maps, int offset, int rows, double[] out) {
    int n = grid.voxels();
    if (rows < 0 || out.length < rows) {
      throw new IllegalArgumentException(
          "Cannot collect largest clusters: " + rows + " rows into " + out.length + " values");
    }
    for (int r = 0; r < rows; r++) {
      out[r] = largest(maps, offset + r * n);
    }
  }

  private void label(double[] stat, int offset) {
    int n = grid.voxels();
    // stat ≥ T' with T' the next double above T is exactly stat > T (nilearn's strict rule)
    double t = rule == Rule.NILEARN ? Math.nextUp(threshold) : threshold;
    for (int v = 0; v < n; v++) {
      double s = stat[offset + v]; // NaN and infinities fail both finite tests below
      byte b = 0;
      if (Double.isFinite(s)) {
        if (tail != Tail.LOWER && s >= t) {
          b = 1;
        } else if (tail != Tail.UPPER && -s >= t) {
          b = -1;
        }
      }
      side[v] = b;
    }
    UnionFind uf = clusters;
    uf.reset();
    int[] offsets = grid.offsetsArray();
    int[] neighbours = grid.neighboursArray();
    for (int v = 0; v < n; v++) {
      byte b = side[v];
      if (b == 0) {
        continue;
      }
      uf.activate(v);
      int root = v;
      for (int e = offsets[v], end = offsets[v + 1]; e < end; e++) {
        int u = neighbours[e];
        if (u >= v) {
          break; // neighbours are sorted; later ones join when they are activated
        }
        if (side[u] != b) {
          continue;
        }
        int ru = uf.find(u);
        if (ru != root) {
          root = uf.link(root, ru);
        }
      }
    }
  }
}
