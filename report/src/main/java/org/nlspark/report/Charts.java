package org.nlspark.report;

import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.Histogram;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.XYSeries;
import org.knowm.xchart.style.markers.SeriesMarkers;

/** Histograms (XChart) with optional vertical markers, as images of a fixed size. */
final class Charts {
  static final int WIDTH = 640;
  static final int HEIGHT = 340;
  static final int BINS = 40;

  private Charts() {}

  /** A vertical line at {@code x}, labelled in the legend. */
  record Marker(String label, double x, Color color) {}

  /**
   * A histogram of the finite {@code values} over [min, max] of the values and the markers.
   * Returns null when there is no finite value.
   */
  static BufferedImage histogram(String title, String xLabel, double[] values, Marker... markers) {
    List<Double> data = new ArrayList<>();
    double min = Double.POSITIVE_INFINITY;
    double max = Double.NEGATIVE_INFINITY;
    for (double v : values) {
      if (Double.isFinite(v)) {
        data.add(v);
        min = Math.min(min, v);
        max = Math.max(max, v);
      }
    }
    if (data.isEmpty()) {
      return null;
    }
    for (Marker m : markers) {
      if (Double.isFinite(m.x)) {
        min = Math.min(min, m.x);
        max = Math.max(max, m.x);
      }
    }
    // a little room, so a marker at the edge is not drawn on the frame
    double pad = 0.02 * (max - min);
    min -= pad;
    max += pad;
    if (max == min) {
      // one value: a bin of width 1 around it keeps the axis readable
      min -= 0.5;
      max += 0.5;
    }
    Histogram h = new Histogram(data, BINS, min, max);
    double binWidth = (max - min) / BINS;
    // Step series: each bin drawn from its left edge, closed at the right edge of the last one.
    List<Double> xs = new ArrayList<>();
    List<Double> ys = new ArrayList<>();
    double peak = 0;
    for (int b = 0; b < BINS; b++) {
      xs.add(min + b * binWidth);
      ys.add(h.getyAxisData().get(b));
      peak = Math.max(peak, h.getyAxisData().get(b));
    }
    xs.add(max);
    ys.add(h.getyAxisData().get(BINS - 1));
    XYChart chart = new XYChartBuilder().width(WIDTH).height(HEIGHT).title(title)
        .xAxisTitle(xLabel).yAxisTitle("count").build();
    chart.getStyler().setChartBackgroundColor(Color.WHITE);
    chart.getStyler().setLegendVisible(markers.length > 0);
    chart.getStyler().setLegendPosition(org.knowm.xchart.style.Styler.LegendPosition.InsideNE);
    chart.getStyler().setYAxisMin(0.0);
    chart.getStyler().setAntiAlias(true);
    // tick labels with as many decimals as the range needs, not every digit of the double
    int decimals = Math.max(0, Math.min(8, 2 - (int) Math.floor(Math.log10(max - min))));
    chart.getStyler().setXAxisDecimalPattern(decimals == 0 ? "0" : "0." + "#".repeat(decimals));
    XYSeries bars = chart.addSeries("draws", xs, ys);
    bars.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.StepArea);
    bars.setMarker(SeriesMarkers.NONE);
    bars.setFillColor(new Color(70, 110, 180, 160));
    bars.setLineColor(new Color(40, 70, 140));
    bars.setShowInLegend(false);
    for (Marker m : markers) {
      if (!Double.isFinite(m.x)) {
        continue;
      }
      XYSeries line = chart.addSeries(m.label, new double[] {m.x, m.x},
          new double[] {0, Math.max(1, peak) * 1.05});
      line.setXYSeriesRenderStyle(XYSeries.XYSeriesRenderStyle.Line);
      line.setMarker(SeriesMarkers.NONE);
      line.setLineColor(m.color);
      line.setLineStyle(new BasicStroke(2.5f));
    }
    return BitmapEncoder.getBufferedImage(chart);
  }
}
