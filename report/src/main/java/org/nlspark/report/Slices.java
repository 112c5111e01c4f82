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
 * montage per view, and the colour bar that goes with them. Views assume the usual RAS-like
 * voxel axes (i left-right, j posterior-anterior, k inferior-superior); rows are flipped so
 * that anterior/superior is up.
 */
final class Slices {
  static final int SLICES = 6;
  static final int LABEL_HEIGHT = 16;
  static final int GAP = 4;
  static final int BAR_WIDTH = 360;
  static final int BAR_HEIGHT = 46;

  private Slices() {}

  enum View {
    AXIAL("axial", 2, 0, 1, "z"),
    CORONAL("coronal", 1, 0, 2, "y"),
    SAGITTAL("sagittal", 0, 1, 2, "x");

    final String title;
    final int through;
    final int across;
    final int up;
    final String axis;

    View(String title, int through, int across, int up, String axis) {
      this.title = title;
      this.through = through;
      this.across = across;
      this.up = up;
      this.axis = axis;
    }
  }

  /** Pixels per voxel: about 150 px for the larger in-plane side, 1 to 8. */
  static int scale(int[] dims, View v) {
    int side = Math.max(dims[v.across], dims[v.up]);
    return Math.max(1, Math.min(8, 150 / Math.max(1, side)));
  }

  /** Slice indices along the view's axis: evenly over where the overlay (else the mask) is. */
  static int[] pick(int[] dims, View v, double[] overlay, double[] background, int peakAlong) {
    int lo = Integer.MAX_VALUE;
    int hi = -1;
    for (int pass = 0; pass < 2 && hi < 0; pass++) {
      double[] where = pass == 0 ? overlay : background;
      for (int f = 0; f < where.length; f++) {
        boolean in = pass == 0 ? !Double.isNaN(where[f]) : where[f] != 0 && !Double.isNaN(where[f]);
        if (in) {
          int c = coord(dims, f, v.through);
          lo = Math.min(lo, c);
          hi = Math.max(hi, c);
        }
      }
    }
    if (hi < 0) {
      lo = 0;
      hi = dims[v.through] - 1;
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
      java.util.Arrays.sort(picked);
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

  static int width(int[] dims, View v, int slices) {
    return slices * dims[v.across] * scale(dims, v) + (slices - 1) * GAP;
  }

  static int height(int[] dims, View v) {
    return dims[v.up] * scale(dims, v) + LABEL_HEIGHT;
  }

  /**
   * One view's montage.
   *
   * @param overlay per grid voxel (file order): the value to colour, NaN for none
   * @param background per grid voxel: grey level source (mask 0/1 or mean image)
   * @param floor smallest |value| shown (drawn darkest)
   * @param limit |value| drawn at full colour
   */
  static BufferedImage montage(int[] dims, double[][] affine, View v, int[] slices,
      double[] overlay, double[] background, double floor, double limit) {
    int s = scale(dims, v);
    int w = width(dims, v, slices.length);
    int h = height(dims, v);
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
    int planeW = dims[v.across];
    int planeH = dims[v.up];
    int[] ijk = new int[3];
    for (int n = 0; n < slices.length; n++) {
      int x0 = n * (planeW * s + GAP);
      ijk[v.through] = slices[n];
      for (int a = 0; a < planeW; a++) {
        for (int u = 0; u < planeH; u++) {
          ijk[v.across] = a;
          ijk[v.up] = u;
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
          g.fillRect(x0 + a * s, LABEL_HEIGHT + (planeH - 1 - u) * s, s, s);
        }
      }
      double mm = sliceMm(affine, dims, v, slices[n]);
      g.setColor(Color.WHITE);
      g.drawString(String.format(Locale.ROOT, "%s=%.0f", v.axis, mm), x0 + 2, LABEL_HEIGHT - 4);
    }
    g.dispose();
    return img;
  }

  /** World coordinate along the view's axis at the grid centre of the slice. */
  static double sliceMm(double[][] affine, int[] dims, View v, int index) {
    int[] c = {dims[0] / 2, dims[1] / 2, dims[2] / 2};
    c[v.through] = index;
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
