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
import java.util.TreeMap;
import org.nlspark.core.InvalidInputException;

/**
 * Draws of a general linear model (DESIGN §9): row permutations, sign flips or both, free, within
 * exchangeability blocks or of whole blocks. A draw is written as (perm, signs): row p of the
 * drawn data is {@code signs[p] * data[perm[p]]}. Replicate r's draw depends only on (seed, r)
 * (DESIGN §4).
 *
 * <p>Exact enumeration: when all N distinct draws fit in the requested P, replicate r in [0, N)
 * is the r-th of them and replicate 0 is the identity. Distinct permutations are counted as PALM
 * does, on the rows of the contrast's effect part X: two permutations that give the same
 * permuted X are one draw, so a block of m samples whose X rows fall in classes of sizes c_1..
 * contributes m! / prod(c_l!) arrangements, whole blocks count by their X contents, and sign
 * flips count 2^units (units being samples, or blocks with whole-block draws). With
 * {@code both} N is the product. Permutation index and sign index are r / 2^units and r mod
 * 2^units; the permutation index is a mixed-radix number over the blocks, each digit the rank of
 * a multiset permutation, shifted so that digit 0 is the block's original arrangement.
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
  /** Member sample indices of each block, blocks in ascending id order, members ascending. */
  private final int[][] members;
  private final long seed;
  private final long requested;
  private final boolean enumerated;
  private final long replicates;
  /** Sign units: samples, or blocks with whole-block draws. */
  private final int signUnits;
  /** Enumeration only: per permutation unit (block, or the one group of blocks), its labels. */
  private final int[][] unitLabels;
  private final long[] unitCounts;
  private final long[] unitOrigin;
  /** Why these errors were used instead of the ones asked for (null when as asked). */
  private final String errorsReason;

  private GlmDraws(Errors errors, boolean wholeBlocks, int samples, int[][] members, long seed,
      long requested, boolean enumerated, long replicates, int[][] unitLabels, long[] unitCounts,
      long[] unitOrigin) {
    this(errors, wholeBlocks, samples, members, seed, requested, enumerated, replicates,
        unitLabels, unitCounts, unitOrigin, null);
  }

  private GlmDraws(Errors errors, boolean wholeBlocks, int samples, int[][] members, long seed,
      long requested, boolean enumerated, long replicates, int[][] unitLabels, long[] unitCounts,
      long[] unitOrigin, String errorsReason) {
    this.errorsReason = errorsReason;
    this.errors = errors;
    this.wholeBlocks = wholeBlocks;
    this.samples = samples;
    this.members = members;
    this.seed = seed;
    this.requested = requested;
    this.enumerated = enumerated;
    this.replicates = replicates;
    this.signUnits = wholeBlocks ? members.length : samples;
    this.unitLabels = unitLabels;
    this.unitCounts = unitCounts;
    this.unitOrigin = unitOrigin;
  }

  /**
   * Plans the draws.
   *
   * @param blocks one exchangeability block id per sample, or null for one block
   * @param blockSource the blocks' file, for messages
   * @param effect rows of the effect part X (n x r) whose equal rows are not told apart when
   *     counting distinct permutations, or null to count every sample as distinct
   * @param permutations P, the number of random draws requested (>= 1)
   */
  public static GlmDraws plan(Errors errors, int[] blocks, String blockSource,
      boolean wholeBlocks, double[][] effect, int samples, long permutations, long seed) {
    if (permutations < 1) {
      throw new InvalidInputException("--permutations must be >= 1, but was: " + permutations);
    }
    if (blocks != null && blocks.length != samples) {
      throw new InvalidInputException("Cannot use the exchangeability blocks " + blockSource
          + ": they hold " + blocks.length + " values but the data has " + samples
          + " samples; give one block id per sample");
    }
    int[][] members = groupBlocks(blocks, samples);
    if (wholeBlocks && errors.permutes()) { // flipping whole blocks needs no equal sizes
      int size = members[0].length;
      for (int b = 1; b < members.length; b++) {
        if (members[b].length != size) {
          int[] ids = blockIds(blocks, samples);
          throw new InvalidInputException("Cannot permute whole blocks of " + blockSource
              + ": block " + ids[0] + " has " + size + " samples but block " + ids[b] + " has "
              + members[b].length + "; whole-block draws need blocks of equal size (or drop"
              + " --whole-blocks to permute within blocks)");
        }
      }
    }
    int[] labels = effectLabels(effect, samples);
    int[][] unitLabels;
    if (!errors.permutes()) {
      unitLabels = new int[0][];
    } else if (wholeBlocks) {
      unitLabels = new int[][] {blockContentLabels(members, labels)};
    } else {
      unitLabels = new int[members.length][];
      for (int b = 0; b < members.length; b++) {
        unitLabels[b] = new int[members[b].length];
        for (int i = 0; i < members[b].length; i++) {
          unitLabels[b][i] = labels[members[b][i]];
        }
      }
    }
    BigInteger total = BigInteger.ONE;
    long[] counts = new long[unitLabels.length];
    BigInteger limit = BigInteger.valueOf(Math.min(permutations, MAX_ENUMERATED));
    boolean fits = true;
    for (int u = 0; u < unitLabels.length && fits; u++) {
      BigInteger c = multisetPermutations(unitLabels[u]);
      total = total.multiply(c);
      fits = total.compareTo(limit) <= 0;
      counts[u] = fits ? c.longValueExact() : 0;
    }
    if (fits && errors.flips()) {
      int units = wholeBlocks ? members.length : samples;
      total = total.shiftLeft(units);
      fits = total.compareTo(limit) <= 0;
    }
    if (!fits) {
      return new GlmDraws(errors, wholeBlocks, samples, members, seed, permutations, false,
          permutations, null, null, null);
    }
    long[] origin = new long[unitLabels.length];
    for (int u = 0; u < unitLabels.length; u++) {
      origin[u] = rankOf(unitLabels[u], counts[u]);
    }
    return new GlmDraws(errors, wholeBlocks, samples, members, seed, permutations, true,
        total.longValueExact(), unitLabels, counts, origin);
  }

  /**
   * Whether some row permutation (within the blocks, or of whole blocks) changes the effect
   * part X: false when X is constant within every exchangeability block (an intercept, or a
   * block-wise constant regressor; with whole blocks, when every block holds the same X), so that
   * every permutation is the identity draw and permutation p-values are all 1.
   */
  public static boolean permutationsChange(int[] blocks, String blockSource, boolean wholeBlocks,
      double[][] effect, int samples) {
    // One permutation requested: the plan enumerates exactly when there is only the identity.
    return !plan(Errors.EXCHANGEABLE, blocks, blockSource, wholeBlocks, effect, samples, 1, 0)
        .enumerated();
  }

  /** The same draws, recorded as chosen instead of the errors asked for, for {@code reason}. */
  public GlmDraws withErrorsReason(String reason) {
    return new GlmDraws(errors, wholeBlocks, samples, members, seed, requested, enumerated,
        replicates, unitLabels, unitCounts, unitOrigin, reason);
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

  /** Number of exchangeability blocks (1 without a blocks file). */
  public int blocks() {
    return members.length;
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
      if (wholeBlocks) {
        int nb = members.length;
        int[] order = new int[nb];
        for (int b = 0; b < nb; b++) {
          order[b] = b;
        }
        shuffle(order, rng);
        placeBlocks(order, perm);
      } else {
        int[] tmp = new int[samples];
        for (int[] block : members) {
          int m = block.length;
          System.arraycopy(block, 0, tmp, 0, m);
          for (int i = m - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = tmp[i];
            tmp[i] = tmp[j];
            tmp[j] = t;
          }
          for (int i = 0; i < m; i++) {
            perm[block[i]] = tmp[i];
          }
        }
      }
    }
    if (errors.flips()) {
      long bits = 0;
      for (int u = 0; u < signUnits; u++) {
        if ((u & 63) == 0) {
          bits = rng.nextLong(); // 64 fair coin flips per draw of the generator
        }
        applySign(u, ((bits >>> (u & 63)) & 1L) == 0 ? 1.0 : -1.0, signs);
      }
    }
  }

  private static void shuffle(int[] a, SplittableRandom rng) {
    for (int i = a.length - 1; i > 0; i--) {
      int j = rng.nextInt(i + 1);
      int t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /** Destination block d takes the data of block source[d], member by member. */
  private void placeBlocks(int[] source, int[] perm) {
    for (int d = 0; d < members.length; d++) {
      int[] to = members[d];
      int[] from = members[source[d]];
      for (int i = 0; i < to.length; i++) {
        perm[to[i]] = from[i];
      }
    }
  }

  private void applySign(int unit, double sign, double[] signs) {
    if (wholeBlocks) {
      for (int i : members[unit]) {
        signs[i] = sign;
      }
    } else {
      signs[unit] = sign;
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
      long signIndex = index & ((1L << signUnits) - 1);
      index >>>= signUnits;
      for (int u = 0; u < signUnits; u++) {
        if (((signIndex >>> u) & 1L) != 0) {
          applySign(u, -1.0, signs);
        }
      }
    }
    if (!errors.permutes()) {
      return;
    }
    for (int u = 0; u < unitLabels.length; u++) {
      long digit = index % unitCounts[u];
      index /= unitCounts[u];
      long rank = (digit + unitOrigin[u]) % unitCounts[u];
      int[] arrangement = unrank(unitLabels[u], unitCounts[u], rank);
      int[] source = sourcesFor(unitLabels[u], arrangement);
      if (wholeBlocks) {
        placeBlocks(inverse(source), perm);
      } else {
        // The effective design row at position p is X[source[p]]: the data is moved by the
        // inverse, so perm[member[source[p]]] = member[p].
        int[] block = members[u];
        for (int p = 0; p < block.length; p++) {
          perm[block[source[p]]] = block[p];
        }
      }
    }
  }

  private static int[] inverse(int[] s) {
    int[] inv = new int[s.length];
    for (int i = 0; i < s.length; i++) {
      inv[s[i]] = i;
    }
    return inv;
  }

  /** For each position p, an original position holding label arrangement[p], used in order. */
  private static int[] sourcesFor(int[] labels, int[] arrangement) {
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

  /** The rank-th arrangement (lexicographic in label order) of the multiset; total = their number. */
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

  private static int[][] groupBlocks(int[] blocks, int samples) {
    if (blocks == null) {
      int[] all = new int[samples];
      for (int i = 0; i < samples; i++) {
        all[i] = i;
      }
      return new int[][] {all};
    }
    TreeMap<Integer, List<Integer>> byId = new TreeMap<>();
    for (int i = 0; i < samples; i++) {
      byId.computeIfAbsent(blocks[i], x -> new ArrayList<>()).add(i);
    }
    int[][] out = new int[byId.size()][];
    int b = 0;
    for (List<Integer> list : byId.values()) {
      out[b++] = list.stream().mapToInt(Integer::intValue).toArray();
    }
    return out;
  }

  private static int[] blockIds(int[] blocks, int samples) {
    return blocks == null ? new int[] {0}
        : Arrays.stream(blocks).distinct().sorted().toArray();
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

  /** Whole blocks: one label per block, equal for blocks whose effect-label sequences match. */
  private static int[] blockContentLabels(int[][] members, int[] labels) {
    Map<String, Integer> classes = new LinkedHashMap<>();
    int[] out = new int[members.length];
    for (int b = 0; b < members.length; b++) {
      int[] seq = new int[members[b].length];
      for (int i = 0; i < seq.length; i++) {
        seq[i] = labels[members[b][i]];
      }
      out[b] = classes.computeIfAbsent(Arrays.toString(seq), k -> classes.size());
    }
    return out;
  }

  /** For summary.json. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("errors", errors.name().toLowerCase(Locale.ROOT));
    if (errorsReason != null) {
      m.put("errors_reason", errorsReason);
    }
    m.put("exchangeability_blocks", members.length);
    m.put("whole_blocks", wholeBlocks);
    m.put("replicates_drawn", replicates);
    m.put("replicates_requested", requested);
    m.put("exact_enumeration", enumerated);
    return m;
  }
}
