package org.nlspark.core.tfce;

import java.io.Serializable;
import org.nlspark.core.InvalidInputException;

/**
 * What whole-map inference computes (DESIGN §9): TFCE with its extent exponent E, height exponent
 * H and connectivity ({@code --tfce --tfce-e --tfce-h --tfce-connectivity}, {@code --tfce-2d} for
 * FSL's {@code --T2} / PALM's {@code -tfce2D}: H = 2, E = 1, 26 neighbours) and cluster extent at
 * a height ({@code --cluster-threshold}) and cluster mass at a height ({@code --cluster-mass}),
 * clusters joined by {@code clusterConnectivity} neighbours ({@code --connectivity}) and formed
 * by {@code clusterRule} ({@code --cluster-rule}: randomise's, or nilearn's). The TFCE
 * defaults are FSL's {@code -T} and nilearn's: E = 0.5, H = 2, faces (6); clusters are
 * 26-connected by default, as randomise and PALM. Build with {@link #of} and the {@code with...}
 * methods, which check every value (exit 2).
 */
public record WholeMapSettings(boolean tfce, double tfceE, double tfceH, int tfceConnectivity,
    Double clusterThreshold, Double clusterMass, int clusterConnectivity,
    ClusterExtent.Rule clusterRule) implements Serializable {
  /** randomise's and PALM's cluster connectivity. */
  public static final int DEFAULT_CLUSTER_CONNECTIVITY = 26;
  /** FSL's {@code -T} and PALM's TFCE connectivity on a volume: faces. */
  public static final int DEFAULT_TFCE_CONNECTIVITY = 6;

  /** FSL's {@code --T2}, PALM's {@code -tfce2D}: for 2-D data (TBSS skeletons, slices). */
  public static final double TWO_D_EXTENT_EXPONENT = 1.0;
  public static final double TWO_D_HEIGHT_EXPONENT = 2.0;
  public static final int TWO_D_CONNECTIVITY = 26;

  /**
   * The largest TFCE exponent E or H accepted (DESIGN §9). A score is at most extent^E · 100 ·
   * max^H (100 levels of h^H); with E, H ≤ 10 and a cluster of at most 2^31 voxels that is
   * below 2^310 · 100 · max^10, finite in double for every map maximum below 1e21. Larger
   * exponents overflow to Inf on ordinary maps (E = 40 at 2^31 voxels, H = 300 at t = 11), and
   * every p_fwer_tfce would be 1.
   */
  public static final double MAX_TFCE_EXPONENT = 10;

  public WholeMapSettings {
    checkExponent(tfceE, "--tfce-e", "extent exponent E");
    checkExponent(tfceH, "--tfce-h", "height exponent H");
    MaskGrid.checkConnectivity(tfceConnectivity, "--tfce-connectivity");
    if (clusterThreshold != null) {
      ClusterExtent.checkThreshold(clusterThreshold, "--cluster-threshold");
    }
    if (clusterMass != null) {
      ClusterExtent.checkThreshold(clusterMass, "--cluster-mass");
    }
    MaskGrid.checkConnectivity(clusterConnectivity, "--connectivity");
    java.util.Objects.requireNonNull(clusterRule, "clusterRule");
  }

  private static void checkExponent(double value, String flag, String what) {
    if (!(value > 0 && value <= MAX_TFCE_EXPONENT)) {
      throw new InvalidInputException(flag + " must be in (0, 10], but was: " + value
          + " (the TFCE " + what + "; beyond 10 the scores can overflow to infinity)");
    }
  }

  /** TFCE with FSL's {@code -T} parameters and/or cluster extent at {@code clusterThreshold}. */
  public static WholeMapSettings of(boolean tfce, Double clusterThreshold) {
    return new WholeMapSettings(tfce, Tfce.DEFAULT_EXTENT_EXPONENT, Tfce.DEFAULT_HEIGHT_EXPONENT,
        DEFAULT_TFCE_CONNECTIVITY, clusterThreshold, null, DEFAULT_CLUSTER_CONNECTIVITY,
        ClusterExtent.Rule.RANDOMISE);
  }

  /** Cluster mass at height {@code t} (null: none). */
  public WholeMapSettings withClusterMass(Double t) {
    return new WholeMapSettings(tfce, tfceE, tfceH, tfceConnectivity, clusterThreshold, t,
        clusterConnectivity, clusterRule);
  }

  /** The neighbours of clusters, extent and mass (null keeps the current value). */
  public WholeMapSettings withClusterConnectivity(Integer c) {
    return new WholeMapSettings(tfce, tfceE, tfceH, tfceConnectivity, clusterThreshold,
        clusterMass, c == null ? clusterConnectivity : c, clusterRule);
  }

  /** How clusters form and what their mass sums (null keeps the current rule). */
  public WholeMapSettings withClusterRule(ClusterExtent.Rule rule) {
    return new WholeMapSettings(tfce, tfceE, tfceH, tfceConnectivity, clusterThreshold,
        clusterMass, clusterConnectivity, rule == null ? clusterRule : rule);
  }

  /** Other TFCE parameters: null keeps the current value. */
  public WholeMapSettings withTfce(Double e, Double h, Integer connectivity) {
    return new WholeMapSettings(tfce, e == null ? tfceE : e, h == null ? tfceH : h,
        connectivity == null ? tfceConnectivity : connectivity, clusterThreshold, clusterMass,
        clusterConnectivity, clusterRule);
  }

  /** FSL's {@code --T2} preset (H = 2, E = 1, 26 neighbours). */
  public WholeMapSettings withTfce2d() {
    return withTfce(TWO_D_EXTENT_EXPONENT, TWO_D_HEIGHT_EXPONENT, TWO_D_CONNECTIVITY);
  }

  /** Whether any whole-map statistic is asked for. */
  public boolean any() {
    return tfce || clusterThreshold != null || clusterMass != null;
  }

  /** The flags in use, for messages: "--tfce", "--cluster-threshold and --cluster-mass", ... */
  public String flags() {
    java.util.List<String> f = new java.util.ArrayList<>();
    if (tfce) {
      f.add("--tfce");
    }
    if (clusterThreshold != null) {
      f.add("--cluster-threshold");
    }
    if (clusterMass != null) {
      f.add("--cluster-mass");
    }
    return f.size() <= 1 ? String.join("", f) : String.join(", ", f.subList(0, f.size() - 1))
        + " and " + f.get(f.size() - 1);
  }
}
