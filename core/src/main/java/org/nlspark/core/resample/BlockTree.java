package org.nlspark.core.resample;

import java.io.Serializable;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.nlspark.core.InvalidInputException;

/**
 * Multi-level exchangeability blocks as a permutation tree (DESIGN §9; PALM's {@code -eb},
 * Winkler et al. 2015, "Multi-level block permutation"). Every node is a block; a positive node
 * shuffles its children as whole blocks (they must have the same shape), a negative node keeps
 * them in place; the leaves are the samples. A node's own permutations compose with those of its
 * descendants, so the draws of the tree form a group.
 *
 * <p>Sign flips follow PALM's tree: the children of the highest positive node on each path are
 * flipped as wholes; on a path with no positive node the samples are flipped one by one (but not
 * the children of a negative root, which PALM leaves unflipped).
 *
 * <p>Counting is by the orbit of the effect rows: two draws that give the same permuted effect
 * part are one draw. A block's orbit is named by a canonical form (a negative block: its
 * children's forms in order; a positive block: their sorted multiset), and a positive block of
 * k children in classes of sizes c_1.. contributes k! / prod(c_l!) arrangements times its
 * children's own counts.
 */
final class BlockTree implements Serializable {
  private static final long serialVersionUID = 1L;

  /** A block (children non-null) or a sample (a leaf, {@code sample >= 0}). */
  static final class Node implements Serializable {
    private static final long serialVersionUID = 1L;
    final boolean positive;
    final Node[] children;
    final int sample;
    /** The samples below, in tree order. */
    final int[] leaves;

    Node(boolean positive, Node[] children) {
      this.positive = positive;
      this.children = children;
      this.sample = -1;
      this.leaves = Arrays.stream(children).flatMapToInt(c -> Arrays.stream(c.leaves)).toArray();
    }

    Node(int sample) {
      this.positive = false;
      this.children = null;
      this.sample = sample;
      this.leaves = new int[] {sample};
    }

    boolean leaf() {
      return children == null;
    }

    /** Tree shape with signs: what two whole-block siblings must share. */
    String shape() {
      if (leaf()) {
        return ".";
      }
      // One child moves with its block either way: its sign says nothing.
      StringBuilder sb = new StringBuilder(children.length == 1 ? "(" : positive ? "+(" : "-(");
      for (Node c : children) {
        sb.append(c.shape());
      }
      return sb.append(')').toString();
    }
  }

  final Node root;
  final int samples;
  /** Columns of the block file (PALM's added leaf column included); 0 without blocks. */
  final int levels;
  /** Whether a column of sample numbers was added because the last column repeated an id. */
  final boolean leavesAdded;
  /** Sign units (one sign each): their samples. */
  final int[][] flipUnits;

  private BlockTree(Node root, int samples, int levels, boolean leavesAdded) {
    this.root = root;
    this.samples = samples;
    this.levels = levels;
    this.leavesAdded = leavesAdded;
    List<Node> units = new ArrayList<>();
    collectFlipUnits(root, true, units);
    // Blocks in tree order, then single samples in sample order: the order of the one-level
    // draws (whole blocks by id, samples by index), so that their bits did not change.
    List<int[]> blocks = new ArrayList<>();
    units.stream().filter(u -> !u.leaf()).forEach(u -> blocks.add(u.leaves));
    units.stream().filter(Node::leaf).mapToInt(u -> u.sample).sorted()
        .forEach(i -> blocks.add(new int[] {i}));
    this.flipUnits = blocks.toArray(new int[0][]);
  }

  /**
   * One column of block ids, as PALM reads it: within blocks is the tree [-1, +block, sample],
   * whole blocks [+1, -block, sample]; without blocks, one block.
   */
  static BlockTree singleLevel(int[] blocks, int samples, boolean whole) {
    TreeMap<Integer, List<Node>> byId = new TreeMap<>();
    for (int i = 0; i < samples; i++) {
      byId.computeIfAbsent(blocks == null ? 0 : blocks[i], x -> new ArrayList<>())
          .add(new Node(i));
    }
    Node[] blockNodes = byId.values().stream()
        .map(members -> new Node(!whole, members.toArray(new Node[0]))).toArray(Node[]::new);
    int levels = blocks == null ? 0 : 1;
    return new BlockTree(new Node(whole, blockNodes), samples, levels, false);
  }

  /**
   * PALM's multi-level block file: one row per sample, one column per level, the first column
   * one value for all, the sign of an id saying how its sub-blocks move. When the last column
   * repeats an id inside its parent, PALM's rule ("fixleaves") applies: the repeated ids become
   * blocks whose samples stay in place, and a column of sample numbers is added.
   */
  static BlockTree fromLevels(int[][] rows, String source) {
    int n = rows.length;
    int width = rows[0].length;
    for (int i = 0; i < n; i++) {
      if (rows[i].length != width) {
        throw new InvalidInputException("Cannot use the exchangeability blocks " + source
            + ": sample " + (i + 1) + " has " + rows[i].length + " levels but sample 1 has "
            + width + "; give every sample a value at every level");
      }
      for (int l = 0; l < width; l++) {
        if (rows[i][l] == 0) {
          throw new InvalidInputException("Cannot use the exchangeability blocks " + source
              + ": sample " + (i + 1) + " has block id 0 at level " + (l + 1) + "; ids must be"
              + " non-zero, their sign saying whether the sub-blocks are shuffled as wholes (+)"
              + " or stay in place (-)");
        }
      }
      if (rows[i][0] != rows[0][0]) {
        throw new InvalidInputException("Cannot use the exchangeability blocks " + source
            + ": the first column holds " + rows[0][0] + " for sample 1 but " + rows[i][0]
            + " for sample " + (i + 1) + "; the first level is the whole sample, one value"
            + " for all (-1 keeps its blocks in place, 1 shuffles them as wholes)");
      }
    }
    int[] all = new int[n];
    for (int i = 0; i < n; i++) {
      all[i] = i;
    }
    boolean repeated = lastLevelRepeats(rows, all, 0, width);
    int[][] levels = rows;
    if (repeated) {
      levels = new int[n][];
      for (int i = 0; i < n; i++) {
        levels[i] = Arrays.copyOf(rows[i], width + 1);
        levels[i][width] = i + 1;
      }
    }
    Node root = build(levels, all, 0, repeated ? width + 1 : width, repeated);
    return new BlockTree(root, n, levels[0].length, repeated);
  }

  /** Whether, inside its parent, an id of the last column is held by more than one sample. */
  private static boolean lastLevelRepeats(int[][] rows, int[] members, int col, int width) {
    for (int[] group : groups(rows, members, col + 1).values()) {
      if (col + 1 == width - 1 ? group.length > 1
          : lastLevelRepeats(rows, group, col + 1, width)) {
        return true;
      }
    }
    return false;
  }

  private static TreeMap<Integer, int[]> groups(int[][] rows, int[] members, int col) {
    TreeMap<Integer, List<Integer>> byId = new TreeMap<>();
    for (int i : members) {
      byId.computeIfAbsent(rows[i][col], x -> new ArrayList<>()).add(i);
    }
    TreeMap<Integer, int[]> out = new TreeMap<>();
    byId.forEach((id, list) -> out.put(id, list.stream().mapToInt(Integer::intValue).toArray()));
    return out;
  }

  /** The node of the block holding {@code members} at column {@code col}. */
  private static Node build(int[][] rows, int[] members, int col, int width, boolean fixLeaves) {
    if (col == width - 1) {
      return new Node(members[0]);
    }
    // PALM's fixleaves: a repeated id of the original last column keeps its samples in place.
    boolean positive = rows[members[0]][col] > 0
        && !(fixLeaves && col == width - 2 && members.length > 1);
    List<Node> children = new ArrayList<>();
    for (int[] group : groups(rows, members, col + 1).values()) {
      children.add(build(rows, group, col + 1, width, fixLeaves));
    }
    return new Node(positive, children.toArray(new Node[0]));
  }

  /**
   * Refuses a positive block whose sub-blocks differ in shape (size, levels or signs): they
   * cannot be exchanged as wholes.
   */
  void checkWholeBlocks(String source) {
    checkWholeBlocks(root, 1, source);
  }

  private static void checkWholeBlocks(Node node, int level, String source) {
    if (node.leaf()) {
      return;
    }
    if (node.positive) {
      Node first = node.children[0];
      String shape = first.shape();
      for (Node c : node.children) {
        if (!c.shape().equals(shape)) {
          String what = c.leaves.length != first.leaves.length
              ? "has " + c.leaves.length + " samples where " + samplesOf(first) + " has "
                  + first.leaves.length
              : "is shaped differently (levels or signs) from " + samplesOf(first);
          throw new InvalidInputException("Cannot use the exchangeability blocks " + source
              + ": the block of " + samplesOf(node) + " at level " + level + " has a positive"
              + " id, so its sub-blocks are shuffled as wholes, but the sub-block of "
              + samplesOf(c) + " " + what + "; give whole-block sub-blocks the same shape, or"
              + " the block a negative id to keep them in place");
        }
      }
    }
    for (Node c : node.children) {
      checkWholeBlocks(c, level + 1, source);
    }
  }

  /** "samples 3, 4, 7" (1-based, at most 6 named). */
  private static String samplesOf(Node node) {
    int[] s = Arrays.stream(node.leaves).sorted().toArray();
    StringBuilder sb = new StringBuilder(s.length == 1 ? "sample " : "samples ");
    for (int i = 0; i < Math.min(s.length, 6); i++) {
      sb.append(i == 0 ? "" : ", ").append(s[i] + 1);
    }
    return sb.append(s.length > 6 ? ", …" : "").toString();
  }

  private static void collectFlipUnits(Node node, boolean isRoot, List<Node> out) {
    if (node.leaf()) {
      return;
    }
    if (node.positive) {
      out.addAll(Arrays.asList(node.children));
    } else if (node.children[0].leaf()) {
      if (!isRoot) {
        out.addAll(Arrays.asList(node.children));
      }
    } else {
      for (Node c : node.children) {
        collectFlipUnits(c, false, out);
      }
    }
  }

  /**
   * PALM's {@code -vg auto} (palm_ptree2vg): samples that may be exchanged share a variance
   * group. Below a negative block each sub-block has groups of its own; the sub-blocks of a
   * positive block repeat the first one's groups; samples that a positive block shuffles are
   * one group, samples kept in place one group each. One group id per sample.
   */
  int[] varianceGroups() {
    int[] inTreeOrder = groupsOf(root, new int[] {0});
    int[] out = new int[samples];
    for (int k = 0; k < inTreeOrder.length; k++) {
      out[root.leaves[k]] = inTreeOrder[k];
    }
    return out;
  }

  private static int[] groupsOf(Node node, int[] next) {
    int[] out = new int[node.leaves.length];
    if (node.children[0].leaf()) {
      int shared = next[0]++;
      for (int k = 0; k < out.length; k++) {
        out[k] = node.positive ? shared : next[0]++;
      }
      return out;
    }
    int at = 0;
    int[] first = node.positive ? groupsOf(node.children[0], next) : null;
    for (Node c : node.children) {
      int[] part = node.positive ? first : groupsOf(c, next);
      System.arraycopy(part, 0, out, at, part.length);
      at += part.length;
    }
    return out;
  }

  /** Blocks at the first level below the whole sample. */
  int topBlocks() {
    return root.children.length;
  }

  // ---- random draws (data side: content[k] is the sample moved to the node's k-th leaf) ----

  /** A uniform draw of the tree's permutations: perm[p] = source sample of row p. */
  void randomPermutation(SplittableRandom rng, int[] perm) {
    int[] content = randomContent(root, rng);
    int[] slots = root.leaves;
    for (int k = 0; k < slots.length; k++) {
      perm[slots[k]] = content[k];
    }
  }

  private static int[] randomContent(Node node, SplittableRandom rng) {
    if (node.leaf()) {
      return node.leaves;
    }
    int m = node.children.length;
    int[] order = new int[m];
    for (int c = 0; c < m; c++) {
      order[c] = c;
    }
    if (node.positive) {
      for (int i = m - 1; i > 0; i--) {
        int j = rng.nextInt(i + 1);
        int t = order[i];
        order[i] = order[j];
        order[j] = t;
      }
    }
    int[] out = new int[node.leaves.length];
    int at = 0;
    for (int d = 0; d < m; d++) {
      int[] part = randomContent(node.children[order[d]], rng);
      System.arraycopy(part, 0, out, at, part.length);
      at += part.length;
    }
    return out;
  }

  // ---- exact enumeration (design side, see Enumeration) ----

  /**
   * Counts and, when they fit {@code limit}, indexes the distinct draws for the effect labels
   * (one label per sample; equal labels are not told apart). Returns null when the count
   * exceeds {@code limit}; {@link #count} gives it then.
   */
  Enumeration enumerate(int[] labels, long limit) {
    Canon canon = new Canon(labels);
    BigInteger total = canon.count(root);
    if (total.compareTo(BigInteger.valueOf(limit)) > 0) {
      return null;
    }
    return new Enumeration(canon, total.longValueExact());
  }

  /** The number of distinct permutations for these effect labels. */
  BigInteger count(int[] labels) {
    return new Canon(labels).count(root);
  }

  /** Orbit names and counts of the nodes for one labelling of the samples. */
  private static final class Canon implements Serializable {
    private static final long serialVersionUID = 1L;
    private final int[] labels;
    private final Map<Node, Integer> ids = new HashMap<>();
    private final Map<Node, BigInteger> counts = new HashMap<>();
    private final Map<String, Integer> interned = new HashMap<>();

    Canon(int[] labels) {
      this.labels = labels;
    }

    /** A leaf's id is its effect label; a block's is its interned canonical form. */
    int id(Node node) {
      if (node.leaf()) {
        return labels[node.sample];
      }
      Integer known = ids.get(node);
      if (known != null) {
        return known;
      }
      int[] childIds = childIds(node);
      boolean shuffled = node.positive && childIds.length > 1;
      if (shuffled) {
        Arrays.sort(childIds);
      }
      String form = (shuffled ? "+" : "-") + Arrays.toString(childIds)
          + (node.children[0].leaf() ? "L" : "B");
      int id = interned.computeIfAbsent(form, k -> interned.size());
      ids.put(node, id);
      return id;
    }

    int[] childIds(Node node) {
      int[] out = new int[node.children.length];
      for (int c = 0; c < out.length; c++) {
        out[c] = id(node.children[c]);
      }
      return out;
    }

    BigInteger count(Node node) {
      if (node.leaf()) {
        return BigInteger.ONE;
      }
      BigInteger known = counts.get(node);
      if (known != null) {
        return known;
      }
      BigInteger out = node.positive ? GlmDraws.multisetPermutations(compact(childIds(node)))
          : BigInteger.ONE;
      for (Node c : node.children) {
        out = out.multiply(count(c));
      }
      counts.put(node, out);
      return out;
    }
  }

  /**
   * Labels renumbered 0.. in ascending order (the multiset routines take small labels; the
   * order, and so the lexicographic order of arrangements, is kept).
   */
  static int[] compact(int[] ids) {
    int[] sorted = Arrays.stream(ids).distinct().sorted().toArray();
    int[] out = new int[ids.length];
    for (int i = 0; i < ids.length; i++) {
      out[i] = Arrays.binarySearch(sorted, ids[i]);
    }
    return out;
  }

  /**
   * The distinct draws as a mixed-radix index, draw 0 the identity. A negative block's digits
   * are its children's, in order; a positive block's first digit is the arrangement of its
   * children's classes (a multiset permutation, shifted so that 0 is the original), then one
   * digit per position for the internal draw of the child placed there. The draw is built on
   * the design side (sigma[k]: the sample whose effect row lands on leaf k), which makes
   * distinct indices distinct effect parts; the data move by its inverse.
   */
  final class Enumeration implements Serializable {
    private static final long serialVersionUID = 1L;
    private final Canon canon;
    private final long total;
    /** Per positive block: its children's compact class labels. */
    private final Map<Node, int[]> classes = new HashMap<>();
    /** Per positive block: {arrangements, rank of the original}. */
    private final Map<Node, long[]> arrangement = new HashMap<>();
    /** Per block: its number of distinct draws. */
    private final Map<Node, Long> size = new HashMap<>();

    private Enumeration(Canon canon, long total) {
      this.canon = canon;
      this.total = total;
      index(root);
    }

    private void index(Node node) {
      if (node.leaf()) {
        return;
      }
      size.put(node, canon.count(node).longValueExact());
      if (node.positive) {
        int[] labels = compact(canon.childIds(node));
        long count = GlmDraws.multisetPermutations(labels).longValueExact();
        classes.put(node, labels);
        arrangement.put(node, new long[] {count, GlmDraws.rankOf(labels, count)});
      }
      for (Node c : node.children) {
        index(c);
      }
    }

    long total() {
      return total;
    }

    /** Draw {@code index} in [0, total): perm[p] = source sample of row p. */
    void permutation(long index, int[] perm) {
      int[] sigma = design(root, index);
      int[] slots = root.leaves;
      for (int k = 0; k < slots.length; k++) {
        perm[sigma[k]] = slots[k];
      }
    }

    private int[] design(Node node, long index) {
      if (node.leaf()) {
        return node.leaves;
      }
      int m = node.children.length;
      int[] source = new int[m];
      for (int p = 0; p < m; p++) {
        source[p] = p;
      }
      long rest = index;
      if (node.positive) {
        long[] a = arrangement.get(node);
        int[] labels = classes.get(node);
        long rank = (rest % a[0] + a[1]) % a[0];
        rest /= a[0];
        source = GlmDraws.sourcesFor(labels, GlmDraws.unrank(labels, a[0], rank));
      }
      int[] out = new int[node.leaves.length];
      int at = 0;
      for (int p = 0; p < m; p++) {
        Node from = node.children[source[p]];
        long radix = from.leaf() ? 1 : size.get(from);
        int[] part = design(from, rest % radix);
        rest /= radix;
        System.arraycopy(part, 0, out, at, part.length);
        at += part.length;
      }
      return out;
    }
  }
}
