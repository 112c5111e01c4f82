package org.nlspark.report;

import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.util.Locale;

/**
 * Slice montages drawn with Java2D: a grey background (mean image or mask) with the
 * thresholded statistic over it, warm colours for positive values and cool for negative, one
 * montage per view, and the colour bar that goes with them.
 *
 * <p>Slices are drawn in world (scanner/MNI, RAS+) orientation in the neurological convention,
 * as nilearn ({@code radiological=False}, its default) and FSLeyes show them: the subject's left
 * on the left of the image and +x (right) on the right in axial and coronal slices; anterior up
 * (axial) and on the right (sagittal, as nilearn's x cuts); superior up. Which voxel axis runs
 * along each world axis, and in which direction, comes from the affine ({@link Orientation}), so
 * a LAS-stored image (negative x step, as FSL's MNI templates) is drawn the same way round as a
 * RAS one. Each slice is labelled with its world coordinate in mm, each montage with L/R, A/P,
 * S/I at its edges.
 */
final class Slices {
  static final int SLICES = 6;
  static final int LABEL_HEIGHT = 16;
  static final int GAP = 4;
  static final int BAR_WIDTH = 360;
  static final int BAR_HEIGHT = 46;

  private Slices() {}

  /** A view by world axes (0 x, 1 y, 2 z): the one cut through, across (left to right), up. */
  enum View {
    AXIAL("axial", 2, 0, 1, "z", "L", "R", "A", "P"),
    CORONAL("coronal", 1, 0, 2, "y", "L", "R", "S", "I"),
    SAGITTAL("sagittal", 0, 1, 2, "x", "P", "A", "S", "I");

    final String title;
    final int through;
    final int across;
    final int up;
    final String axis;
    final String leftLabel;
    final String rightLabel;
    final String topLabel;
    final String bottomLabel;

    View(String title, int through, int across, int up, String axis, String left, String right,
        String top, String bottom) {
      this.title = title;
      this.through = through;
      this.across = across;
      this.up = up;
      this.axis = axis;
      this.leftLabel = left;
      this.rightLabel = right;
      this.topLabel = top;
      this.bottomLabel = bottom;
    }
  }

  /**
   * For each world axis w (x, y, z), the voxel axis {@code axis[w]} that runs along it (the
   * largest |affine| entry of row w among the axes not yet taken) and whether the voxel index
   * decreases as the world coordinate grows ({@code flip[w]}).
   */
  static final class Orientation {
    final int[] axis = new int[3];
    final boolean[] flip = new boolean[3];

    static Orientation of(double[][] affine) {
      Orientation o = new Orientation();
      boolean[] taken = new boolean[3];
      // rows in order of their clearest column, so an oblique affine still gets a permutation
      for (int pass = 0; pass < 3; pass++) {
        int bestRow = -1;
        int bestCol = -1;
        double best = -1;
        for (int w = 0; w < 3; w++) {
          boolean done = false;
          for (int q = 0; q < pass; q++) {
            done |= o.order[q] == w;
          }
          if (done) {
            continue;
          }
          for (int i = 0; i < 3; i++) {
            if (!taken[i] && Math.abs(affine[w][i]) > best) {
              best = Math.abs(affine[w][i]);
              bestRow = w;
              bestCol = i;
            }
          }
        }
        o.order[pass] = bestRow;
        taken[bestCol] = true;
        o.axis[bestRow] = bestCol;
        o.flip[bestRow] = affine[bestRow][bestCol] < 0;
      }
      return o;
    }

    private final int[] order = {-1, -1, -1};

    /** Voxel index along the voxel axis of world axis w at display position d (0 = lowest). */
    int index(int w, int d, int[] dims) {
      int n = dims[axis[w]];
      return flip[w] ? n - 1 - d : d;
    }
  }

  /** Margin around a montage for the orientation letters. */
  static final int MARGIN = 14;

  /** Pixels per voxel: about 150 px for the larger in-plane side, 1 to 8. */
  static int scale(int[] dims, Orientation o, View v) {
    int side = Math.max(dims[o.axis[v.across]], dims[o.axis[v.up]]);
    return Math.max(1, Math.min(8, 150 / Math.max(1, side)));
  }

  /**
   * Slice indices (along the voxel axis of the view's world axis, in increasing world order):
   * evenly over where the overlay (else the mask) is, the peak's own slice among them.
   */
  static int[] pick(int[] dims, Orientation o, View v, double[] overlay, double[] background,
      int peakAlong) {
    int axis = o.axis[v.through];
    int lo = Integer.MAX_VALUE;
    int hi = -1;
    for (int pass = 0; pass < 2 && hi < 0; pass++) {
      double[] where = pass == 0 ? overlay : background;
      for (int f = 0; f < where.length; f++) {
        boolean in = pass == 0 ? !Double.isNaN(where[f]) : where[f] != 0 && !Double.isNaN(where[f]);
        if (in) {
          int c = coord(dims, f, axis);
          lo = Math.min(lo, c);
          hi = Math.max(hi, c);
        }
      }
    }
    if (hi < 0) {
      lo = 0;
      hi = dims[axis] - 1;
    }
    int n = Math.min(SLICES, hi - lo + 1);
    int[] picked = new int[n];
    for (int s = 0; s < n; s++) {
      picked[s] = n == 1 ? lo : lo + (int) Math.round(s * (hi - lo) / (double) (n - 1));
    }
    if (peakAlong >= 0 && n > 0) {
      // the slice nearest the peak is replaced by the peak's own slice, so the peak is shown
      int best = 0;
      for (int s = 1; s < n; s++) {
        if (Math.abs(picked[s] - peakAlong) < Math.abs(picked[best] - peakAlong)) {
          best = s;
        }
      }
      picked[best] = peakAlong;
    }
    java.util.Arrays.sort(picked);
    if (o.flip[v.through]) {
      // increasing world coordinate from left to right in the montage
      for (int a = 0, b = picked.length - 1; a < b; a++, b--) {
        int t = picked[a];
        picked[a] = picked[b];
        picked[b] = t;
      }
    }
    return picked;
  }

  static int coord(int[] dims, int f, int axis) {
    switch (axis) {
      case 0:
        return f % dims[0];
      case 1:
        return (f / dims[0]) % dims[1];
      default:
        return f / (dims[0] * dims[1]);
    }
  }

  static int planeWidth(int[] dims, Orientation o, View v) {
    return dims[o.axis[v.across]] * scale(dims, o, v);
  }

  static int width(int[] dims, Orientation o, View v, int slices) {
    return 2 * MARGIN + slices * planeWidth(dims, o, v) + (slices - 1) * GAP;
  }

  static int height(int[] dims, Orientation o, View v) {
    return dims[o.axis[v.up]] * scale(dims, o, v) + LABEL_HEIGHT + 2 * MARGIN;
  }

  /** The x pixel (from the image's left) where slice {@code n}'s plane starts. */
  static int planeX(int[] dims, Orientation o, View v, int n) {
    return MARGIN + n * (planeWidth(dims, o, v) + GAP);
  }

  /** The y pixel where the planes start (below the slice labels). */
  static int planeY() {
    return MARGIN + LABEL_HEIGHT;
  }

  /**
   * The pixel (x, y) of the centre of voxel {@code ijk} in slice {@code n} of the view's montage;
   * for checks that a voxel is drawn where its world coordinates say.
   */
  static int[] pixelOf(int[] dims, Orientation o, View v, int n, int[] ijk) {
    int s = scale(dims, o, v);
    int across = ijk[o.axis[v.across]];
    int up = ijk[o.axis[v.up]];
    int col = o.flip[v.across] ? dims[o.axis[v.across]] - 1 - across : across;
    int rowFromBottom = o.flip[v.up] ? dims[o.axis[v.up]] - 1 - up : up;
    int row = dims[o.axis[v.up]] - 1 - rowFromBottom;
    return new int[] {planeX(dims, o, v, n) + col * s + s / 2, planeY() + row * s + s / 2};
  }

  /**
   * One view's montage, in world orientation (see the class comment).
   *
   * @param slices voxel indices along the through axis, as {@link #pick} gives them
   * @param overlay per grid voxel (file order): the value to colour, NaN for none
   * @param background per grid voxel: grey level source (mask 0/1 or mean image)
   * @param floor smallest |value| shown (drawn darkest)
   * @param limit |value| drawn at full colour
   */
  static BufferedImage montage(int[] dims, double[][] affine, View v, int[] slices,
      double[] overlay, double[] background, double floor, double limit) {
    Orientation o = Orientation.of(affine);
    int s = scale(dims, o, v);
    int w = width(dims, o, v, slices.length);
    int h = height(dims, o, v);
    double bgMin = Double.POSITIVE_INFINITY;
    double bgMax = Double.NEGATIVE_INFINITY;
    for (double b : background) {
      if (b != 0 && Double.isFinite(b)) {
        bgMin = Math.min(bgMin, b);
        bgMax = Math.max(bgMax, b);
      }
    }
    BufferedImage img = new BufferedImage(w, h, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.BLACK);
    g.fillRect(0, 0, w, h);
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    int planeW = dims[o.axis[v.across]];
    int planeH = dims[o.axis[v.up]];
    int[] ijk = new int[3];
    for (int n = 0; n < slices.length; n++) {
      int x0 = planeX(dims, o, v, n);
      ijk[o.axis[v.through]] = slices[n];
      for (int col = 0; col < planeW; col++) {
        for (int rowFromBottom = 0; rowFromBottom < planeH; rowFromBottom++) {
          ijk[o.axis[v.across]] = o.index(v.across, col, dims);
          ijk[o.axis[v.up]] = o.index(v.up, rowFromBottom, dims);
          int f = ijk[0] + dims[0] * (ijk[1] + dims[1] * ijk[2]);
          Color c = colour(overlay[f], floor, limit);
          if (c == null) {
            double b = background[f];
            if (b == 0 || !Double.isFinite(b)) {
              continue;
            }
            int grey = bgMax > bgMin ? (int) (40 + 170 * (b - bgMin) / (bgMax - bgMin)) : 110;
            c = new Color(grey, grey, grey);
          }
          g.setColor(c);
          g.fillRect(x0 + col * s, planeY() + (planeH - 1 - rowFromBottom) * s, s, s);
        }
      }
      double mm = sliceMm(affine, dims, o, v, slices[n]);
      g.setColor(Color.WHITE);
      g.drawString(String.format(Locale.ROOT, "%s = %.0f mm", v.axis, mm), x0 + 2,
          MARGIN + LABEL_HEIGHT - 4);
    }
    // orientation letters: left and right edges at mid-height, top and bottom at the centre
    g.setColor(new Color(255, 255, 160));
    g.setFont(new Font(Font.SANS_SERIF, Font.BOLD, 12));
    int midY = planeY() + planeH * s / 2 + 5;
    g.drawString(v.leftLabel, 2, midY);
    g.drawString(v.rightLabel, w - MARGIN + 2, midY);
    int cx = MARGIN + planeWidth(dims, o, v) / 2 - 4;
    g.drawString(v.topLabel, cx, MARGIN - 2);
    g.drawString(v.bottomLabel, cx, h - 2);
    g.dispose();
    return img;
  }

  /** World coordinate along the view's axis at the grid centre of the slice. */
  static double sliceMm(double[][] affine, int[] dims, Orientation o, View v, int index) {
    int[] c = {dims[0] / 2, dims[1] / 2, dims[2] / 2};
    c[o.axis[v.through]] = index;
    return Clusters.toMm(affine, c)[v.through];
  }

  /** Hot (red to yellow) for positive, cool (blue to cyan) for negative; null for NaN. */
  static Color colour(double value, double floor, double limit) {
    if (Double.isNaN(value)) {
      return null;
    }
    double t = limit > floor ? Math.max(0, Math.min(1, (Math.abs(value) - floor) / (limit - floor)))
        : 1;
    int ramp = (int) Math.round(255 * t);
    return value >= 0 ? new Color(255, ramp, 0) : new Color(0, ramp, 255);
  }

  /**
   * The colour bar: floor to limit, and -limit to -floor to its left when values are negative.
   */
  static BufferedImage colourBar(double floor, double limit, boolean negative, String label) {
    BufferedImage img = new BufferedImage(BAR_WIDTH, BAR_HEIGHT, BufferedImage.TYPE_INT_RGB);
    Graphics2D g = img.createGraphics();
    g.setColor(Color.WHITE);
    g.fillRect(0, 0, BAR_WIDTH, BAR_HEIGHT);
    int x0 = 10;
    int x1 = BAR_WIDTH - 10;
    int mid = negative ? (x0 + x1) / 2 : x0;
    for (int x = x0; x < x1; x++) {
      double t;
      double sign;
      if (x < mid) {
        t = (mid - 1 - x) / (double) Math.max(1, mid - x0 - 1);
        sign = -1;
      } else {
        t = (x - mid) / (double) Math.max(1, x1 - mid - 1);
        sign = 1;
      }
      g.setColor(colour(sign * (floor + t * (limit - floor)), floor, limit));
      g.fillRect(x, 4, 1, 18);
    }
    g.setRenderingHint(RenderingHints.KEY_TEXT_ANTIALIASING,
        RenderingHints.VALUE_TEXT_ANTIALIAS_ON);
    g.setColor(Color.BLACK);
    g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 11));
    String loText = String.format(Locale.ROOT, "%.2f", negative ? -limit : floor);
    g.drawString(loText, x0, 38);
    String hiText = String.format(Locale.ROOT, "%.2f", limit);
    g.drawString(hiText, x1 - g.getFontMetrics().stringWidth(hiText), 38);
    int lw = g.getFontMetrics().stringWidth(label);
    g.drawString(label, (BAR_WIDTH - lw) / 2, 38);
    g.dispose();
    return img;
  }
}
