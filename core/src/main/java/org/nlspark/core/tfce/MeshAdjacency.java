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
  private final int[] vertexOf; // in-mask number -> mesh vertex
  private final int[] offsets;
  private final int[] neighbours;
  private final int maxNeighbours;
  private final double[] areas; // per in-mask vertex
  private final String areasFrom;
  /** The kept vertices no triangle joins (a CIFTI file's voxels), described; null: none. */
  private final String unjoined;
  /** The mesh itself, where it was read (the driver): coordinates for findings. */
  private final transient SurfaceMesh mesh;

  private MeshAdjacency(SurfaceMesh mesh, int[] vertexOf, int[] offsets, int[] neighbours,
      double[] areas, String areasFrom, String unjoined) {
    this.mesh = mesh;
    this.unjoined = unjoined;
    this.areasFrom = areasFrom;
    String meshName = mesh.name();
    int meshVertices = mesh.vertices();
    this.meshName = meshName;
    this.meshVertices = meshVertices;
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
    return new MeshAdjacency(mesh, vertexOf, offsets, Arrays.copyOf(list, edges), keptArea,
        areas == null ? CALCAREA : areasFrom != null ? areasFrom : "given per vertex", null);
  }

  /**
   * The same vertices, some of which are points no triangle joins ({@code what} describes them:
   * a CIFTI file's subcortical voxels, carried as points for voxelwise inference); TFCE and
   * clusters refuse such a mesh ({@link WholeMapInference}), as those points have no area.
   */
  public MeshAdjacency withUnjoined(String what) {
    return new MeshAdjacency(mesh, vertexOf, offsets, neighbours, areas, areasFrom, what);
  }

  /** What {@link #withUnjoined} described, or null when every vertex is on the mesh. */
  public String unjoined() {
    return unjoined;
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
    p.put("surface", meshName);
    p.put("surface_vertices", meshVertices);
    p.put("mask_vertices", vertexOf.length);
    p.put("vertex_area", areasFrom);
    double total = 0;
    for (double a : areas) {
      total += a;
    }
    p.put("mask_area_mm2", total);
    return p;
  }

  @Override
  public long heldBytes() {
    return 4L * (vertexOf.length + offsets.length + neighbours.length) + 8L * areas.length;
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
}
