package org.nlspark.core.resample;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

/**
 * Multi-level exchangeability blocks (PALM's -eb) against brute force: every permutation of the
 * samples is tested for membership by a naive reading of the block file (written here, apart
 * from {@link BlockTree}), the distinct draws for the design are counted by hand and by brute
 * force, and the enumerated and random draws must be exactly those.
 */
public class BlockTreeTest {

  /** Three families of two: members shuffled within families (PALM [-1, family, subject]). */
  static final int[][] WITHIN_FAMILIES = rows(
      "-1 1 1", "-1 1 2", "-1 2 1", "-1 2 2", "-1 3 1", "-1 3 2");
  /** The same families shuffled as wholes, members in place: [+1, -family, subject]. */
  static final int[][] WHOLE_FAMILIES = rows(
      "1 -1 1", "1 -1 2", "1 -2 1", "1 -2 2", "1 -3 1", "1 -3 2");
  /** Families shuffled as wholes and members within: [+1, +family, subject]. */
  static final int[][] BOTH_LEVELS = rows(
      "1 1 1", "1 1 2", "1 2 1", "1 2 2", "1 3 1", "1 3 2");
  /**
   * Twins inside families, families kept in place: family 1 holds a twin pair (shuffled
   * between themselves) and a sibling; family 2 three non-twin siblings.
   */
  static final int[][] TWINS = rows(
      "-1 -1 1 1", "-1 -1 1 2", "-1 -1 2 3", "-1 -2 1 4", "-1 -2 1 5", "-1 -2 1 6");
  /** Two families of the same shape (a twin pair and a sibling) shuffled as wholes. */
  static final int[][] TWIN_FAMILIES_WHOLE = rows(
      "1 -1 1 1", "1 -1 1 2", "1 -1 2 3", "1 -2 1 4", "1 -2 1 5", "1 -2 2 6");

  static int[][] rows(String... lines) {
    int[][] out = new int[lines.length][];
    for (int i = 0; i < lines.length; i++) {
      out[i] = Arrays.stream(lines[i].trim().split("\\s+")).mapToInt(Integer::parseInt)
          .toArray();
    }
    return out;
  }

  // ---- the naive reference ----

  /**
   * Whether a draw (row p receives sample perm[p]) respects the blocks: the block of samples
   * {@code from} moves onto the block {@code to} (same level, same shape); at a positive id
   * every sub-block of {@code to} receives exactly one whole sub-block of {@code from}, at a
   * negative id the i-th sub-block receives the i-th, and so on down to the samples.
   */
  public static boolean allowed(int[][] eb, int[] perm, List<Integer> from, List<Integer> to,
      int col) {
    if (col == eb[0].length - 1) {
      return true;
    }
    List<List<Integer>> subFrom = subBlocks(eb, from, col + 1);
    List<List<Integer>> subTo = subBlocks(eb, to, col + 1);
    if (subFrom.size() != subTo.size()) {
      return false;
    }
    boolean positive = eb[to.get(0)][col] > 0;
    Set<Integer> used = new HashSet<>();
    for (int i = 0; i < subTo.size(); i++) {
      Set<Integer> received = new HashSet<>();
      for (int p : subTo.get(i)) {
        received.add(perm[p]);
      }
      int match = -1;
      for (int j = 0; j < subFrom.size(); j++) {
        if ((positive || j == i) && !used.contains(j)
            && received.equals(new HashSet<>(subFrom.get(j)))) {
          match = j;
        }
      }
      if (match < 0 || !allowed(eb, perm, subFrom.get(match), subTo.get(i), col + 1)) {
        return false;
      }
      used.add(match);
    }
    return true;
  }

  static List<List<Integer>> subBlocks(int[][] eb, List<Integer> members, int col) {
    TreeMap<Integer, List<Integer>> byId = new TreeMap<>();
    for (int i : members) {
      byId.computeIfAbsent(eb[i][col], x -> new ArrayList<>()).add(i);
    }
    return new ArrayList<>(byId.values());
  }

  public static List<int[]> allPermutations(int n) {
    List<int[]> out = new ArrayList<>();
    permute(new int[n], new boolean[n], 0, out);
    return out;
  }

  private static void permute(int[] a, boolean[] used, int at, List<int[]> out) {
    if (at == a.length) {
      out.add(a.clone());
      return;
    }
    for (int v = 0; v < a.length; v++) {
      if (!used[v]) {
        used[v] = true;
        a[at] = v;
        permute(a, used, at + 1, out);
        used[v] = false;
      }
    }
  }

  public static List<Integer> everyone(int n) {
    List<Integer> all = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      all.add(i);
    }
    return all;
  }

  /** Which design label each sample is paired with: distinct pairings are distinct draws. */
  public static String pairing(int[] perm, double[] signs, int[] labels) {
    int[] design = new int[perm.length];
    for (int p = 0; p < perm.length; p++) {
      design[perm[p]] = labels[p];
    }
    StringBuilder sb = new StringBuilder(Arrays.toString(design));
    for (double s : signs) {
      sb.append(s > 0 ? '+' : '-');
    }
    return sb.toString();
  }

  /** The distinct pairings of every allowed permutation, by brute force. */
  static Set<String> bruteForce(int[][] eb, int[] labels) {
    int n = eb.length;
    Set<String> out = new HashSet<>();
    double[] ones = new double[n];
    Arrays.fill(ones, 1.0);
    for (int[] perm : allPermutations(n)) {
      if (allowed(eb, perm, everyone(n), everyone(n), 0)) {
        out.add(pairing(perm, ones, labels));
      }
    }
    return out;
  }

  static double[][] effect(int[] labels) {
    double[][] x = new double[labels.length][1];
    for (int i = 0; i < labels.length; i++) {
      x[i][0] = labels[i];
    }
    return x;
  }

  static int[] distinct(int n) {
    int[] l = new int[n];
    for (int i = 0; i < n; i++) {
      l[i] = i;
    }
    return l;
  }

  /** Enumerated draws: allowed, distinct, the identity first, exactly the brute-force set. */
  static void checkEnumerated(int[][] eb, int[] labels, long handCount) {
    int n = eb.length;
    Set<String> expected = bruteForce(eb, labels);
    assertThat(expected).as("brute force").hasSize((int) handCount);
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, eb, "eb.csv", false,
        effect(labels), n, 1_000_000, 3);
    assertThat(d.enumerated()).isTrue();
    assertThat(d.replicates()).isEqualTo(handCount);
    int[] perm = new int[n];
    double[] signs = new double[n];
    Set<String> seen = new HashSet<>();
    for (long r = 0; r < d.replicates(); r++) {
      d.fill(r, perm, signs);
      if (r == 0) {
        assertThat(perm).isEqualTo(distinct(n));
      }
      assertThat(allowed(eb, perm, everyone(n), everyone(n), 0)).as("draw %d", r).isTrue();
      assertThat(seen.add(pairing(perm, signs, labels))).as("draw %d is new", r).isTrue();
    }
    assertThat(seen).isEqualTo(expected);
  }

  @Test
  void countsAndEnumeratesTheTreeAsCountedByHand() {
    // 2 arrangements in each of 3 families
    checkEnumerated(WITHIN_FAMILIES, distinct(6), 8);
    // 3! orders of the families
    checkEnumerated(WHOLE_FAMILIES, distinct(6), 6);
    // 3! orders times 2^3 within
    checkEnumerated(BOTH_LEVELS, distinct(6), 48);
    // family 1: the twins swap (2); family 2: 3! sibling orders
    checkEnumerated(TWINS, distinct(6), 12);
    // 2 family orders times 2 twin orders in each family
    checkEnumerated(TWIN_FAMILIES_WHOLE, distinct(6), 8);
  }

  @Test
  void drawsThatLeaveTheDesignUnchangedAreOneDraw() {
    // Families (a,b), (b,a), (a,a): at [+1, +family, subject] the first two are one class
    // (each can be reversed): 3!/2! family orders times 2 * 2 * 1 within = 12.
    int[] x = {0, 1, 1, 0, 0, 0};
    checkEnumerated(BOTH_LEVELS, x, 12);
    // With members in place the first two families differ (order matters): 3! orders.
    checkEnumerated(WHOLE_FAMILIES, x, 6);
    // Within families only: (a,b) and (b,a) swap, (a,a) does not: 2 * 2 * 1.
    checkEnumerated(WITHIN_FAMILIES, x, 4);
    // Twins: family 2's three siblings a, a, b: 3 orders; the twins (a, b): 2.
    checkEnumerated(TWINS, new int[] {0, 1, 1, 0, 0, 1}, 6);
    // A design constant within families: nothing at [-1, family, subject] changes it.
    assertThat(GlmDraws.permutationsChange(WITHIN_FAMILIES, "eb.csv", false,
        effect(new int[] {0, 0, 1, 1, 2, 2}), 6)).isFalse();
    assertThat(GlmDraws.permutationsChange(WHOLE_FAMILIES, "eb.csv", false,
        effect(new int[] {0, 0, 1, 1, 2, 2}), 6)).isTrue();
  }

  @Test
  void randomDrawsAreUniformOverTheTree() {
    int n = 6;
    int[] labels = distinct(n);
    for (int[][] eb : List.of(BOTH_LEVELS, TWINS, TWIN_FAMILIES_WHOLE)) {
      Set<String> expected = bruteForce(eb, labels);
      // Random draws are taken when there are more distinct draws than requested: the tree's
      // sampler, drawn here directly on a tree small enough to see every outcome.
      BlockTree tree = BlockTree.fromLevels(eb, "eb.csv");
      java.util.SplittableRandom rng = new java.util.SplittableRandom(5);
      Map<String, Integer> hits = new HashMap<>();
      int[] perm = new int[n];
      double[] signs = new double[n];
      Arrays.fill(signs, 1.0);
      for (long r = 0; r < expected.size() * 200L; r++) {
        tree.randomPermutation(rng, perm);
        assertThat(allowed(eb, perm, everyone(n), everyone(n), 0)).isTrue();
        hits.merge(pairing(perm, signs, labels), 1, Integer::sum);
      }
      assertThat(hits.keySet()).isEqualTo(expected);
      // about 200 each: a binomial sd of about 14, so 100..300 is far outside chance
      assertThat(hits.values()).allSatisfy(h -> assertThat(h).isBetween(100, 300));
    }
  }

  /** The sign-flip units: the children of the highest positive block, else the samples. */
  static Set<Set<Integer>> units(int[][] eb) {
    Set<Set<Integer>> out = new HashSet<>();
    for (int[] u : BlockTree.fromLevels(eb, "eb.csv").flipUnits) {
      Set<Integer> s = new HashSet<>();
      for (int i : u) {
        s.add(i);
      }
      out.add(s);
    }
    return out;
  }

  @Test
  void signFlipsFollowPalmsTree() {
    assertThat(units(WITHIN_FAMILIES)).isEqualTo(Set.of(Set.of(0), Set.of(1), Set.of(2),
        Set.of(3), Set.of(4), Set.of(5)));
    Set<Set<Integer>> families = Set.of(Set.of(0, 1), Set.of(2, 3), Set.of(4, 5));
    assertThat(units(WHOLE_FAMILIES)).isEqualTo(families);
    assertThat(units(BOTH_LEVELS)).isEqualTo(families);
    assertThat(units(TWINS)).hasSize(6);
    assertThat(units(TWIN_FAMILIES_WHOLE)).isEqualTo(Set.of(Set.of(0, 1, 2), Set.of(3, 4, 5)));
    // Flips enumerate 2^units, one sign per unit; with permutations, the product.
    GlmDraws flips = GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, WHOLE_FAMILIES, "eb.csv", false,
        null, 6, 1000, 1);
    assertThat(flips.replicates()).isEqualTo(8);
    GlmDraws both = GlmDraws.plan(GlmDraws.Errors.BOTH, WHOLE_FAMILIES, "eb.csv", false,
        effect(distinct(6)), 6, 1000, 1);
    assertThat(both.replicates()).isEqualTo(48);
    int[] perm = new int[6];
    double[] signs = new double[6];
    Set<String> seen = new HashSet<>();
    for (long r = 0; r < 48; r++) {
      both.fill(r, perm, signs);
      assertThat(signs[0]).isEqualTo(signs[1]);
      assertThat(signs[2]).isEqualTo(signs[3]);
      assertThat(signs[4]).isEqualTo(signs[5]);
      assertThat(seen.add(pairing(perm, signs, distinct(6)))).isTrue();
    }
  }

  /** Equal group ids where {@code expected} has them (only the partition counts, not ids). */
  static void samePartition(int[] got, int[] expected) {
    for (int i = 0; i < got.length; i++) {
      for (int j = 0; j < got.length; j++) {
        assertThat(got[i] == got[j]).as("samples %d and %d", i, j)
            .isEqualTo(expected[i] == expected[j]);
      }
    }
  }

  @Test
  void autoVarianceGroupsAreThoseOfPalmsTree() {
    // members shuffled within families: one group per family
    samePartition(BlockTree.fromLevels(WITHIN_FAMILIES, "eb").varianceGroups(),
        new int[] {0, 0, 1, 1, 2, 2});
    // whole families, members in place: a group per position in the family
    samePartition(BlockTree.fromLevels(WHOLE_FAMILIES, "eb").varianceGroups(),
        new int[] {0, 1, 0, 1, 0, 1});
    // families and members both shuffled: everyone exchangeable, one group
    samePartition(BlockTree.fromLevels(BOTH_LEVELS, "eb").varianceGroups(), new int[6]);
    // twins: the pair, the sibling, family 2's siblings
    samePartition(BlockTree.fromLevels(TWINS, "eb").varianceGroups(),
        new int[] {0, 0, 1, 2, 2, 2});
    // whole families of a twin pair and a sibling: twins one group, siblings another
    samePartition(BlockTree.fromLevels(TWIN_FAMILIES_WHOLE, "eb").varianceGroups(),
        new int[] {0, 0, 1, 0, 0, 1});
    assertThat(GlmDraws.autoVarianceGroups(null, "", false, 4)).containsExactly(0, 0, 0, 0);
  }

  @Test
  void aRepeatedLastColumnKeepsItsSamplesTogetherAsPalmDoes() {
    // [+1, family]: the last column repeats, so (PALM's fixleaves) each family keeps its
    // members in place and a column of sample numbers is added: 2 family orders.
    int[][] eb = rows("1 1", "1 1", "1 2", "1 2");
    BlockTree t = BlockTree.fromLevels(eb, "eb.csv");
    assertThat(t.leavesAdded).isTrue();
    assertThat(t.levels).isEqualTo(3);
    GlmDraws d = GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, eb, "eb.csv", false,
        effect(distinct(4)), 4, 100, 1);
    assertThat(d.replicates()).isEqualTo(2);
    assertThat(d.toMap()).containsEntry("exchangeability_levels", 3)
        .containsEntry("exchangeability_leaf_column_added", true)
        .containsEntry("exchangeability_blocks", 2).containsEntry("draws_possible", 2L);
  }

  @Test
  void refusesTreesThatCannotBeBuilt() {
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE,
        rows("-1 1 1", "1 1 2"), "eb.csv", false, null, 2, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use the exchangeability blocks eb.csv: the first column holds -1 for"
            + " sample 1 but 1 for sample 2; the first level is the whole sample, one value for"
            + " all (-1 keeps its blocks in place, 1 shuffles them as wholes)");
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE,
        rows("-1 0 1", "-1 0 2"), "eb.csv", false, null, 2, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot use the exchangeability blocks eb.csv: sample 1 has"
            + " block id 0 at level 2; ids must be non-zero");
    // whole-block families of different sizes
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE,
        rows("1 -1 1", "1 -1 2", "1 -2 3"), "eb.csv", false, null, 3, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use the exchangeability blocks eb.csv: the block of samples 1, 2,"
            + " 3 at level 1 has a positive id, so its sub-blocks are shuffled as wholes, but"
            + " the sub-block of samples 1, 2 has 2 samples where sample 3 has 1; give"
            + " whole-block sub-blocks the same shape, or the block a negative id to keep them"
            + " in place");
    // same sizes, but one family's members are shuffled and the other's are not
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE,
        rows("1 -1 1", "1 -1 2", "1 2 3", "1 2 4"), "eb.csv", false, null, 4, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the sub-block of samples 3, 4 is shaped differently (levels or"
            + " signs) from samples 1, 2");
    // ... which sign flips alone do not need
    assertThat(GlmDraws.plan(GlmDraws.Errors.SYMMETRIC, rows("1 -1 1", "1 -1 2", "1 -2 3"),
        "eb.csv", false, null, 3, 10, 1).replicates()).isEqualTo(4);
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, WITHIN_FAMILIES,
        "eb.csv", true, null, 6, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use --whole-blocks with the multi-level exchangeability blocks"
            + " eb.csv: there the sign of each block id says whether its sub-blocks move as"
            + " wholes (+) or stay in place (-); drop --whole-blocks");
    assertThatThrownBy(() -> GlmDraws.plan(GlmDraws.Errors.EXCHANGEABLE, WITHIN_FAMILIES,
        "eb.csv", false, null, 7, 10, 1))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot use the exchangeability blocks eb.csv: they hold 6 rows but the"
            + " data has 7 samples; give one row of block ids per sample");
  }
}
