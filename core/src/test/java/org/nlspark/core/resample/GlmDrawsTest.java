package org.nlspark.core.resample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class GlmDrawsTest {
  private static final int[] BLOCKS = {2, 2, 1, 1, 1, 3, 3, 3, 3, 2}; // unequal, interleaved

  /** One block id per sample as the one-column table plan takes. */
  static int[][] col(int[] ids) {
    return org.nlspark.core.glm.GlmRun.Options.oneColumn(ids);
  }

  private static double[][] column(double... x) {
    double[][] out = new double[x.length][1];
    for (int i = 0; i < x.length; i++) {
      out[i][0] = x[i];
    }
    return out;
  }

  @Test
  void withinBlockPermutationsKeepEverySampleInItsBlock() {
    int n = BLOCKS.length;
    for (GlmDraws.Errors e : new GlmDraws.Errors[] {GlmDraws.Errors.EXCHANGEABLE,
        GlmDraws.Errors.BOTH}) {
      GlmDraws d = GlmDraws.plan(e, col(BLOCKS), "blocks.txt", false, null, n, 200, 4);
      assertThat(d.enumerated()).isFalse();
      int[] perm = new int[n];
      double[] signs = new double[n];
      boolean moved = false;
      for (long r = 0; r < 200; r++) {
        d.fill(r, perm, signs);
        assertThat(Arrays.stream(perm).sorted().toArray()).isEqualTo(
            java.util.stream.IntStream.range(0, n).toArray());
        for (int p = 0; p < n; p++) {
          assertThat(BLOCKS[perm[p]]).isEqualTo(BLOCKS[p]);
          assertThat(Math.abs(signs[p])).isEqualTo(1.0);
          moved |= perm[p] != p;
        }
      }
      assertThat(moved).isTrue();
    }
  }

  @Test
  void wholeBlockPermutationsMoveBlocksIntactWithOneSignPerBlock() {
    int[] blocks = {5, 5, 5, 7, 7, 7, 1, 1, 1, 9, 9, 9};
    int n = blocks.length;
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.BOTH, col(blocks), "blocks.txt", true, null, n,
        300, 8);
    assertThat(d.enumerated()).isFalse();
    int[] perm = new int[n];
    double[] signs = new double[n];
    Set<String> orders = new HashSet<>();
    for (long r = 0; r < 300; r++) {
      d.fill(r, perm, signs);
      StringBuilder order = new StringBuilder();
      for (int start = 0; start < n; start += 3) {
        // destination block: consecutive members read consecutive members of one source block
        int src = perm[start];
        assertThat(perm[start + 1]).isEqualTo(src + 1);
        assertThat(perm[start + 2]).isEqualTo(src + 2);
        assertThat(src % 3).isZero();
        assertThat(signs[start + 1]).isEqualTo(signs[start]);
        assertThat(signs[start + 2]).isEqualTo(signs[start]);
        order.append(blocks[src]).append(signs[start] > 0 ? '+' : '-');
      }
      orders.add(order.toString());
    }
    assertThat(orders.size()).isGreaterThan(100); // of 4! * 2^4 = 384 (> P: sampled)
  }

  @Test
  void drawsDependOnlyOnSeedAndReplicate() {
    int n = BLOCKS.length;
    GlmDraws a = GlmDraws.plan(GlmDraws.Errors.BOTH, col(BLOCKS), "b", false, null, n, 1000, 99);
    GlmDraws b = GlmDraws.plan(GlmDraws.Errors.BOTH, col(BLOCKS), "b", false, null, n, 1000, 99);
    int[] pa = new int[n];
    int[] pb = new int[n];
    double[] sa = new double[n];
    double[] sb = new double[n];
    for (long r : new long[] {999, 3, 500, 3}) {
      a.fill(r, pa, sa);
      b.fill(r, pb, sb);
      assertThat(pa).isEqualTo(pb);
      assertThat(sa).isEqualTo(sb);
    }
    GlmDraws other = GlmDraws.plan(GlmDraws.Errors.BOTH, col(BLOCKS), "b", false, null, n, 1000, 98);
    other.fill(3, pb, sb);
    a.fill(3, pa, sa);
    assertThat(Arrays.equals(pa, pb) && Arrays.equals(sa, sb)).isFalse();
  }

  /** The effective design row at p is X[perm^-1(p)]; its label sequence names the draw. */
  private static String effective(int[] perm, double[] signs, int[] labels) {
    int n = perm.length;
    int[] design = new int[n];
    for (int p = 0; p < n; p++) {
      design[perm[p]] = labels[p];
    }
    StringBuilder sb = new StringBuilder(Arrays.toString(design));
    for (double s : signs) {
      sb.append(s > 0 ? '+' : '-');
    }
    return sb.toString();
  }

  private static void checkEnumeration(GlmDraws d, int[] labels, long expected, int[] blocks,
      boolean whole) {
    int n = labels.length;
    assertThat(d.enumerated()).isTrue();
    assertThat(d.replicates()).isEqualTo(expected);
    int[] perm = new int[n];
    double[] signs = new double[n];
    Set<String> seen = new HashSet<>();
    for (long r = 0; r < expected; r++) {
      d.fill(r, perm, signs);
      if (r == 0) {
        for (int p = 0; p < n; p++) {
          assertThat(perm[p]).isEqualTo(p);
          assertThat(signs[p]).isEqualTo(1.0);
        }
      }
      for (int p = 0; p < n; p++) {
        if (blocks != null && !whole) {
          assertThat(blocks[perm[p]]).isEqualTo(blocks[p]);
        }
      }
      assertThat(seen.add(effective(perm, signs, labels))).as("draw %d is new", r).isTrue();
    }
  }

  @Test
  void enumeratesDistinctPermutationsOfTheEffectRows() {
    double[][] x = column(1, 1, 2, 2, 2, 3); // classes of sizes 2, 3, 1: 6! / (2! 3!) = 60
    int[] labels = {0, 0, 1, 1, 1, 2};
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, x, 6, 60, 1);
    checkEnumeration(d, labels, 60, null, false);
    assertThat(GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, x, 6, 59, 1)
        .enumerated()).isFalse();
    // The original order is not the lexicographically first: identity still at replicate 0.
    double[][] y = column(3, 1, 2, 1, 2, 2);
    checkEnumeration(GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, null, "", false, y, 6, 100, 1),
        new int[] {0, 1, 2, 1, 2, 2}, 60, null, false);
  }

  @Test
  void enumeratesWithinBlocksAsAProduct() {
    int[] blocks = {1, 2, 1, 2, 1, 2, 1};
    double[][] x = column(5, 5, 6, 5, 5, 7, 8);
    // block 1 = samples 0,2,4,6 with values 5,6,5,8: 4!/2! = 12; block 2 = 1,3,5: 5,5,7: 3
    int[] labels = {0, 0, 1, 0, 0, 2, 3};
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, col(blocks), "", false, x, 7, 1000, 1);
    checkEnumeration(d, labels, 36, blocks, false);
    GlmDraws both = GlmDraws.plan(GlmDraws.Errors.BOTH, col(blocks), "", false, x, 7, 36 * 128, 1);
    checkEnumeration(both, labels, 36 * 128, blocks, false);
  }

  @Test
  void enumeratesWholeBlocksByTheirContents() {
    int[] blocks = {0, 0, 1, 1, 2, 2, 3, 3};
    double[][] x = column(1, 2, 1, 2, 3, 4, 1, 3);
    // contents (1,2), (1,2), (3,4), (1,3): 4! / 2! = 12 arrangements
    int[] labels = {0, 1, 0, 1, 2, 3, 0, 2};
    checkEnumeration(GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, col(blocks), "", true, x, 8,
        12, 1), labels, 12, blocks, true);
    checkEnumeration(GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, col(blocks), "", true, x, 8, 16, 1),
        labels, 16, blocks, true);
  }

  @Test
  void signFlipsEnumerateAllSubsets() {
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, null, "", false, null, 5, 32, 1);
    checkEnumeration(d, new int[] {0, 1, 2, 3, 4}, 32, null, false);
    int[] perm = new int[5];
    double[] signs = new double[5];
    d.fill(0b10110, perm, signs);
    assertThat(signs).containsExactly(1, -1, -1, 1, -1);
    assertThat(GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, null, "", false, null, 5, 31, 1)
        .enumerated()).isFalse();
  }

  @Test
  void rankAndUnrankAreInverse() {
    int[] labels = {2, 0, 1, 0, 2, 2};
    long total = GlmDraws.multisetPermutations(labels).longValueExact();
    assertThat(total).isEqualTo(60);
    Set<String> all = new HashSet<>();
    for (long r = 0; r < total; r++) {
      int[] a = GlmDraws.unrank(labels, total, r);
      assertThat(GlmDraws.rankOf(a, total)).isEqualTo(r);
      all.add(Arrays.toString(a));
    }
    assertThat(all).hasSize(60);
  }

  @Test
  void refusals() {
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, col(BLOCKS), "grp.txt",
        true, null, BLOCKS.length, 100, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot permute whole blocks of grp.txt: block 1 has 3 samples but block 3"
            + " has 4; whole-block draws need blocks of equal size (or drop --whole-blocks to"
            + " permute within blocks)");
    // Sign flips of whole blocks need no equal sizes: one sign per block.
    GlmDraws flips = GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, col(BLOCKS), "grp.txt", true, null,
        BLOCKS.length, 100, 1);
    assertThat(flips.enumerated()).isTrue();
    assertThat(flips.replicates()).isEqualTo(8);
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, col(BLOCKS), "grp.txt",
        false, null, 12, 100, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use the exchangeability blocks grp.txt: they hold 10 rows but the"
            + " data has 12 samples; give one row of block ids per sample");
    assertThatThrownBy(() -> GlmDraws.Errors.parse("flip"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--errors must be one of exchangeable, symmetric, both, but was: 'flip'");
    assertThat(GlmDraws.Errors.parse(" Both ")).isEqualTo(GlmDraws.Errors.BOTH);
  }
}
