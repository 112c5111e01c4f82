package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class GlmModelTest {
  private static final String[] NAMES = {"intercept", "group", "age"};

  private static double[][] design() {
    return new double[][] {{1, 0, 31}, {1, 1, 25}, {1, 0, 40}, {1, 1, 52}, {1, 0, 33},
        {1, 1, 29}};
  }

  private static GlmModel prepare(double[][] m, double[][] t, int[][] f, int samples) {
    return GlmModel.prepare(new GlmDesign(m, NAMES, "design.csv"),
        new GlmContrasts(t, names(t.length), f, "contrasts.csv", "f.csv"), samples);
  }

  private static String[] names(int n) {
    String[] out = new String[n];
    for (int i = 0; i < n; i++) {
      out[i] = "C" + (i + 1);
    }
    return out;
  }

  @Test
  void partitionsEachContrast() {
    GlmModel model = prepare(design(), new double[][] {{0, 1, 0}, {0, 0, 1}},
        new int[][] {{0, 1}}, 6);
    assertThat(model.rank()).isEqualTo(3);
    assertThat(model.degreesOfFreedom()).isEqualTo(3);
    assertThat(model.contrasts()).extracting(GlmContrast::outputName)
        .containsExactly("tstat1", "tstat2", "fstat1");
    GlmContrast f = model.contrasts().get(2);
    assertThat(f.rank()).isEqualTo(2);
    assertThat(f.nuisanceRank()).isEqualTo(1);
    assertThat(f.name()).isEqualTo("C1+C2");
    // The rotated basis is orthonormal: Q'Q = I.
    for (GlmContrast c : model.contrasts()) {
      double[] q = c.basisRows();
      int n = 6;
      for (int a = 0; a < c.basisSize(); a++) {
        for (int b = 0; b < c.basisSize(); b++) {
          double dot = 0;
          for (int i = 0; i < n; i++) {
            dot += q[a * n + i] * q[b * n + i];
          }
          assertThat(Math.abs(dot - (a == b ? 1 : 0))).isLessThan(1e-12);
        }
      }
    }
  }

  @Test
  void refusesDesignRowsThatAreNotTheSamples() {
    assertThatThrownBy(() -> prepare(design(), new double[][] {{0, 1, 0}}, null, 7))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design design.csv: it has 6 rows but the data has 7 samples;"
            + " give one design row per sample, in the order of the data");
  }

  @Test
  void refusesNaN() {
    double[][] m = design();
    m[3][2] = Double.NaN;
    assertThatThrownBy(() -> prepare(m, new double[][] {{0, 1, 0}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design design.csv: row 4, column 3 (age) is NaN; every design"
            + " value must be a finite number");
  }

  @Test
  void refusesAllZeroAndSecondConstantColumns() {
    double[][] zero = design();
    for (double[] row : zero) {
      row[1] = 0;
    }
    assertThatThrownBy(() -> prepare(zero, new double[][] {{0, 0, 1}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design design.csv: column 2 (group) is all zero; remove it");
    double[][] two = design();
    for (double[] row : two) {
      row[2] = 3.5;
    }
    assertThatThrownBy(() -> prepare(two, new double[][] {{0, 1, 0}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design design.csv: columns 1 (intercept) and 3 (age) are both"
            + " constant; keep one intercept column");
  }

  @Test
  void refusesContrastOfTheWrongLength() {
    assertThatThrownBy(() -> prepare(design(), new double[][] {{0, 1, 0}, {0, 1}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use t contrast 2 (C2) of contrasts.csv: it has 2 values but the design"
            + " design.csv has 3 columns; give one weight per design column");
  }

  @Test
  void refusesNonEstimableContrastButAcceptsRankDeficientDesigns() {
    double[][] m = new double[6][3];
    for (int i = 0; i < 6; i++) {
      double g = i % 2;
      m[i] = new double[] {1, g, 1 - g}; // intercept = g + (1 - g): rank 2
    }
    GlmModel ok = prepare(m, new double[][] {{0, 1, -1}}, null, 6);
    assertThat(ok.rank()).isEqualTo(2);
    assertThat(ok.degreesOfFreedom()).isEqualTo(4);
    assertThatThrownBy(() -> prepare(m, new double[][] {{0, 1, -1}, {0, 1, 0}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot test t contrast 2 (C2) of contrasts.csv: it is not estimable in the"
            + " design design.csv (rank 2 of 3 columns): it weights a combination of columns the"
            + " data cannot separate; change the contrast or the design");
    assertThatThrownBy(() -> prepare(m, new double[][] {{0, 1, -1}, {0, 1, 0}},
        new int[][] {{1}}, 6)).hasMessageContaining("t contrast 2");
  }

  @Test
  void refusesEmptyAndZeroContrastsAndBadFIndices() {
    assertThatThrownBy(() -> prepare(design(), new double[][] {{0, 0, 0}}, null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use t contrast 1 (C1) of contrasts.csv: all its weights are zero");
    assertThatThrownBy(() -> prepare(design(), new double[][] {{0, 1, 0}}, new int[][] {{0, 3}},
        6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use F contrast 1 of f.csv: t contrast 4 does not exist; contrasts.csv"
            + " has 1 t contrasts");
    assertThatThrownBy(() -> prepare(design(), new double[0][], null, 6))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot test the design design.csv: contrasts.csv holds no t contrast; give at"
            + " least one");
  }

  @Test
  void refusesSaturatedDesigns() {
    double[][] m = {{1, 0, 3}, {1, 1, 5}, {1, 0, 4}};
    assertThatThrownBy(() -> prepare(m, new double[][] {{0, 1, 0}}, null, 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design design.csv: its rank 3 leaves no residual degrees of"
            + " freedom with 3 samples; use fewer columns or more samples");
  }
}
