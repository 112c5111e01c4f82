package org.nlspark.core.tfce;

import java.io.Serializable;

/**
 * The elements of a masked map and which of them touch: the voxels of a {@link MaskGrid} or the
 * vertices of a cortical surface mesh. TFCE and clusters join elements through these neighbours
 * and measure a cluster's extent by its elements' weights: 1 per voxel on a grid, the vertex area
 * (mm²) on a mesh (DESIGN §9).
 *
 * <p>Elements are numbered 0 .. {@link #voxels()} − 1 in the order of the masked map. Neighbours
 * are CSR: those of element v are {@code neighboursArray()[offsetsArray()[v] .. offsetsArray()[v +
 * 1])}, in increasing order, symmetric, never v itself, at most {@link #maxNeighbours()} of them.
 */
public abstract class Adjacency implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Number of elements: the length of every masked map on this adjacency. */
  public abstract int voxels();

  /** The most neighbours any element has (the stride of TFCE's edge lists). */
  public abstract int maxNeighbours();

  /** The CSR offsets (shared, not copied: read only). */
  abstract int[] offsetsArray();

  /** The CSR neighbour list (shared, not copied: read only). */
  abstract int[] neighboursArray();

  /**
   * Each element's share of a cluster's extent (shared, not copied: read only), or null when
   * every element counts 1 and an extent is a count.
   */
  abstract double[] extentWeights();

  /**
   * Per element, whether it is a voxel of a grid among the vertices of a mesh (a CIFTI file's
   * subcortical voxels: TFCE gives them the volume's extent exponent), or null when every element
   * is of one kind (shared, not copied: read only).
   */
  boolean[] gridPart() {
    return null;
  }

  /**
   * Whether the elements are the vertices of a surface mesh: there TFCE and clusters follow
   * PALM's surface definitions (DESIGN §9), on voxel grids FSL's.
   */
  public abstract boolean onSurface();

  /** Bytes the neighbour lists (and weights) take once built: what a tile holds for them. */
  public abstract long heldBytes();

  /** What summary.json says of the elements (the grid's dimensions, or the mesh). */
  public abstract java.util.Map<String, Object> describe();

  /** The neighbours of element v (a copy). */
  public int[] neighboursOf(int v) {
    int[] offsets = offsetsArray();
    return java.util.Arrays.copyOfRange(neighboursArray(), offsets[v], offsets[v + 1]);
  }

  /** Checks that a masked map fits this adjacency. */
  void checkMap(String what, double[] map, int offset) {
    if (offset < 0 || (long) offset + voxels() > map.length) {
      throw new IllegalArgumentException("Cannot " + what + ": the map needs " + voxels()
          + " values from offset " + offset + ", but the array has " + map.length);
    }
  }
}
