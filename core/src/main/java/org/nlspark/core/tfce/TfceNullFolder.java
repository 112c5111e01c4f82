package org.nlspark.core.tfce;

import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.job.Tail;

/**
 * Folds whole replicate statistic maps into the TFCE null (DESIGN §4, §9): each replicate's map is
 * enhanced, its extremeness keys ({@link Tail#key(double)} of the scores: the enhancement itself,
 * since lower and two-tailed scores keep the sign) update the per-replicate maximum for FWER and
 * the per-voxel count of replicates at least as extreme as the observed TFCE map. Both summaries
 * are the existing mergeable accumulators, so replicate windows fold in any order and partitioning.
 *
 * <p>Holds one map of work space; not thread-safe: use one per thread.
 */
public final class TfceNullFolder {
  private final Tfce tfce;
  private final Tail tail;
  private final double[] observedKeys;
  private final double[] scores;

  /**
   * @param observedTfce the enhanced observed map (from {@link Tfce#enhance}, same tail)
   */
  public TfceNullFolder(Tfce tfce, Tail tail, double[] observedTfce) {
    int n = tfce.adjacency().voxels();
    if (observedTfce.length != n) {
      throw new IllegalArgumentException("Cannot fold TFCE replicates: the observed TFCE map has "
          + observedTfce.length + " values, but the mask has " + n + " voxels");
    }
    this.tfce = tfce;
    this.tail = tail;
    this.observedKeys = keys(observedTfce, tail);
    this.scores = new double[n];
  }

  /** Extremeness keys of an enhanced map: |score|, score or −score (NaN stays NaN). */
  public static double[] keys(double[] enhanced, Tail tail) {
    double[] k = new double[enhanced.length];
    for (int v = 0; v < k.length; v++) {
      k[v] = tail.key(enhanced[v]);
    }
    return k;
  }

  /** The observed keys the exceedance counts compare against (a copy). */
  public double[] observedKeys() {
    return observedKeys.clone();
  }

  /**
   * Folds {@code rows} replicate statistic maps, row-major from {@code offset} (V values a row),
   * replicates {@code firstReplicate ..}: per replicate its maximum key into {@code nullMax}, per
   * voxel whether its key ≥ the observed key into {@code exceedance} (ties count; NaN never).
   */
  public void fold(
      double[] statMaps,
      int offset,
      int rows,
      long firstReplicate,
      NullMaxAccumulator nullMax,
      ExceedanceCounter exceedance) {
    int n = scores.length;
    for (int r = 0; r < rows; r++) {
      tfce.enhance(statMaps, offset + r * n, tail, scores, 0);
      for (int v = 0; v < n; v++) {
        scores[v] = tail.key(scores[v]);
      }
      nullMax.update(scores, 0, 1, n, firstReplicate + r);
      exceedance.update(scores, 0, 1, n, observedKeys, 0);
    }
  }
}
