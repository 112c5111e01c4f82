package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

/**
 * Contrast columns are design columns by name, never by position (a CSV/TSV header, a
 * DataFrame); VEST files stay positional, as randomise reads them. Each case here was a silently
 * different analysis before: the weights read in file order against the design's order.
 */
class GlmContrastNamesTest {
  private static final int N = 12;

  /** intercept, group (-1/+1), age: full rank. */
  private static GlmDesign design(String... names) {
    double[][] m = new double[N][];
    for (int i = 0; i < N; i++) {
      double[] row = {1, i < N / 2 ? -1 : 1, 20 + (i * 7) % 11};
      double[] ordered = new double[names.length];
      for (int j = 0; j < names.length; j++) {
        ordered[j] = row[List.of("intercept", "group", "age").indexOf(names[j])];
      }
      m[i] = ordered;
    }
    return new GlmDesign(m, names, "design.csv");
  }

  private static GlmContrasts csv(String... lines) {
    return GlmFiles.readContrasts(List.of(lines), "contrasts.csv", null, null);
  }

  private static double[] weightsOf(GlmModel model, int contrast) {
    return model.contrasts().get(contrast).matrix()[0];
  }

  @Test
  void aHeaderInAnotherOrderTestsTheNamedColumn() {
    GlmDesign d = design("intercept", "group");
    GlmModel swapped = GlmModel.prepare(d, csv("group,intercept", "1,0"), N);
    assertThat(weightsOf(swapped, 0)).containsExactly(0, 1);
    GlmModel named = GlmModel.prepare(design("intercept", "group", "age"),
        csv("name,group,intercept,age", "g,1,0,0", "a,0,0,1"), N);
    assertThat(weightsOf(named, 0)).containsExactly(0, 1, 0);
    assertThat(weightsOf(named, 1)).containsExactly(0, 0, 1);
    assertThat(named.contrasts().get(0).name()).isEqualTo("g");
  }

  @Test
  void designColumnsTheContrastLeavesOutWeighZero() {
    GlmModel m = GlmModel.prepare(design("intercept", "group", "age"), csv("age", "-1"), N);
    assertThat(weightsOf(m, 0)).containsExactly(0, 0, -1);
  }

  @Test
  void aNameThatIsNoDesignColumnIsRefusedWithTheNearest() {
    assertThatThrownBy(() -> GlmModel.prepare(design("intercept", "group"),
        csv("intercept,grup", "0,1"), N))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the contrast column 'grup' names no design column (did you mean"
            + " 'group'?)")
        .hasMessageContaining("(the design's: intercept, group)");
    assertThatThrownBy(() -> GlmModel.prepare(design("intercept", "group"),
        csv("group,group", "1,0"), N))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("they name the column 'group' twice");
  }

  @Test
  void vestContrastsStayPositional() {
    GlmContrasts vest = GlmFiles.readContrasts(List.of("/NumWaves 2", "/Matrix", "0 1"),
        "design.con", null, null);
    assertThat(vest.positional()).isTrue();
    assertThat(weightsOf(GlmModel.prepare(design("intercept", "group"), vest, N), 0))
        .containsExactly(0, 1);
  }

  @Test
  void vestContrastNamesGoToTheirNumbers() {
    GlmContrasts vest = GlmFiles.readContrasts(List.of("/ContrastName2 age",
        "/ContrastName1 group", "/NumWaves 3", "/NumContrasts 2", "/Matrix", "0 1 0", "0 0 1"),
        "design.con", null, null);
    assertThat(vest.tNames()).containsExactly("group", "age");
  }

  @Test
  void fContrastsNameTheirTContrasts() {
    List<String> t = List.of("name,intercept,group,age", "mean,1,0,0", "group,0,1,0",
        "age,0,0,1");
    GlmContrasts byName = GlmFiles.readContrasts(t, "c.csv", List.of("age,group", "1,1"),
        "f.csv");
    assertThat(byName.f()).isDeepEqualTo(new int[][] {{1, 2}});
    GlmContrasts one = GlmFiles.readContrasts(t, "c.csv", List.of("age,group", "1,0"), "f.csv");
    assertThat(one.f()).isDeepEqualTo(new int[][] {{2}});
    assertThatThrownBy(() -> GlmFiles.readContrasts(t, "c.csv", List.of("age,grup", "1,1"),
        "f.csv"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("'grup' names no t contrast (did you mean 'group'?)");
    // a VEST F file holds one flag per t contrast: 3 flags over 2 t contrasts is refused
    List<String> two = List.of("/NumWaves 2", "/Matrix", "0 1", "1 0");
    assertThatThrownBy(() -> GlmFiles.readContrasts(two, "design.con",
        List.of("/NumWaves 3", "/Matrix", "1 1 1"), "design.fts"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("/NumWaves) but there are 2 t contrasts");
    // positional rows that are neither flags nor distinct numbers (Python's [[1, 1, 1]])
    assertThatThrownBy(() -> GlmFiles.readContrasts(two, "design.con",
        List.of("c1,c2,c3", "1,1,1"), "f.csv"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("neither a 0/1 flag row of 2 values nor distinct t contrast"
            + " numbers");
  }

  @Test
  void aByteOrderMarkIsNotPartOfTheFirstName() {
    GlmModel m = GlmModel.prepare(design("intercept", "group"),
        csv("\uFEFFname,group", "g,1"), N);
    assertThat(weightsOf(m, 0)).containsExactly(0, 1);
    assertThat(GlmFiles.readBlocks(List.of("\uFEFF1", "1", "2", "2"), "blocks.txt"))
        .isDeepEqualTo(new int[][] {{1}, {1}, {2}, {2}});
  }

  @Test
  void demeanMatchesByNameFirst() {
    GlmDemean.Demeaned d = GlmDemean.design(design("intercept", "group", "age"),
        csv("age,group", "1,0"));
    assertThat(d.design().names()).containsExactly("group", "age");
    assertThat(d.contrasts().t()[0]).containsExactly(0, 1);
  }

  @Test
  void anIllConditionedDesignIsNamedSo() {
    for (double scale : new double[] {1e50, 1e140}) {
      double[][] m = design("intercept", "group", "age").values();
      for (double[] row : m) {
        row[2] *= scale;
      }
      GlmDesign d = new GlmDesign(m, new String[] {"intercept", "group", "age"}, "design.csv");
      assertThatThrownBy(() -> GlmModel.prepare(d, csv("group", "1"), N))
          .isInstanceOf(InvalidInputException.class)
          .hasMessageContaining("is ill-conditioned (column 'age' is about")
          .hasMessageContaining("rescale that column");
    }
  }
}
