package org.nlspark.core.glm;

import java.io.Serializable;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.resample.GlmDraws;

/**
 * Variance groups (PALM's {@code -vg}; Winkler et al. 2014, "Permutation inference for the
 * general linear model", NeuroImage 92:381): samples whose errors share a variance. With more
 * than one group a t contrast is tested by the Aspin–Welch v and an F contrast by the G
 * statistic ({@link GlmContrastStatistic}); with one group they are t and F.
 */
public final class VarianceGroups implements Serializable {
  private static final long serialVersionUID = 1L;

  private final int[] group;
  private final int count;
  private final String source;
  /** As given, before {@link #resolve}: "auto" (null ids) or one id per row of a file. */
  private final int[] ids;

  private VarianceGroups(int[] group, int count, String source, int[] ids) {
    this.group = group;
    this.count = count;
    this.source = source;
    this.ids = ids;
  }

  /** One id per sample (any integers; equal ids are one group), resolved against the data. */
  public static VarianceGroups given(int[] ids, String source) {
    return new VarianceGroups(null, 0, source, ids.clone());
  }

  /** A file's rows (one id per row), as {@link GlmFiles#readBlocks} reads them. */
  public static VarianceGroups givenRows(int[][] rows, String source) {
    int[] ids = new int[rows.length];
    for (int i = 0; i < rows.length; i++) {
      if (rows[i].length != 1) {
        throw new InvalidInputException("Cannot use the variance groups " + source + ": line "
            + (i + 1) + " holds " + rows[i].length + " values; give one group id per sample");
      }
      ids[i] = rows[i][0];
    }
    return given(ids, source);
  }

  /** PALM's {@code -vg auto}: the groups derived from the exchangeability blocks. */
  public static VarianceGroups auto() {
    return new VarianceGroups(null, 0, "auto", null);
  }

  /** Resolved groups of {@code ids}, numbered 0.. in ascending id order. */
  public static VarianceGroups of(int[] ids, String source, int samples) {
    return given(ids, source).resolve(null, "", false, samples);
  }

  /** Whether these are the groups of the data (else as given, to {@link #resolve}). */
  public boolean resolved() {
    return group != null;
  }

  /**
   * The groups of {@code samples} samples: the given ids checked against them, or for "auto"
   * derived from the blocks ({@link GlmDraws#autoVarianceGroups}; one group without blocks).
   */
  public VarianceGroups resolve(int[][] blocks, String blocksSource, boolean whole,
      int samples) {
    if (resolved()) {
      return this;
    }
    int[] given = ids != null ? ids
        : GlmDraws.autoVarianceGroups(blocks, blocksSource, whole, samples);
    if (given.length != samples) {
      throw new InvalidInputException("Cannot use the variance groups " + source + ": they hold "
          + given.length + " values but the data has " + samples + " samples; give one group"
          + " id per sample");
    }
    int[] sorted = Arrays.stream(given).distinct().sorted().toArray();
    int[] out = new int[given.length];
    for (int i = 0; i < given.length; i++) {
      out[i] = Arrays.binarySearch(sorted, given[i]);
    }
    return new VarianceGroups(out, sorted.length, source, ids);
  }

  /** Group of each sample, 0-based. */
  public int groupOf(int sample) {
    return group[sample];
  }

  public int count() {
    return count;
  }

  public int samples() {
    return group.length;
  }

  public String source() {
    return source;
  }

  /** Samples per group. */
  public int[] sizes() {
    int[] out = new int[count];
    for (int g : group) {
      out[g]++;
    }
    return out;
  }

  /** For summary.json. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("variance_groups", count);
    m.put("variance_group_sizes", Arrays.stream(sizes()).boxed().toList());
    m.put("variance_groups_source", source);
    return m;
  }
}
