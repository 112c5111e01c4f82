package org.nlspark.core.tfce;

import java.util.Arrays;

/**
 * Disjoint sets over the voxels of one grid, for clusters grown by activating voxels one at a
 * time: union by size, path halving. Reused across maps ({@link #reset()}), so a run allocates it
 * once per thread.
 *
 * <pre>
 * Invariants
 *  1. parent[v] = -1 while v is inactive; an active v has parent[v] active.
 *  2. For a root r (parent[r] = r), size[r] = number of voxels whose root is r.
 *  3. Linking is deterministic: the larger set's root wins, the smaller voxel number on a tie.
 * </pre>
 */
final class UnionFind {
  private final int[] parent;
  private final int[] size;

  UnionFind(int voxels) {
    parent = new int[voxels];
    size = new int[voxels];
    Arrays.fill(parent, -1);
  }

  /** Makes every voxel inactive again. */
  void reset() {
    Arrays.fill(parent, -1);
  }

  boolean isActive(int v) {
    return parent[v] >= 0;
  }

  /** Makes v an active set of its own. */
  void activate(int v) {
    parent[v] = v;
    size[v] = 1;
  }

  /** The root of active voxel v. */
  int find(int v) {
    int[] p = parent;
    while (p[v] != v) {
      p[v] = p[p[v]];
      v = p[v];
    }
    return v;
  }

  /** Joins the sets of two distinct roots; returns the new root. */
  int link(int ra, int rb) {
    int sa = size[ra];
    int sb = size[rb];
    int root;
    int child;
    if (sa > sb || (sa == sb && ra < rb)) {
      root = ra;
      child = rb;
    } else {
      root = rb;
      child = ra;
    }
    parent[child] = root;
    size[root] = sa + sb;
    return root;
  }

  /** Size of the set whose root is r. */
  int size(int r) {
    return size[r];
  }
}
