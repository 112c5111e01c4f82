package org.nlspark.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.awt.Color;
import java.awt.image.BufferedImage;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.surface.SurfaceMesh;

/** The mesh views: hemispheres told apart, the nearer triangle drawn over the farther. */
class SurfaceViewsTest {

  /**
   * Two squares facing x, one behind the other: at x = x0 (vertices 0-3) and x = x0 + 10
   * (vertices 4-7), both spanning y, z in [-10, 10]; {@code joined}: with a side face between
   * them, one connected part.
   */
  private static SurfaceMesh squares(String name, double x0, boolean joined) {
    double[] xyz = new double[8 * 3];
    double[][] corners = {{-10, -10}, {10, -10}, {10, 10}, {-10, 10}};
    for (int s = 0; s < 2; s++) {
      for (int c = 0; c < 4; c++) {
        int v = 4 * s + c;
        xyz[3 * v] = x0 + 10 * s;
        xyz[3 * v + 1] = corners[c][0];
        xyz[3 * v + 2] = corners[c][1];
      }
    }
    int[] tri = joined ? new int[] {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7, 0, 1, 5, 0, 5, 4}
        : new int[] {0, 1, 2, 0, 2, 3, 4, 5, 6, 4, 6, 7};
    return new SurfaceMesh(name, xyz, tri);
  }

  @Test
  void theNearerSquareHidesTheFartherFromEitherSide() {
    SurfaceMesh mesh = squares("two squares", -40, false);
    double[] values = new double[8];
    java.util.Arrays.fill(values, 0, 4, 5.0); // the square at x = -40: warm
    java.util.Arrays.fill(values, 4, 8, -5.0); // the one at x = -30: cool
    int[] all = {1, 1, 1, 1, 1, 1, 1, 1};
    BufferedImage fromLeft = SurfaceViews.render(mesh, all, values, 0, 5, -1, "from -x");
    BufferedImage fromRight = SurfaceViews.render(mesh, all, values, 0, 5, 1, "from +x");
    Color left = new Color(fromLeft.getRGB(SurfaceViews.WIDTH / 2, SurfaceViews.HEIGHT / 2));
    Color right = new Color(fromRight.getRGB(SurfaceViews.WIDTH / 2, SurfaceViews.HEIGHT / 2));
    assertThat(left.getRed()).as("from -x the square at x = -40 is nearer").isGreaterThan(200);
    assertThat(left.getBlue()).isZero();
    assertThat(right.getBlue()).as("from +x the square at x = -30 is nearer").isGreaterThan(200);
    assertThat(right.getRed()).isZero();
  }

  @Test
  void twoDisconnectedPartsAreTwoHemispheresLeftFirstEachWithTwoViews() {
    SurfaceMesh left = squares("l", -60, true);
    SurfaceMesh right = squares("r", 40, true);
    double[] xyz = new double[48];
    int[] tri = new int[36];
    // the right part first in the file: the views still start with the left hemisphere
    for (int i = 0; i < 8; i++) {
      System.arraycopy(right.coordinate(i), 0, xyz, 3 * i, 3);
      System.arraycopy(left.coordinate(i), 0, xyz, 24 + 3 * i, 3);
    }
    int[] t = right.triangleIndices();
    for (int i = 0; i < 18; i++) {
      tri[i] = t[i];
      tri[18 + i] = t[i] + 8;
    }
    SurfaceMesh both = new SurfaceMesh("both", xyz, tri);
    List<int[]> parts = SurfaceViews.hemispheres(both);
    assertThat(parts).hasSize(2);
    assertThat(parts.get(0)[8]).as("the part at negative x is the left").isEqualTo(1);
    assertThat(parts.get(0)[0]).isZero();
    double[] values = new double[16];
    java.util.Arrays.fill(values, Double.NaN);
    List<SurfaceViews.View> views = SurfaceViews.draw(both, values, 0, 1);
    assertThat(views).extracting(SurfaceViews.View::title)
        .containsExactly("left lateral", "left medial", "right lateral", "right medial");
    // nothing shown: grey only
    Color c = new Color(views.get(0).image().getRGB(SurfaceViews.WIDTH / 2,
        SurfaceViews.HEIGHT / 2));
    assertThat(c.getRed()).isEqualTo(c.getGreen()).isEqualTo(c.getBlue()).isLessThan(255);
  }
}
