package org.nlspark.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * A map on a cortical mesh drawn with Java2D: the lateral and medial view of each hemisphere,
 * an orthographic projection along x with the triangles painted far to near (depth order), grey
 * where the map is not shown and in {@link Slices#colour} where it is, shaded by how squarely
 * each triangle faces the viewer.
 *
 * <p>A mesh of two large disconnected parts (both hemispheres side by side, as the Python package
 * stages a nilearn {@code SurfaceImage}) is drawn as two hemispheres, each called left or right by
 * the sign of its mean x; one part is one hemisphere. Seen from the left (−x), anterior is on the
 * left of the image; from the right (+x), on the right; superior is up.
 */
final class SurfaceViews {
  static final int WIDTH = 320;
  static final int HEIGHT = 250;
  private static final int MARGIN = 18;

  private SurfaceViews() {}

  /** One drawn view: its title ("left lateral") and image. */
  record View(String title, BufferedImage image) {}

  /**
   * The views of {@code values} (one per mesh vertex, NaN: not shown) with the colour scale
   * {@code floor .. limit}.
   */
  static List<View> draw(SurfaceMesh mesh, double[] values, double floor, double limit) {
    List<View> views = new ArrayList<>();
    for (int[] part : hemispheres(mesh)) {
      double meanX = 0;
      int count = 0;
      for (int v = 0; v < mesh.vertices(); v++) {
        if (part[v] == 1) {
          meanX += mesh.coordinate(v)[0];
          count++;
        }
      }
      boolean left = meanX / count < 0;
      String side = left ? "left" : "right";
      // lateral: seen from its own side; medial: from the other
      views.add(new View(side + " lateral",
          render(mesh, part, values, floor, limit, left ? -1 : 1, side + " lateral")));
      views.add(new View(side + " medial",
          render(mesh, part, values, floor, limit, left ? 1 : -1, side + " medial")));
    }
    return views;
  }

  /**
   * Each hemisphere as a 0/1 flag per vertex: the two largest connected parts when both hold at
   * least a tenth of the vertices (left first), else the whole mesh.
   */
  static List<int[]> hemispheres(SurfaceMesh mesh) {
    int n = mesh.vertices();
    int[] root = new int[n];
    for (int v = 0; v < n; v++) {
      root[v] = v;
    }
    int[] tri = mesh.triangleIndices();
    for (int t = 0; t < tri.length; t += 3) {
      union(root, tri[t], tri[t + 1]);
      union(root, tri[t + 1], tri[t + 2]);
    }
    int[] size = new int[n];
    for (int v = 0; v < n; v++) {
      size[find(root, v)]++;
    }
    int first = -1;
    int second = -1;
    for (int v = 0; v < n; v++) {
      if (size[v] == 0) {
        continue;
      }
      if (first < 0 || size[v] > size[first]) {
        second = first;
        first = v;
      } else if (second < 0 || size[v] > size[second]) {
        second = v;
      }
    }
    int[] all = new int[n];
    Arrays.fill(all, 1);
    if (second < 0 || size[second] * 10L < n) {
      return List.of(all);
    }
    int[] a = new int[n];
    int[] b = new int[n];
    double xa = 0;
    double xb = 0;
    for (int v = 0; v < n; v++) {
      int r = find(root, v);
      if (r == first) {
        a[v] = 1;
        xa += mesh.coordinate(v)[0];
      } else if (r == second) {
        b[v] = 1;
        xb += mesh.coordinate(v)[0];
      }
    }
    return xa / size[first] <= xb / size[second] ? List.of(a, b) : List.of(b, a);
  }

  private static int find(int[] root, int v) {
    while (root[v] != v) {
      root[v] = root[root[v]];
      v = root[v];
    }
    return v;
  }

  private static void union(int[] root, int a, int b) {
    int ra = find(root, a);
    int rb = find(root, b);
    if (ra != rb) {
      root[Math.max(ra, rb)] = Math.min(ra, rb);
    }
  }

  /**
   * The triangles of {@code part} seen from the side {@code from} (−1: from −x, +1: from +x):
   * across = from · y (so anterior is on the left seen from −x), up = z.
   */
  static BufferedImage render(SurfaceMesh mesh, int[] part, double[] values, double floor,
      double limit, int from, String title) {
    int[] tri = mesh.triangleIndices();
    List<Integer> shown = new ArrayList<>();
    double minU = Double.POSITIVE_INFINITY;
    double maxU = Double.NEGATIVE_INFINITY;
    double minV = Double.POSITIVE_INFINITY;
    double maxV = Double.NEGATIVE_INFINITY;
    for (int t = 0; t < tri.length; t += 3) {
      if (part[tri[t]] == 0) {
        continue;
      }
      shown.add(t);
      for (int k = 0; k < 3; k++) {
        double[] p = mesh.coordinate(tri[t + k]);
        minU = Math.min(minU, from * p[1]);
        maxU = Math.max(maxU, from * p[1]);
        minV = Math.min(minV, p[2]);
        maxV = Math.max(maxV, p[2]);
      }
    }
    double scale = Math.min((WIDTH - 2 * MARGIN) / Math.max(1e-9, maxU - minU),
        (HEIGHT - 2 * MARGIN) / Math.max(1e-9, maxV - minV));
    double offU = (WIDTH - scale * (maxU - minU)) / 2;
    double offV = (HEIGHT - scale * (maxV - minV)) / 2;
    // far to near: the viewer at from * infinity sees larger from * x nearer
    double[] depth = new double[tri.length / 3];
    for (int t : shown) {
      depth[t / 3] = from * (mesh.coordinate(tri[t])[0] + mesh.coordinate(tri[t + 1])[0]
          + mesh.coordinate(tri[t + 2])[0]);
    }
    shown.sort((a, b) -> Double.compare(depth[a / 3], depth[b / 3]));

    BufferedImage img = new BufferedImage(WIDTH, HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, WIDTH, HEIGHT);
    int[] xs = new int[3];
    int[] ys = new int[3];
    for (int t : shown) {
      double[] p0 = mesh.coordinate(tri[t]);
      double[] p1 = mesh.coordinate(tri[t + 1]);
      double[] p2 = mesh.coordinate(tri[t + 2]);
      double facing = facing(p0, p1, p2);
      double sum = 0;
      int present = 0;
      for (int k = 0; k < 3; k++) {
        double x = values[tri[t + k]];
        if (!Double.isNaN(x)) {
          sum += x;
          present++;
        }
      }
      Color base = present >= 2 ? Slices.colour(sum / present, floor, limit) : null;
      double light = 0.45 + 0.55 * facing;
      Color c = base == null ? grey(0.35 + 0.55 * facing)
          : new Color((int) (base.getRed() * light), (int) (base.getGreen() * light),
              (int) (base.getBlue() * light));
      for (int k = 0; k < 3; k++) {
        double[] p = mesh.coordinate(tri[t + k]);
        xs[k] = (int) Math.round(offU + scale * (from * p[1] - minU));
        ys[k] = (int) Math.round(HEIGHT - offV - scale * (p[2] - minV));
      }
      g.setColor(c);
      g.fillPolygon(xs, ys, 3);
      g.drawPolygon(xs, ys, 3); // closes the hairline gaps between neighbours
    }
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    g.drawString(title, 4, 12);
    String leftEdge = from < 0 ? "A" : "P";
    String rightEdge = from < 0 ? "P" : "A";
    g.drawString(leftEdge, 4, HEIGHT / 2);
    g.drawString(rightEdge, WIDTH - 4 - g.getFontMetrics().stringWidth(rightEdge), HEIGHT / 2);
    g.dispose();
    return img;
  }

  /** |cos| of the angle between the triangle's normal and x, the viewing axis. */
  private static double facing(double[] a, double[] b, double[] c) {
    double ux = b[0] - a[0];
    double uy = b[1] - a[1];
    double uz = b[2] - a[2];
    double wx = c[0] - a[0];
    double wy = c[1] - a[1];
    double wz = c[2] - a[2];
    double nx = uy * wz - uz * wy;
    double ny = uz * wx - ux * wz;
    double nz = ux * wy - uy * wx;
    double norm = Math.sqrt(nx * nx + ny * ny + nz * nz);
    return norm == 0 ? 0 : Math.abs(nx) / norm;
  }

  private static Color grey(double level) {
    int v = (int) Math.round(255 * Math.max(0, Math.min(1, level)));
    return new Color(v, v, v);
  }
}
