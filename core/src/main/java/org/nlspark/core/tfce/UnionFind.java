package org.nlspark.core.tfce;

import java.util.Arrays;

/**
 * Disjoint sets over the voxels of one grid, for clusters grown by activating voxels one at a
 * time: union by size, path halving. Reused across maps ({@link #reset()}), so a run allocates it
 * once per thread. One int per voxel holds the parent, or the size at a root, so the hot sweep
 * touches one array.
 *
 * <pre>
 * Invariants
 *  1. link[v] = INACTIVE while v is inactive.
 *  2. link[v] &gt;= 0 is v's parent, an active voxel; link[r] &lt; 0 marks a root r whose set has
 *     -link[r] voxels.
 *  3. Linking is deterministic: the larger set's root wins, the smaller voxel number on a tie.
 * </pre>
 */
final class UnionFind {
  private static final int INACTIVE = Integer.MIN_VALUE;

  private final int[] link;

  UnionFind(int voxels) {
    link = new int[voxels];
    Arrays.fill(link, INACTIVE);
  }

  /** Makes every voxel inactive again. */
  void reset() {
    Arrays.fill(link, INACTIVE);
  }

  /** Makes v an active set of its own. */
  void activate(int v) {
    link[v] = -1;
  }

  /** The root of active voxel v. */
  int find(int v) {
    int[] p = link;
    int q;
    while ((q = p[v]) >= 0) {
      int g = p[q];
      if (g < 0) {
        return q;
      }
      p[v] = g; // path halving
      v = g;
    }
    return v;
  }

  /** Joins the sets of two distinct roots; returns the new root. */
  int link(int ra, int rb) {
    int sa = -link[ra];
    int sb = -link[rb];
    int root;
    int child;
    if (sa > sb || (sa == sb && ra < rb)) {
      root = ra;
      child = rb;
    } else {
      root = rb;
      child = ra;
    }
    link[child] = root;
    link[root] = -(sa + sb);
    return root;
  }

  /** Size of the set whose root is r. */
  int size(int r) {
    return -link[r];
  }
}
