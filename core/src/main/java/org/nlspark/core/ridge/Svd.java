package org.nlspark.core.ridge;

import org.bytedeco.javacpp.Loader;
import org.bytedeco.openblas.global.openblas;

/**
 * Thin SVD through LAPACK's divide-and-conquer {@code dgesdd} of the bundled OpenBLAS (the same
 * library the BLAS wrapper ships; this build includes LAPACK). One thread per call, as every
 * kernel inside a task (DESIGN §5), so results do not depend on the thread count.
 */
public final class Svd {
  private static final class Holder {
    static final boolean LOADED = load();

    private static boolean load() {
      Loader.load(openblas.class);
      openblas.blas_set_num_threads(1);
      return true;
    }
  }

  private Svd() {}

  /**
   * A = U · diag(s) · Vᵀ for column-major A (m × n, destroyed); k = min(m, n): U is m × k (ld m),
   * s has k values descending, Vᵀ is k × n (ld k).
   *
   * @throws IllegalStateException when LAPACK reports that the SVD did not converge
   */
  public static void thin(double[] a, int m, int n, double[] s, double[] u, double[] vt) {
    if (!Holder.LOADED) {
      throw new IllegalStateException("[BUG] LAPACK not loaded");
    }
    int k = Math.min(m, n);
    int info = openblas.LAPACKE_dgesdd(openblas.LAPACK_COL_MAJOR, (byte) 'S', m, n, a, m, s, u, m,
        vt, k);
    if (info != 0) {
      throw new IllegalStateException("Cannot compute the SVD of a " + m + " x " + n
          + " design: LAPACK dgesdd returned info=" + info
          + (info > 0 ? " (did not converge)" : " (illegal argument)"));
    }
  }
}
