package org.nlspark.core.resample;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.nlspark.core.InvalidInputException;

/**
 * Draws of a general linear model (DESIGN §9): row permutations, sign flips or both, free, within
 * exchangeability blocks, of whole blocks, or under PALM's multi-level blocks ({@link
 * BlockTree}). A draw is written as (perm, signs): row p of the drawn data is
 * {@code signs[p] * data[perm[p]]}. Replicate r's draw depends only on (seed, r) (DESIGN §4).
 *
 * <p>Exact enumeration: when all N distinct draws fit in the requested P, replicate r in [0, N)
 * is the r-th of them and replicate 0 is the identity. Distinct permutations are counted as PALM
 * does, on the rows of the contrast's effect part X: two permutations that give the same
 * permuted X are one draw (a block of m samples whose X rows fall in classes of sizes c_1..
 * contributes m! / prod(c_l!) arrangements; whole blocks count by their X contents), and sign
 * flips count 2^units (the tree's flip units: samples, or whole blocks). With {@code both} N is
 * the product; the sign index is r mod 2^units and the permutation index r / 2^units, a
 * mixed-radix number over the tree's blocks ({@link BlockTree.Enumeration}).
 */
public final class GlmDraws implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Enumeration is only considered up to this many draws (indices stay exact in a long). */
  static final long MAX_ENUMERATED = 1L << 40;

  /** What may be done to the errors (randomise's -1 / -e / PALM's -ee -ise). */
  public enum Errors {
    EXCHANGEABLE,
    SYMMETRIC,
    BOTH;

    /** Parses {@code --errors}: exchangeable, symmetric or both. */
    public static Errors parse(String s) {
      if (s != null) {
        switch (s.trim().toLowerCase(Locale.ROOT)) {
          case "exchangeable":
            return EXCHANGEABLE;
          case "symmetric":
            return SYMMETRIC;
          case "both":
            return BOTH;
          default:
            break;
        }
      }
      throw new InvalidInputException("--errors must be one of exchangeable, symmetric, both,"
          + " but was: " + (s == null ? "null" : "'" + s + "'"));
    }

    boolean permutes() {
      return this != SYMMETRIC;
    }

    boolean flips() {
      return this != EXCHANGEABLE;
    }
  }

  private final Errors errors;
  private final boolean wholeBlocks;
  private final int samples;
  /** The exchangeability blocks as PALM's tree (one block when none were given). */
  private final BlockTree tree;
  private final long seed;
  private final long requested;
  private final boolean enumerated;
  private final long replicates;
  /** Distinct draws of the tree for the design (with sign flips), when counted exactly. */
  private final BigInteger possible;
  /** Enumeration only: the tree's permutations indexed for these effect rows. */
  private final BlockTree.Enumeration permutations;
  /** Why these errors were used instead of the ones asked for (null when as asked). */
  private final String errorsReason;

  private GlmDraws(Errors errors, boolean wholeBlocks, int samples, BlockTree tree, long seed,
      long requested, boolean enumerated, long replicates, BigInteger possible,
      BlockTree.Enumeration permutations, String errorsReason) {
    this.errors = errors;
    this.wholeBlocks = wholeBlocks;
    this.samples = samples;
    this.tree = tree;
    this.seed = seed;
    this.requested = requested;
    this.enumerated = enumerated;
    this.replicates = replicates;
    this.possible = possible;
    this.permutations = permutations;
    this.errorsReason = errorsReason;
  }

  /**
   * Plans the draws.
   *
   * @param blocks the exchangeability blocks, one row per sample: one column of block ids
   *     (within blocks, or whole blocks with {@code wholeBlocks}), or PALM's multi-level columns
   *     ({@link BlockTree#fromLevels}); null for one block
   * @param blockSource the blocks' file, for messages
   * @param effect rows of the effect part X (n x r) whose equal rows are not told apart when
   *     counting distinct permutations, or null to count every sample as distinct
   * @param permutations P, the number of random draws requested (>= 1)
   */
  public static GlmDraws plan(Errors errors, int[][] blocks, String blockSource,
      boolean wholeBlocks, double[][] effect, int samples, long permutations, long seed) {
    if (permutations < 1) {
      throw new InvalidInputException("--permutations must be >= 1, but was: " + permutations);
    }
    if (blocks != null && blocks.length != samples) {
      throw new InvalidInputException("Cannot use the exchangeability blocks " + blockSource
          + ": they hold " + blocks.length + " rows but the data has " + samples
          + " samples; give one row of block ids per sample");
    }
    BlockTree tree = treeOf(blocks, blockSource, wholeBlocks, samples);
    if (errors.permutes()) { // flips need no equal shapes: one sign per block
      if (tree.levels <= 1 && wholeBlocks) {
        checkEqualBlocks(tree, blocks, blockSource);
      }
      tree.checkWholeBlocks(blockSource);
    }
    int[] labels = effectLabels(effect, samples);
    long limit = Math.min(permutations, MAX_ENUMERATED);
    BigInteger perms = errors.permutes() ? tree.count(labels) : BigInteger.ONE;
    BigInteger possible = perms.shiftLeft(errors.flips() ? tree.flipUnits.length : 0);
    if (possible.compareTo(BigInteger.valueOf(limit)) > 0) {
      return new GlmDraws(errors, wholeBlocks, samples, tree, seed, permutations, false,
          permutations, possible, null, null);
    }
    BlockTree.Enumeration e = errors.permutes() ? tree.enumerate(labels, limit) : null;
    return new GlmDraws(errors, wholeBlocks, samples, tree, seed, permutations, true,
        possible.longValueExact(), possible, e, null);
  }

  private static BlockTree treeOf(int[][] blocks, String source, boolean whole, int samples) {
    if (blocks == null || blocks[0].length == 1) {
      int[] column = blocks == null ? null : new int[samples];
      for (int i = 0; column != null && i < samples; i++) {
        if (blocks[i].length != 1) {
          throw new InvalidInputException("Cannot use the exchangeability blocks " + source
              + ": sample " + (i + 1) + " has " + blocks[i].length + " levels but sample 1"
              + " has 1; give every sample a value at every level");
        }
        column[i] = blocks[i][0];
      }
      return BlockTree.singleLevel(column, samples, whole);
    }
    if (whole) {
      throw new InvalidInputException("Cannot use --whole-blocks with the multi-level"
          + " exchangeability blocks " + source + ": there the sign of each block id says"
          + " whether its sub-blocks move as wholes (+) or stay in place (-); drop"
          + " --whole-blocks");
    }
    return BlockTree.fromLevels(blocks, source);
  }

  /** One column with --whole-blocks: today's message, naming the two block ids. */
  private static void checkEqualBlocks(BlockTree tree, int[][] blocks, String source) {
    BlockTree.Node[] b = tree.root.children;
    for (int i = 1; i < b.length; i++) {
      if (b[i].leaves.length != b[0].leaves.length) {
        int first = blocks == null ? 0 : blocks[b[0].leaves[0]][0];
        throw new InvalidInputException("Cannot permute whole blocks of " + source
            + ": block " + first + " has " + b[0].leaves.length + " samples but block "
            + blocks[b[i].leaves[0]][0] + " has " + b[i].leaves.length + "; whole-block"
            + " draws need blocks of equal size (or drop --whole-blocks to permute within"
            + " blocks)");
      }
    }
  }

  /**
   * Whether some row permutation of the tree changes the effect part X: false when X is
   * constant within every exchangeability block (an intercept, or a block-wise constant
   * regressor; with whole blocks, when every block holds the same X), so that every
   * permutation is the identity draw and permutation p-values are all 1.
   */
  public static boolean permutationsChange(int[][] blocks, String blockSource,
      boolean wholeBlocks, double[][] effect, int samples) {
    return treeOf(blocks, blockSource, wholeBlocks, samples)
        .count(effectLabels(effect, samples)).compareTo(BigInteger.ONE) > 0;
  }

  /**
   * PALM's {@code -vg auto}: variance groups derived from the exchangeability blocks (one
   * group id per sample; all one group without blocks).
   */
  public static int[] autoVarianceGroups(int[][] blocks, String blockSource, boolean whole,
      int samples) {
    if (blocks == null) {
      return new int[samples];
    }
    return treeOf(blocks, blockSource, whole, samples).varianceGroups();
  }

  /** The same draws, recorded as chosen instead of the errors asked for, for {@code reason}. */
  public GlmDraws withErrorsReason(String reason) {
    return new GlmDraws(errors, wholeBlocks, samples, tree, seed, requested, enumerated,
        replicates, possible, permutations, reason);
  }

  /** Why these errors were used instead of the ones asked for, or null. */
  public String errorsReason() {
    return errorsReason;
  }

  /** Draws exactly enumerated (replicate 0 the identity, p = count / N). */
  public boolean enumerated() {
    return enumerated;
  }

  /** Replicates drawn: N when enumerated, else P. */
  public long replicates() {
    return replicates;
  }

  /** Distinct draws the blocks allow for this design (permutations times sign flips). */
  public BigInteger possible() {
    return possible;
  }

  public long requested() {
    return requested;
  }

  public int samples() {
    return samples;
  }

  public Errors errors() {
    return errors;
  }

  public boolean wholeBlocks() {
    return wholeBlocks;
  }

  /** Number of exchangeability blocks at the first level (1 without a blocks file). */
  public int blocks() {
    return tree.topBlocks();
  }

  /** The identity draw (the observed data). */
  public void identity(int[] perm, double[] signs) {
    for (int i = 0; i < samples; i++) {
      perm[i] = i;
      signs[i] = 1.0;
    }
  }

  /** Writes replicate r's draw: row p of the drawn data is signs[p] * data[perm[p]]. */
  public void fill(long replicate, int[] perm, double[] signs) {
    if (enumerated) {
      fillEnumerated(replicate, perm, signs);
    } else {
      fillRandom(replicate, perm, signs);
    }
  }

  private void fillRandom(long replicate, int[] perm, double[] signs) {
    identity(perm, signs);
    SplittableRandom rng = Seeds.forReplicate(seed, replicate);
    if (errors.permutes()) {
      tree.randomPermutation(rng, perm);
    }
    if (errors.flips()) {
      long bits = 0;
      int[][] units = tree.flipUnits;
      for (int u = 0; u < units.length; u++) {
        if ((u & 63) == 0) {
          bits = rng.nextLong(); // 64 fair coin flips per draw of the generator
        }
        if (((bits >>> (u & 63)) & 1L) != 0) {
          flip(units[u], signs);
        }
      }
    }
  }

  private static void flip(int[] unit, double[] signs) {
    for (int i : unit) {
      signs[i] = -1.0;
    }
  }

  private void fillEnumerated(long replicate, int[] perm, double[] signs) {
    if (replicate < 0 || replicate >= replicates) {
      throw new IllegalArgumentException("[BUG] replicate " + replicate + " outside the "
          + replicates + " enumerated draws");
    }
    identity(perm, signs);
    long index = replicate;
    if (errors.flips()) {
      int[][] units = tree.flipUnits;
      long signIndex = index & ((1L << units.length) - 1);
      index >>>= units.length;
      for (int u = 0; u < units.length; u++) {
        if (((signIndex >>> u) & 1L) != 0) {
          flip(units[u], signs);
        }
      }
    }
    if (errors.permutes()) {
      permutations.permutation(index, perm);
    }
  }

  /** For each position p, an original position holding label arrangement[p], used in order. */
  static int[] sourcesFor(int[] labels, int[] arrangement) {
    int classes = 0;
    for (int l : labels) {
      classes = Math.max(classes, l + 1);
    }
    int[][] byLabel = new int[classes][];
    int[] fill = new int[classes];
    int[] size = new int[classes];
    for (int l : labels) {
      size[l]++;
    }
    for (int c = 0; c < classes; c++) {
      byLabel[c] = new int[size[c]];
    }
    for (int i = 0; i < labels.length; i++) {
      byLabel[labels[i]][fill[labels[i]]++] = i;
    }
    Arrays.fill(fill, 0);
    int[] source = new int[labels.length];
    for (int p = 0; p < arrangement.length; p++) {
      int l = arrangement[p];
      source[p] = byLabel[l][fill[l]++];
    }
    return source;
  }

  /** m! / prod(c_l!) for the label multiset. */
  static BigInteger multisetPermutations(int[] labels) {
    int[] counts = labelCounts(labels);
    BigInteger out = BigInteger.ONE;
    int seen = 0;
    for (int c : counts) {
      for (int i = 1; i <= c; i++) {
        seen++;
        out = out.multiply(BigInteger.valueOf(seen)).divide(BigInteger.valueOf(i));
      }
    }
    return out;
  }

  private static int[] labelCounts(int[] labels) {
    int classes = 0;
    for (int l : labels) {
      classes = Math.max(classes, l + 1);
    }
    int[] counts = new int[classes];
    for (int l : labels) {
      counts[l]++;
    }
    return counts;
  }

  /** The rank-th arrangement (lexicographic in label order) of the multiset (total of them). */
  static int[] unrank(int[] labels, long total, long rank) {
    int[] counts = labelCounts(labels);
    int m = labels.length;
    int[] out = new int[m];
    long left = total;
    long r = rank;
    for (int p = 0; p < m; p++) {
      int remaining = m - p;
      for (int l = 0; l < counts.length; l++) {
        if (counts[l] == 0) {
          continue;
        }
        long with = left / remaining * counts[l] + left % remaining * counts[l] / remaining;
        if (r < with) {
          out[p] = l;
          counts[l]--;
          left = with;
          break;
        }
        r -= with;
      }
    }
    return out;
  }

  /** Lexicographic rank of an arrangement of the multiset; total = their number. */
  static long rankOf(int[] arrangement, long total) {
    int[] counts = labelCounts(arrangement);
    int m = arrangement.length;
    long left = total;
    long rank = 0;
    for (int p = 0; p < m; p++) {
      int remaining = m - p;
      for (int l = 0; l < counts.length; l++) {
        if (counts[l] == 0) {
          continue;
        }
        long with = left / remaining * counts[l] + left % remaining * counts[l] / remaining;
        if (l == arrangement[p]) {
          counts[l]--;
          left = with;
          break;
        }
        rank += with;
      }
    }
    return rank;
  }

  /**
   * Class labels of the effect rows, numbered by first appearance; rows equal to within 1e-9
   * relative are one class (X is computed, so equal design rows may differ in the last bits).
   */
  static int[] effectLabels(double[][] effect, int samples) {
    int[] labels = new int[samples];
    if (effect == null) {
      for (int i = 0; i < samples; i++) {
        labels[i] = i;
      }
      return labels;
    }
    double scale = 0.0;
    for (double[] row : effect) {
      for (double x : row) {
        scale = Math.max(scale, Math.abs(x));
      }
    }
    double tol = 1e-9 * Math.max(scale, Double.MIN_NORMAL);
    List<double[]> reps = new ArrayList<>();
    for (int i = 0; i < samples; i++) {
      int found = -1;
      for (int c = 0; c < reps.size() && found < 0; c++) {
        double[] rep = reps.get(c);
        boolean same = true;
        for (int j = 0; j < rep.length && same; j++) {
          same = Math.abs(rep[j] - effect[i][j]) <= tol;
        }
        found = same ? c : -1;
      }
      if (found < 0) {
        found = reps.size();
        reps.add(effect[i]);
      }
      labels[i] = found;
    }
    return labels;
  }

  /** For summary.json. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("errors", errors.name().toLowerCase(Locale.ROOT));
    if (errorsReason != null) {
      m.put("errors_reason", errorsReason);
    }
    m.put("exchangeability_blocks", tree.topBlocks());
    if (tree.levels > 1) {
      m.put("exchangeability_levels", tree.levels);
      m.put("exchangeability_leaf_column_added", tree.leavesAdded);
    }
    m.put("whole_blocks", wholeBlocks);
    m.put("draws_possible", possible.bitLength() < 63 ? (Object) possible.longValueExact()
        : (Object) possible.doubleValue());
    m.put("replicates_drawn", replicates);
    m.put("replicates_requested", requested);
    m.put("exact_enumeration", enumerated);
    return m;
  }
}
