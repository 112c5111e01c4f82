package org.nlspark.core.tfce;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.Findings;
import org.nlspark.core.stats.PValues;

/**
 * The driver side of whole-map inference for one statistic: adds the {@link WholeMapPartial}s of
 * every tile (counts summed, maxima by maximum, the observed maps of the tile of window 0) and
 * makes the whole-map p-values with the one p-value rule ({@link PValues}). Exact integer and max
 * merges, so any arrival order gives the same bits. Not thread-safe: the callers' mergers
 * synchronize.
 *
 * <pre>
 * Invariants
 *  1. counts[v] (tfceCounts[v]) = replicates folded so far whose key (TFCE key) at v reached the
 *     observed one; folded = the sum of the partials' counter n().
 *  2. The null-max accumulators cover [0, replicates) from the start; partials merge inside.
 * </pre>
 */
public final class WholeMapMerge {
  private final WholeMapInference settings;
  private final Tail tail;
  private final long replicates;
  private final long[] counts;
  private final long[] tfceCounts;
  private final NullMaxAccumulator nullMax;
  private final NullMaxAccumulator tfceNullMax;
  private final NullMaxAccumulator clusterNullMax;
  private final NullMaxAccumulator massNullMax;
  private long folded;
  private double[] observed;
  private double[] observedTfce;
  private double[] observedClusters;
  private double[] observedMass;
  private double[] written; // the observed map as written, where it is not the counted one
  private int undefined;
  private long tfceNanos;
  private long tfceCpuNanos;
  private long mapsEnhanced;

  /** @param replicates the replicates this statistic draws (its maxima have this length) */
  public WholeMapMerge(WholeMapInference settings, Tail tail, long replicates) {
    this.settings = settings;
    this.tail = tail;
    this.replicates = replicates;
    int voxels = settings.mask().voxels();
    this.counts = new long[voxels];
    this.tfceCounts = settings.tfce() ? new long[voxels] : null;
    this.nullMax = new NullMaxAccumulator(0, (int) replicates);
    this.tfceNullMax = settings.tfce() ? new NullMaxAccumulator(0, (int) replicates) : null;
    this.clusterNullMax = settings.clusterThreshold() != null
        ? new NullMaxAccumulator(0, (int) replicates) : null;
    this.massNullMax = settings.settings().clusterMass() != null
        ? new NullMaxAccumulator(0, (int) replicates) : null;
  }

  public void add(WholeMapPartial part) {
    tfceNanos += part.tfceNanos;
    tfceCpuNanos += part.tfceCpuNanos;
    mapsEnhanced += part.mapsEnhanced;
    folded += part.counts.n();
    add(counts, part.counts);
    nullMax.merge(part.nullMax);
    if (tfceCounts != null) {
      add(tfceCounts, part.tfceCounts);
      tfceNullMax.merge(part.tfceNullMax);
    }
    if (clusterNullMax != null) {
      clusterNullMax.merge(part.clusterNullMax);
    }
    if (massNullMax != null) {
      massNullMax.merge(part.massNullMax);
    }
    if (part.observed != null) {
      observedMass = part.observedMass;
      observed = part.observed;
      observedTfce = part.observedTfce;
      observedClusters = part.observedClusters;
      written = part.written;
      undefined = part.undefinedVoxels;
    }
  }

  /**
   * The observed statistic as its map is written: v or G where the partials counted on their z
   * ({@link WholeMapPartial#withWritten}), else the observed map itself; null before the tile of
   * window 0 is added.
   */
  public double[] written() {
    return written != null ? written : observed;
  }

  private static void add(long[] into, ExceedanceCounter counter) {
    long[] c = counter.counts();
    for (int v = 0; v < c.length; v++) {
      into[v] += c[v];
    }
  }

  /**
   * Everything the partials add up to, with the whole-map p-values.
   *
   * @param fwer whether FWER outputs are made
   * @param enumerated whether the draws are every distinct draw (p = count / N)
   * @param what names the statistic in a broken-invariant message
   */
  public Totals finish(boolean fwer, boolean enumerated, String what) {
    if (observed == null || folded != replicates || nullMax.n() != replicates) {
      throw new IllegalStateException("[BUG] " + what + ": " + folded + " of " + replicates
          + " replicates folded" + (observed == null ? ", no observed map" : ""));
    }
    long p = replicates;
    Map<String, Object> facts = new LinkedHashMap<>();
    double[] pTfce = null;
    double[] pFwerTfce = null;
    double[] tfceMaxima = null;
    if (tfceCounts != null) {
      double[] tfceKeys = TfceNullFolder.keys(observedTfce, tail);
      pTfce = PValues.fromCounts(tfceCounts, p, tfceKeys, enumerated);
      facts.put("p_tfce_below_0_05", Findings.countBelow(pTfce, 0.05));
      if (fwer) {
        tfceMaxima = tfceNullMax.maxima();
        pFwerTfce = PValues.fwer(tfceMaxima, tfceKeys, enumerated);
        facts.put("p_fwer_tfce_below_0_05", Findings.countBelow(pFwerTfce, 0.05));
      }
      facts.put("tfce_maps", mapsEnhanced);
      facts.put("tfce_seconds", tfceNanos / 1e9);
      facts.put("tfce_ms_per_map", mapsEnhanced == 0 ? 0.0 : tfceNanos / 1e6 / mapsEnhanced);
      // CPU time as well as wall time: on a shared machine it is the fairer measure.
      facts.put("tfce_cpu_ms_per_map",
          mapsEnhanced == 0 ? 0.0 : tfceCpuNanos / 1e6 / mapsEnhanced);
    }
    double[] pFwerCluster = null;
    double[] clusterMaxima = null;
    if (clusterNullMax != null) {
      int largest = 0;
      for (double s : observedClusters) {
        largest = Math.max(largest, (int) s);
      }
      facts.put("cluster_threshold", settings.clusterThreshold());
      facts.put("largest_cluster", largest);
      if (fwer) {
        double[] sizeKeys = new double[observedClusters.length];
        for (int v = 0; v < sizeKeys.length; v++) {
          sizeKeys[v] = Double.isNaN(observed[v]) ? Double.NaN : observedClusters[v];
        }
        clusterMaxima = clusterNullMax.maxima();
        pFwerCluster = PValues.fwer(clusterMaxima, sizeKeys, enumerated);
        int significant = 0;
        for (int v = 0; v < sizeKeys.length; v++) {
          significant += observedClusters[v] > 0 && pFwerCluster[v] < 0.05 ? 1 : 0;
        }
        facts.put("p_fwer_cluster_below_0_05", significant);
      }
    }
    double[] pFwerMass = null;
    double[] massMaxima = null;
    if (massNullMax != null) {
      double largest = 0;
      for (double s : observedMass) {
        largest = Math.max(largest, Math.abs(s));
      }
      facts.put("cluster_mass_threshold", settings.settings().clusterMass());
      facts.put("largest_cluster_mass", largest);
      if (fwer) {
        double[] massKeys = new double[observedMass.length];
        for (int v = 0; v < massKeys.length; v++) {
          massKeys[v] = Double.isNaN(observed[v]) ? Double.NaN : Math.abs(observedMass[v]);
        }
        massMaxima = massNullMax.maxima();
        pFwerMass = PValues.fwer(massMaxima, massKeys, enumerated);
        int significant = 0;
        for (int v = 0; v < massKeys.length; v++) {
          significant += observedMass[v] != 0 && pFwerMass[v] < 0.05 ? 1 : 0;
        }
        facts.put("p_fwer_cluster_mass_below_0_05", significant);
      }
    }
    return new Totals(observed, counts.clone(), nullMax.maxima(), undefined, observedTfce, pTfce,
        pFwerTfce, tfceMaxima, observedClusters, pFwerCluster, clusterMaxima, observedMass,
        pFwerMass, massMaxima, facts);
  }

  /**
   * One statistic's merged whole-map run: the voxelwise totals (observed statistic, exceedance
   * counts, per-replicate maxima of the key, voxels without a statistic) for the command's own
   * voxelwise outputs, and the whole-map maps (null where not asked for, or without FWER).
   */
  public record Totals(double[] observed, long[] counts, double[] maxima, int undefinedVoxels,
      double[] tfce, double[] pTfce, double[] pFwerTfce, double[] nullMaxTfce,
      double[] clusterSize, double[] pFwerCluster, double[] nullMaxCluster,
      double[] clusterMass, double[] pFwerClusterMass, double[] nullMaxClusterMass,
      Map<String, Object> facts) {

    /**
     * The whole-map outputs in the order of DESIGN §9, named for {@code statistic}: {@code
     * tfce p_tfce p_fwer_tfce null_max_tfce cluster_size p_fwer_cluster null_max_cluster
     * cluster_mass p_fwer_cluster_mass null_max_cluster_mass} with an empty name (the
     * permutation tests), {@code tfce_tstat1 ...} with "tstat1" (glm).
     */
    public Map<String, double[]> outputs(String statistic) {
      String s = statistic.isEmpty() ? "" : "_" + statistic;
      Map<String, double[]> m = new LinkedHashMap<>();
      if (tfce != null) {
        m.put("tfce" + s, tfce);
        m.put("p_tfce" + s, pTfce);
        if (pFwerTfce != null) {
          m.put("p_fwer_tfce" + s, pFwerTfce);
          m.put("null_max_tfce" + s, nullMaxTfce);
        }
      }
      if (clusterSize != null) {
        m.put("cluster_size" + s, clusterSize);
        if (pFwerCluster != null) {
          m.put("p_fwer_cluster" + s, pFwerCluster);
          m.put("null_max_cluster" + s, nullMaxCluster);
        }
      }
      if (clusterMass != null) {
        m.put("cluster_mass" + s, clusterMass);
        if (pFwerClusterMass != null) {
          m.put("p_fwer_cluster_mass" + s, pFwerClusterMass);
          m.put("null_max_cluster_mass" + s, nullMaxClusterMass);
        }
      }
      return m;
    }
  }
}
