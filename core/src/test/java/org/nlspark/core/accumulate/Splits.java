package org.nlspark.core.accumulate;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.function.BiConsumer;

/** Random partitions and random merge orders for the merge-contract tests. */
final class Splits {
  private Splits() {}

  /** Cut points 0 = c0 < c1 < ... < cm = total into 1..maxParts non-empty parts (or one if total < 2). */
  static int[] cuts(SplittableRandom rnd, int total, int maxParts) {
    int parts = total == 0 ? 1 : 1 + rnd.nextInt(Math.min(maxParts, total));
    java.util.TreeSet<Integer> set = new java.util.TreeSet<>();
    set.add(0);
    set.add(total);
    while (set.size() < parts + 1) {
      set.add(1 + rnd.nextInt(total - 1));
    }
    return set.stream().mapToInt(Integer::intValue).toArray();
  }

  /**
   * Merges all parts into one in a random binary tree, each merge in a random direction
   * ({@code merge.accept(into, from)}). Returns the survivor.
   */
  static <T> T mergeAnyOrder(SplittableRandom rnd, List<T> parts, BiConsumer<T, T> merge) {
    List<T> live = new ArrayList<>(parts);
    while (live.size() > 1) {
      int i = rnd.nextInt(live.size());
      int j = rnd.nextInt(live.size() - 1);
      if (j >= i) {
        j++;
      }
      T a = live.get(i);
      T b = live.get(j);
      merge.accept(a, b);
      live.remove(j);
    }
    return live.get(0);
  }

  /**
   * Like {@link #mergeAnyOrder} but only neighbours in list order merge (replicate windows must stay
   * contiguous); still a random pair and a random direction each time.
   */
  static <T> T mergeAdjacent(SplittableRandom rnd, List<T> parts, BiConsumer<T, T> merge) {
    List<T> live = new ArrayList<>(parts);
    while (live.size() > 1) {
      int i = rnd.nextInt(live.size() - 1);
      T left = live.get(i);
      T right = live.get(i + 1);
      if (rnd.nextBoolean()) {
        merge.accept(left, right);
        live.remove(i + 1);
      } else {
        merge.accept(right, left);
        live.remove(i);
      }
    }
    return live.get(0);
  }
}
