package org.nlspark.core.glm;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;

/**
 * {@code --demean}, as PALM's {@code -demean}: the data (every voxel) and every design column are
 * centred on their mean over the samples, and the intercept (the constant column, which centring
 * makes zero) is removed from the design and from every contrast. A contrast that weights the
 * intercept cannot be tested once it is gone, so it is refused (exit 2), as PALM refuses it. The
 * residual degrees of freedom are then n − rank of the centred design (PALM's count: one more than
 * the uncentred design with its intercept), so t differs from the model with the intercept by
 * √((n − k + 1) / (n − k)); the betas and the residuals are the same.
 */
public final class GlmDemean {
  private GlmDemean() {}

  /** The centred inputs; {@code removedColumn} is the intercept's name, or null when none. */
  public record Demeaned(DataMatrix y, GlmDesign design, GlmContrasts contrasts,
      String removedColumn) {}

  public static Demeaned apply(DataMatrix y, GlmDesign design, GlmContrasts contrasts) {
    Demeaned model = design(design, contrasts);
    int rows = y.rows();
    int cols = y.cols();
    double[] values = y.values().clone();
    centreColumns(values, rows, cols);
    return new Demeaned(DataMatrix.of(rows, cols, values, "demeaned data"), model.design(),
        model.contrasts(), model.removedColumn());
  }

  /**
   * The design and contrasts part of {@link #apply} alone ({@code y} null), for samples held by
   * executors as voxel blocks: each block's columns are then centred where it is held ({@link
   * #centreColumns}), the same bits as centring the whole matrix, since a voxel's mean is its
   * own column's.
   */
  public static Demeaned design(GlmDesign design, GlmContrasts contrasts) {
    contrasts = contrasts.matchedTo(design);
    int n = design.rows();
    int k = design.columns();
    double[][] m = design.values();
    int intercept = -1;
    for (int j = 0; j < k && intercept < 0 && n > 0; j++) {
      boolean constant = m[0][j] != 0;
      for (int i = 1; i < n && constant; i++) {
        constant = m[i][j] == m[0][j];
      }
      intercept = constant ? j : -1;
    }
    double[][] t = contrasts.t();
    if (intercept >= 0) {
      for (int c = 0; c < t.length; c++) {
        if (t[c].length == k && t[c][intercept] != 0) {
          throw new InvalidInputException("Cannot demean: t contrast " + (c + 1) + " ("
              + contrasts.tNames()[c] + ") of " + contrasts.source() + " tests the intercept"
              + " column '" + design.names()[intercept] + "', which --demean removes; drop"
              + " --demean or give that contrast a 0 there");
        }
      }
    }
    int kept = intercept >= 0 ? k - 1 : k;
    double[][] centred = new double[n][kept];
    String[] names = new String[kept];
    for (int j = 0, out = 0; j < k; j++) {
      if (j == intercept) {
        continue;
      }
      double sum = 0;
      for (int i = 0; i < n; i++) {
        sum += m[i][j];
      }
      double mean = sum / n;
      for (int i = 0; i < n; i++) {
        centred[i][out] = m[i][j] - mean;
      }
      names[out++] = design.names()[j];
    }
    double[][] ct = new double[t.length][];
    for (int c = 0; c < t.length; c++) {
      if (intercept < 0 || t[c].length != k) {
        ct[c] = t[c].clone(); // a wrong length is refused, with its message, by the model
        continue;
      }
      ct[c] = new double[kept];
      for (int j = 0, out = 0; j < k; j++) {
        if (j != intercept) {
          ct[c][out++] = t[c][j];
        }
      }
    }
    return new Demeaned(null, new GlmDesign(centred, names, design.source()),
        new GlmContrasts(ct, contrasts.tNames(), contrasts.positional() ? null : names,
            contrasts.f(), contrasts.source(), contrasts.fSource()),
        intercept >= 0 ? design.names()[intercept] : null);
  }

  /**
   * Centres every column of {@code values} (rows x cols, row-major) in place on its mean over
   * the rows, summed in row order.
   */
  public static void centreColumns(double[] values, int rows, int cols) {
    for (int v = 0; v < cols; v++) {
      double sum = 0;
      for (int i = 0; i < rows; i++) {
        sum += values[i * cols + v];
      }
      double mean = sum / rows;
      for (int i = 0; i < rows; i++) {
        values[i * cols + v] -= mean;
      }
    }
  }
}
