package org.nlspark.core.stats;

/**
 * Benjamini–Hochberg q-values (the FDR-adjusted p of PALM's {@code -fdr}, statsmodels'
 * {@code multipletests(method='fdr_bh')} and R's {@code p.adjust(method='BH')}):
 *
 * <pre>
 *   q_(i) = min_{j ≥ i} min(1, m · p_(j) / j)
 * </pre>
 *
 * over the m finite p-values sorted ascending (p_(1) ≤ … ≤ p_(m)). A voxel is declared at FDR
 * level α when q ≤ α, which is the step-up rule of Benjamini and Hochberg (1995). Tied p-values get
 * the same q (the running minimum from the top makes the order within ties irrelevant), so the
 * result does not depend on how ties are sorted. Non-finite p (undefined voxels) are left out of m
 * and get NaN.
 */
public final class FalseDiscoveryRate {
  private FalseDiscoveryRate() {}

  /** The q-value of every p-value; see the class comment. */
  public static double[] benjaminiHochberg(double[] p) {
    int n = p.length;
    int m = 0;
    for (double x : p) {
      m += Double.isFinite(x) ? 1 : 0;
    }
    double[] finite = new double[m];
    int[] index = new int[m];
    for (int v = 0, k = 0; v < n; v++) {
      if (Double.isFinite(p[v])) {
        finite[k] = p[v];
        index[k++] = v;
      }
    }
    // Ranks by p; ties may come in any order (they get the same q).
    Integer[] order = new Integer[m];
    for (int k = 0; k < m; k++) {
      order[k] = k;
    }
    java.util.Arrays.sort(order, (a, b) -> Double.compare(finite[a], finite[b]));
    double[] q = new double[n];
    java.util.Arrays.fill(q, Double.NaN);
    double running = 1.0;
    for (int rank = m; rank >= 1; rank--) {
      int k = order[rank - 1];
      // Never below p: m p / m can round one ulp under p.
      running = Math.min(running, Math.max(finite[k], (double) m * finite[k] / rank));
      q[index[k]] = running;
    }
    return q;
  }
}
