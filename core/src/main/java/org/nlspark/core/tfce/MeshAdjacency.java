package org.nlspark.core.tfce;

import java.util.Arrays;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * The in-mask vertices of a surface mesh, joined through the edges of its triangles, each
 * weighing its vertex area in a cluster's extent (DESIGN §9): what TFCE and clusters need of a
 * mesh. In-mask vertices are numbered in increasing vertex order, so a masked map is the vertex
 * data with the masked-out vertices (the medial wall, say) removed.
 *
 * <p>Holds its lists directly (an fsaverage5 hemisphere: about 300 kB), so it travels to the
 * executors as it is.
 */
public final class MeshAdjacency extends Adjacency {
  private static final long serialVersionUID = 1L;
  private static final String CALCAREA =
      "a third of the areas of each vertex's triangles (palm_calcarea)";

  private final String meshName;
  private final int meshVertices;
  /** Whether the mesh has no triangles: a CIFTI file of subcortical voxels only. */
  private final boolean voxelsOnly;
  private final int[] vertexOf; // in-mask number -> mesh vertex
  private final int[] offsets;
  private final int[] neighbours;
  private final int maxNeighbours;
  private final double[] areas; // per in-mask vertex
  private final String areasFrom;
  /**
   * Per in-mask element, its voxel (i, j, k) when it is a voxel of a grid (a CIFTI file's
   * subcortical voxels, joined by their grid neighbours, not by triangles), else -1s; null when
   * every element is a mesh vertex.
   */
  private final int[] voxelIjk;
  /** The voxels' grid neighbours (6, 18 or 26); 0 without voxels. */
  private final int voxelConnectivity;
  /** Where the voxels come from (for summary.json); null without voxels. */
  private final String voxelsFrom;
  /** Per in-mask element, whether it is a voxel; null without voxels. */
  private final boolean[] onGrid;
  /** The mesh itself, where it was read (the driver): coordinates for findings. */
  private final transient SurfaceMesh mesh;

  private MeshAdjacency(SurfaceMesh mesh, String meshName, int meshVertices, boolean voxelsOnly,
      int[] vertexOf, int[] offsets, int[] neighbours, double[] areas, String areasFrom, int[] voxelIjk,
      int voxelConnectivity, String voxelsFrom) {
    this.mesh = mesh;
    this.voxelIjk = voxelIjk;
    this.voxelConnectivity = voxelConnectivity;
    this.voxelsFrom = voxelsFrom;
    if (voxelIjk == null) {
      this.onGrid = null;
    } else {
      this.onGrid = new boolean[vertexOf.length];
      for (int n = 0; n < vertexOf.length; n++) {
        onGrid[n] = voxelIjk[3 * n] >= 0;
      }
    }
    this.areasFrom = areasFrom;
    this.meshName = meshName;
    this.meshVertices = meshVertices;
    this.voxelsOnly = voxelsOnly;
    this.vertexOf = vertexOf;
    this.offsets = offsets;
    this.neighbours = neighbours;
    this.areas = areas;
    int most = 0;
    for (int v = 0; v < vertexOf.length; v++) {
      most = Math.max(most, offsets[v + 1] - offsets[v]);
    }
    this.maxNeighbours = most;
  }

  /** Every vertex of the mesh, each weighing its area from {@link SurfaceMesh#vertexAreas()}. */
  public static MeshAdjacency of(SurfaceMesh mesh) {
    return of(mesh, null, null, null);
  }

  /**
   * The vertices of {@code mask} (null: all), joined by the triangle edges between two of them.
   *
   * @param areas each mesh vertex's area (for instance PALM's {@code -s surf area}: the mid-
   *     thickness area averaged over subjects), or null for {@link SurfaceMesh#vertexAreas()}
   * @param areasFrom where {@code areas} came from (a file name, for summary.json), or null
   * @throws InvalidInputException when the mask or areas do not have one value per vertex, an
   *     area is negative or not finite, or the mask keeps no vertex
   */
  public static MeshAdjacency of(SurfaceMesh mesh, boolean[] mask, double[] areas,
      String areasFrom) {
    int n = mesh.vertices();
    if (mask != null && mask.length != n) {
      throw new InvalidInputException("The mask has " + mask.length + " vertices, but the"
          + " surface " + mesh.name() + " has " + n);
    }
    if (areas != null && areas.length != n) {
      throw new InvalidInputException("The vertex areas have " + areas.length + " values, but"
          + " the surface " + mesh.name() + " has " + n + " vertices");
    }
    double[] vertexArea = areas != null ? areas : mesh.vertexAreas();
    int[] number = new int[n];
    int kept = 0;
    for (int v = 0; v < n; v++) {
      number[v] = mask == null || mask[v] ? kept++ : -1;
    }
    if (kept == 0) {
      throw new InvalidInputException("The mask keeps no vertex of the surface " + mesh.name());
    }
    int[] vertexOf = new int[kept];
    double[] keptArea = new double[kept];
    for (int v = 0; v < n; v++) {
      if (number[v] >= 0) {
        double a = vertexArea[v];
        if (!(a >= 0) || Double.isInfinite(a)) {
          throw new InvalidInputException("The area of vertex " + v + " must be a finite number"
              + " >= 0, but was: " + a);
        }
        vertexOf[number[v]] = v;
        keptArea[number[v]] = a;
      }
    }
    // Each triangle edge between two kept vertices, both ways, as (from, to) pairs in one long;
    // sorted and deduplicated, that is the CSR in increasing order.
    int[] tri = mesh.triangleIndices();
    long[] pairs = new long[2 * tri.length];
    int p = 0;
    for (int t = 0; t < tri.length; t += 3) {
      for (int e = 0; e < 3; e++) {
        int a = number[tri[t + e]];
        int b = number[tri[t + (e + 1) % 3]];
        if (a >= 0 && b >= 0) {
          pairs[p++] = (long) a << 32 | b;
          pairs[p++] = (long) b << 32 | a;
        }
      }
    }
    Arrays.sort(pairs, 0, p);
    int[] offsets = new int[kept + 1];
    int[] list = new int[p];
    int edges = 0;
    for (int i = 0; i < p; i++) {
      if (i > 0 && pairs[i] == pairs[i - 1]) {
        continue;
      }
      int from = (int) (pairs[i] >>> 32);
      list[edges++] = (int) pairs[i];
      offsets[from + 1]++;
    }
    for (int v = 0; v < kept; v++) {
      offsets[v + 1] += offsets[v];
    }
    return new MeshAdjacency(mesh, mesh.name(), n, mesh.triangles() == 0, vertexOf, offsets, Arrays.copyOf(list, edges),
        keptArea,
        areas == null ? CALCAREA : areasFrom != null ? areasFrom : "given per vertex", null, 0,
        null);
  }

  /**
   * The same elements, some of which are voxels of a grid rather than vertices of the mesh: a
   * CIFTI file's subcortical voxels, points of the mesh that no triangle joins (DESIGN §9). They
   * join their grid neighbours among the kept voxels ({@code connectivity}: 6 faces, 18 with
   * edges, 26 with corners, across structures as in one volume) and weigh 1 in an extent (a
   * voxel count, as on a volume), never the cortex's vertices.
   *
   * @param ijkOfMeshVertex per mesh vertex, its voxel (i, j, k), or -1s for a cortex vertex
   * @param what where the voxels come from (summary.json)
   */
  public MeshAdjacency withVoxels(int[] ijkOfMeshVertex, int connectivity, String what) {
    if (ijkOfMeshVertex.length != 3 * meshVertices) {
      throw new IllegalArgumentException("[BUG] " + ijkOfMeshVertex.length + " voxel indices for "
          + meshVertices + " vertices");
    }
    int[] ijk = new int[3 * vertexOf.length];
    for (int n = 0; n < vertexOf.length; n++) {
      System.arraycopy(ijkOfMeshVertex, 3 * vertexOf[n], ijk, 3 * n, 3);
      if (ijk[3 * n] >= 0 && offsets[n + 1] > offsets[n]) {
        throw new IllegalArgumentException("[BUG] voxel " + vertexOf[n] + " is on a triangle");
      }
    }
    return joinVoxels(ijk, connectivity, what);
  }

  /** The same elements with the voxels joined by {@code connectivity} grid neighbours. */
  public MeshAdjacency withConnectivity(int connectivity) {
    return voxelIjk == null || connectivity == voxelConnectivity ? this
        : joinVoxels(voxelIjk, connectivity, voxelsFrom);
  }

  private MeshAdjacency joinVoxels(int[] ijk, int connectivity, String what) {
    MaskGrid.checkConnectivity(connectivity, "connectivity");
    int n = vertexOf.length;
    java.util.HashMap<Long, Integer> at = new java.util.HashMap<>();
    for (int e = 0; e < n; e++) {
      if (ijk[3 * e] >= 0
          && at.put(voxelKey(ijk[3 * e], ijk[3 * e + 1], ijk[3 * e + 2]), e) != null) {
        throw new IllegalArgumentException("[BUG] voxel (" + ijk[3 * e] + ", " + ijk[3 * e + 1]
            + ", " + ijk[3 * e + 2] + ") twice (Grayordinates refuses it)");
      }
    }
    if (at.isEmpty()) {
      return new MeshAdjacency(mesh, meshName, meshVertices, voxelsOnly, vertexOf, offsets,
          neighbours, areas, areasFrom, null, 0, null);
    }
    int[][] steps = MaskGrid.steps(connectivity); // a volume's neighbourhood
    int[] newOffsets = new int[n + 1];
    int[] list = new int[neighbours.length + connectivity * at.size()];
    int used = 0;
    double[] weights = areas.clone();
    int[] found = new int[connectivity];
    for (int e = 0; e < n; e++) {
      if (ijk[3 * e] < 0) { // a cortex vertex: its triangle edges, as they are
        for (int q = offsets[e]; q < offsets[e + 1]; q++) {
          list[used++] = neighbours[q];
        }
      } else {
        weights[e] = 1.0; // a voxel counts 1, as on a volume
        int c = 0;
        for (int[] d : steps) {
          Integer u = at.get(voxelKey(ijk[3 * e] + d[0], ijk[3 * e + 1] + d[1],
              ijk[3 * e + 2] + d[2]));
          if (u != null) {
            found[c++] = u;
          }
        }
        Arrays.sort(found, 0, c);
        System.arraycopy(found, 0, list, used, c);
        used += c;
      }
      newOffsets[e + 1] = used;
    }
    // (mesh is null where this was deserialized: an executor joins again for another analysis)
    return new MeshAdjacency(mesh, meshName, meshVertices, voxelsOnly, vertexOf, newOffsets,
        Arrays.copyOf(list, used), weights, areasFrom, ijk, connectivity, what);
  }

  /** A voxel's key (21 bits an index); a step off the grid's edge (-1) only ever misses. */
  private static long voxelKey(int i, int j, int k) {
    return ((long) i & 0x1FFFFF) << 42 | ((long) j & 0x1FFFFF) << 21 | ((long) k & 0x1FFFFF);
  }

  /** The number of kept elements that are voxels of a grid ({@link #withVoxels}). */
  public int voxelCount() {
    int c = 0;
    for (int e = 0; onGrid != null && e < onGrid.length; e++) {
      c += onGrid[e] ? 1 : 0;
    }
    return c;
  }

  /**
   * Whether the space is subcortical voxels only (a CIFTI file without a cortex model, its mesh
   * points without triangles): TFCE and clusters there are a volume's, with the volume's
   * settings (DESIGN §9).
   */
  public boolean voxelsOnly() {
    return voxelsOnly;
  }

  /** The voxels' grid neighbours (6, 18 or 26), 0 without voxels. */
  public int voxelConnectivity() {
    return voxelConnectivity;
  }

  /** Where the mesh came from. */
  public String meshName() {
    return meshName;
  }

  /** The number of vertices of the whole mesh (in and out of the mask). */
  public int meshVertices() {
    return meshVertices;
  }

  /** The mesh, or null where this adjacency was deserialized (executors need only the lists). */
  public SurfaceMesh mesh() {
    return mesh;
  }

  /** A masked map (one value per in-mask vertex) on every vertex of the mesh. */
  public float[] toMesh(double[] masked, float outside) {
    float[] out = new float[meshVertices];
    Arrays.fill(out, outside);
    for (int n = 0; n < vertexOf.length; n++) {
      out[vertexOf[n]] = (float) masked[n];
    }
    return out;
  }

  /** The mesh vertex of in-mask vertex n. */
  public int vertexOf(int n) {
    return vertexOf[n];
  }

  /** The area of in-mask vertex n (mm²). */
  public double area(int n) {
    return areas[n];
  }

  @Override
  public boolean onSurface() {
    return true;
  }

  @Override
  public java.util.Map<String, Object> describe() {
    java.util.Map<String, Object> p = new java.util.LinkedHashMap<>();
    if (voxelsOnly) {
      p.put("space", "CIFTI subcortical voxels, no cortex");
      p.put("grayordinates", meshVertices);
      p.put("mask_voxels", voxelCount());
      p.put("voxels_from", voxelsFrom);
      return p;
    }
    p.put("surface", meshName);
    p.put("surface_vertices", meshVertices);
    int voxels = voxelCount();
    p.put("mask_vertices", vertexOf.length - voxels);
    p.put("vertex_area", areasFrom);
    double total = 0;
    for (int e = 0; e < areas.length; e++) {
      total += onGrid != null && onGrid[e] ? 0 : areas[e];
    }
    p.put("mask_area_mm2", total);
    if (voxels > 0) {
      p.put("mask_voxels", voxels);
      p.put("voxels_from", voxelsFrom);
    }
    return p;
  }

  @Override
  public long heldBytes() {
    return 4L * (vertexOf.length + offsets.length + neighbours.length) + 8L * areas.length
        + (voxelIjk == null ? 0 : 13L * vertexOf.length);
  }

  @Override
  public int voxels() {
    return vertexOf.length;
  }

  @Override
  public int maxNeighbours() {
    return maxNeighbours;
  }

  @Override
  int[] offsetsArray() {
    return offsets;
  }

  @Override
  int[] neighboursArray() {
    return neighbours;
  }

  @Override
  double[] extentWeights() {
    return areas;
  }

  @Override
  boolean[] gridPart() {
    return onGrid;
  }
}
