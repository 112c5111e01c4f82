package org.nlspark.core.tfce;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class MaskGridTest {

  @Test
  void neighboursAreTheInMaskFaceNeighboursInNiftiMaskerOrder() {
    for (long seed = 0; seed < 200; seed++) {
      RandomMaps r = new RandomMaps(seed);
      MaskGrid g = r.grid;
      // voxel numbers: C order over (i, j, k), k fastest, in-mask cells only
      List<Integer> cells = new ArrayList<>();
      for (int c = 0; c < r.mask.length; c++) {
        if (r.mask[c]) {
          cells.add(c);
        }
      }
      assertThat(g.voxels()).isEqualTo(cells.size());
      for (int v = 0; v < g.voxels(); v++) {
        int c = cells.get(v);
        assertThat(g.cellOf(v)).isEqualTo(c);
        int i = c / (r.nj * r.nk);
        int j = c / r.nk % r.nj;
        int k = c % r.nk;
        List<Integer> expected = new ArrayList<>();
        for (int u = 0; u < cells.size(); u++) {
          int d = cells.get(u);
          int di = Math.abs(d / (r.nj * r.nk) - i);
          int dj = Math.abs(d / r.nk % r.nj - j);
          int dk = Math.abs(d % r.nk - k);
          if (di + dj + dk == 1) {
            expected.add(u);
          }
        }
        assertThat(g.neighboursOf(v)).as("seed %d voxel %d", seed, v)
            .containsExactly(expected.stream().mapToInt(Integer::intValue).toArray());
      }
    }
  }

  @Test
  void edgeAndCornerContactsAreNotNeighbours() {
    boolean[] mask = new boolean[8];
    mask[0] = true; // (0,0,0)
    mask[3] = true; // (0,1,1): shares an edge with (0,0,0)
    mask[7] = true; // (1,1,1): shares a corner with (0,0,0)
    MaskGrid g = MaskGrid.of(2, 2, 2, mask);
    assertThat(g.voxels()).isEqualTo(3);
    assertThat(g.neighboursOf(0)).isEmpty();
    assertThat(g.neighboursOf(1)).containsExactly(2); // (0,1,1) and (1,1,1) share a face
  }

  @Test
  void refusesAMaskOfTheWrongLength() {
    assertThatThrownBy(() -> MaskGrid.of(2, 3, 4, new boolean[23]))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot build a TFCE grid: the mask has 23 values, but the grid 2 x 3 x 4"
            + " has 24");
    assertThatThrownBy(() -> MaskGrid.of(0, 3, 4, new boolean[0]))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("grid dimensions must be >= 1, but were: 0 x 3 x 4");
  }

  @Test
  void anEmptyMaskHasNoVoxels() {
    MaskGrid g = MaskGrid.of(2, 2, 2, new boolean[8]);
    assertThat(g.voxels()).isZero();
    assertThat(new Tfce(g).enhance(new double[0], org.nlspark.core.job.Tail.TWO)).isEmpty();
  }
}
