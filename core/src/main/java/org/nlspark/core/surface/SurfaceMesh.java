package org.nlspark.core.surface;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;

/**
 * A triangulated cortical surface: vertex coordinates (mm) and triangles as vertex triples, as a
 * GIFTI {@code .surf.gii} or a FreeSurfer surface holds them (DESIGN §9). Immutable; the arrays
 * are checked once here so that everything built on a mesh can trust them.
 *
 * <pre>
 * Invariants
 *  1. coordinates.length = 3 · vertices, all finite; triangles.length = 3 · triangles, at
 *     least one triangle unless built as {@link #points}.
 *  2. Every triangle names three distinct vertices in [0, vertices).
 * </pre>
 */
public final class SurfaceMesh implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final double[] coordinates; // x, y, z of vertex v at 3v .. 3v + 2
  private final int[] triangles; // vertices of triangle t at 3t .. 3t + 2

  /**
   * @param name where the mesh came from, for messages and {@code summary.json}
   * @throws InvalidInputException when the arrays break an invariant (the message names the
   *     first offending vertex or triangle)
   */
  public SurfaceMesh(String name, double[] coordinates, int[] triangles) {
    this(name, coordinates, triangles, false);
  }

  /**
   * Points without triangles: the space of a CIFTI file whose brain models are subcortical
   * voxels only (each voxel a point at its mm coordinates, joined on its grid, DESIGN §9).
   */
  public static SurfaceMesh points(String name, double[] coordinates) {
    return new SurfaceMesh(name, coordinates, new int[0], true);
  }

  private SurfaceMesh(String name, double[] coordinates, int[] triangles, boolean points) {
    this.name = name;
    if (coordinates.length % 3 != 0 || coordinates.length == 0) {
      throw new InvalidInputException("The surface " + name + " must have x, y and z for each"
          + " of at least one vertex, but it has " + coordinates.length + " coordinates");
    }
    if (triangles.length % 3 != 0 || triangles.length == 0 && !points) {
      throw new InvalidInputException("The surface " + name + " must have three vertices for"
          + " each of at least one triangle, but it has " + triangles.length + " indices");
    }
    int vertices = coordinates.length / 3;
    for (int i = 0; i < coordinates.length; i++) {
      if (!Double.isFinite(coordinates[i])) {
        throw new InvalidInputException("The surface " + name + " has a coordinate that is not"
            + " a finite number at vertex " + i / 3);
      }
    }
    for (int t = 0; t < triangles.length / 3; t++) {
      int a = triangles[3 * t];
      int b = triangles[3 * t + 1];
      int c = triangles[3 * t + 2];
      if (a < 0 || b < 0 || c < 0 || a >= vertices || b >= vertices || c >= vertices) {
        throw new InvalidInputException("The surface " + name + " has triangle " + t + " ("
            + a + ", " + b + ", " + c + ") naming a vertex outside 0.." + (vertices - 1));
      }
      if (a == b || b == c || a == c) {
        throw new InvalidInputException("The surface " + name + " has triangle " + t + " ("
            + a + ", " + b + ", " + c + ") naming the same vertex twice");
      }
    }
    this.coordinates = coordinates.clone();
    this.triangles = triangles.clone();
  }

  public String name() {
    return name;
  }

  public int vertices() {
    return coordinates.length / 3;
  }

  public int triangles() {
    return triangles.length / 3;
  }

  /** x, y, z (mm) of vertex v. */
  public double[] coordinate(int v) {
    return new double[] {coordinates[3 * v], coordinates[3 * v + 1], coordinates[3 * v + 2]};
  }

  /** The three vertices of triangle t. */
  public int[] triangle(int t) {
    return new int[] {triangles[3 * t], triangles[3 * t + 1], triangles[3 * t + 2]};
  }

  /** The triangle index triples, flat (a copy). */
  public int[] triangleIndices() {
    return triangles.clone();
  }

  /** The area (mm²) of triangle t: half the length of the cross product of two edges. */
  public double triangleArea(int t) {
    int a = 3 * triangles[3 * t];
    int b = 3 * triangles[3 * t + 1];
    int c = 3 * triangles[3 * t + 2];
    double ux = coordinates[b] - coordinates[a];
    double uy = coordinates[b + 1] - coordinates[a + 1];
    double uz = coordinates[b + 2] - coordinates[a + 2];
    double vx = coordinates[c] - coordinates[a];
    double vy = coordinates[c + 1] - coordinates[a + 1];
    double vz = coordinates[c + 2] - coordinates[a + 2];
    double x = uy * vz - uz * vy;
    double y = uz * vx - ux * vz;
    double z = ux * vy - uy * vx;
    return 0.5 * Math.sqrt(x * x + y * y + z * z);
  }

  /**
   * The area of each vertex (mm²): one third of the summed areas of its triangles, as PALM's
   * {@code palm_calcarea} gives it for vertex data, so that the vertex areas sum to the mesh's
   * area. Triangles are added in file order (a fixed order: the same bits every time).
   */
  public double[] vertexAreas() {
    double[] area = new double[vertices()];
    for (int t = 0; t < triangles(); t++) {
      double third = triangleArea(t) / 3;
      area[triangles[3 * t]] += third;
      area[triangles[3 * t + 1]] += third;
      area[triangles[3 * t + 2]] += third;
    }
    return area;
  }
}
