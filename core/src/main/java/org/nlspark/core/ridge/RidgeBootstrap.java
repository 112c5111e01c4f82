package org.nlspark.core.ridge;

import dev.ludovic.netlib.blas.BLAS;
import java.io.Serializable;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.RidgeBatchSizer;
import org.nlspark.core.resample.Draws;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.timeseries.Series;

/**
 * Bootstrap of ridge regression weights (or predictions): each replicate resamples the rows of
 * (X, Y), takes one thin SVD X_b = U diag(s) Vᵀ and solves every target at once,
 * β = V diag(s / (s² + α)) Uᵀ Y_b. No intercept is fitted: centre X and Y first if you need one.
 *
 * <p>It runs as an analysis of the pipeline ({@link RidgeAnalysis}): tiles are runs of fixed
 * replicate windows over every element, sized by the ridge rule of DESIGN §3.7
 * ({@link RidgeBatchSizer}); window moments fold in window order, so every output is
 * bit-identical for any tiling, thread count or Spark partitioning.
 * Replicate r's rows are {@link Draws#bootstrapCounts} of (seed, r).
 */
public final class RidgeBootstrap {
  private static final String COMMAND = "ridge-bootstrap";

  /**
   * Options. The budget the engine resolves from {@code memoryBudgetGb} (null: measured) sizes
   * the tiles by the ridge rule of DESIGN §3.7 and gates the retained output (§3.8); neither
   * changes a bit. {@code saveSamples} keeps every replicate's solution.
   */
  public record Options(double alpha, long samples, double confidence, long seed,
      boolean saveSamples, Double memoryBudgetGb) implements Serializable {
    public Options {
      if (!(alpha > 0) || !Double.isFinite(alpha)) {
        throw new InvalidInputException("--alpha must be a finite number > 0, but was: " + alpha);
      }
      if (samples < 1 || samples > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("--samples must be in [1, " + (Integer.MAX_VALUE - 8)
            + "], but was: " + samples);
      }
      if (!(confidence > 0 && confidence < 1)) {
        throw new InvalidInputException("--confidence must be in (0, 1), but was: " + confidence);
      }
      MemoryBudget.checkExplicit(memoryBudgetGb);
    }
  }

  private RidgeBootstrap() {}

  /** Runs on this JVM's threads; arrays as read from {@code --input}, {@code --target}, {@code --x-test}. */
  public static RidgeResult run(NpyArray x, NpyArray y, NpyArray xTest, Options o) {
    return (RidgeResult) LocalEngine.defaults().run(prepare(x, y, xTest, o)).result;
  }

  /** Runs on this JVM's threads; the arrays as {@link RidgeAnalysis.Data} holds them. */
  public static RidgeResult run(RidgeAnalysis.Data data, Options o) {
    return run(LocalEngine.defaults(), data, o);
  }

  /** The same on a given local engine (its threads change no bit). */
  public static RidgeResult run(LocalEngine engine, RidgeAnalysis.Data data, Options o) {
    return (RidgeResult) engine.run(prepare(data, o)).result;
  }

  /**
   * Checks arrays as read from {@code --input} X (n, p), {@code --target} Y (n, targets) or (n,),
   * and {@code --x-test} (n_test, p) or null.
   */
  public static RidgeAnalysis prepare(NpyArray x, NpyArray y, NpyArray xTest, Options o) {
    checkShapes(x.shape(), y.shape(), xTest == null ? null : xTest.shape());
    return prepare(new RidgeAnalysis.Data(x.data(), x.dim(0), x.dim(1), y.data(),
        y.rank() == 1 ? 1 : y.dim(1), xTest == null ? null : xTest.data(),
        xTest == null ? 0 : xTest.dim(0)), o);
  }

  /**
   * Validates; the engine then runs the retained-output preflight (§3.8) and sizes replicates per
   * tile by the ridge rule (§3.7) against its budget, before any replicate is solved.
   */
  public static RidgeAnalysis prepare(RidgeAnalysis.Data d, Options o) {
    validate(d.x(), d.n(), d.p(), d.y(), d.targets(), d.xTest(), d.nTest());
    int rows = d.xTest() != null ? d.nTest() : d.p();
    Math.multiplyExact(rows, d.targets());
    return new RidgeAnalysis(d, o, rows);
  }

  /**
   * The rules on the arrays' shapes (exit 2): X (n, p), Y (n,) or (n, targets), X_test (nTest,
   * p) or null.
   */
  public static void checkShapes(long[] x, long[] y, long[] xTest) {
    if (x.length != 2) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --input X must be 2-D (samples,"
          + " features), but has shape " + NpyHeader.formatShape(x));
    }
    if (y.length != 1 && y.length != 2) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --target Y must be 1-D or 2-D"
          + " (samples, targets), but has shape " + NpyHeader.formatShape(y));
    }
    if (y[0] != x[0]) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --target Y must have as many"
          + " rows as --input X (" + x[0] + "), but has shape " + NpyHeader.formatShape(y));
    }
    if (xTest != null && (xTest.length != 2 || xTest[1] != x[1])) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --x-test must be 2-D with "
          + x[1] + " columns like --input X, but has shape " + NpyHeader.formatShape(xTest));
    }
  }

  /**
   * The same analysis on inputs that executors read ({@link RidgeAnalysis.Files}): checked here
   * from their shapes (the readers refuse a non-finite value, exit 2), read whole by each task.
   */
  public static RidgeAnalysis prepareOnExecutors(RidgeAnalysis.Files files, int n, int p,
      int targets, int nTest, Options o) {
    validateShape(n, p, targets);
    if (files.xTest() != null && nTest < 1) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --x-test must have at least"
          + " one row, but has none");
    }
    int rows = files.xTest() != null ? nTest : p;
    Math.multiplyExact(rows, targets);
    return new RidgeAnalysis(files, new RidgeAnalysis.Data(null, n, p, null, targets, null,
        files.xTest() == null ? 0 : nTest), o, rows);
  }

  /**
   * Replicate r: weights (p, targets) or predictions (nTest, targets), row-major. Also the
   * single-replicate reference the tests compare against.
   */
  public static double[] replicate(double[] x, int n, int p, double[] y, int targets,
      double[] xTest, int nTest, double alpha, long seed, long r) {
    int[] counts = new int[n];
    Draws.bootstrapCounts(seed, r, n, counts);
    // column-major resampled design (n x p) and response (n x targets), rows in index order
    double[] xb = new double[n * p];
    double[] yb = new double[n * targets];
    int row = 0;
    for (int i = 0; i < n; i++) {
      for (int c = 0; c < counts[i]; c++, row++) {
        for (int j = 0; j < p; j++) {
          xb[j * n + row] = x[i * p + j];
        }
        for (int v = 0; v < targets; v++) {
          yb[v * n + row] = y[i * targets + v];
        }
      }
    }
    return solve(xb, n, p, yb, targets, xTest, nTest, alpha);
  }

  /** β = V diag(s/(s² + α)) Uᵀ Y for column-major X (destroyed) and Y; row-major output. */
  static double[] solve(double[] xcm, int n, int p, double[] ycm, int targets, double[] xTest,
      int nTest, double alpha) {
    int k = Math.min(n, p);
    double[] s = new double[k];
    double[] u = new double[n * k];
    double[] vt = new double[k * p];
    Svd.thin(xcm, n, p, s, u, vt);
    BLAS blas = Blas.get();
    double[] uty = new double[k * targets];
    blas.dgemm("T", "N", k, targets, n, 1.0, u, 0, n, ycm, 0, n, 0.0, uty, 0, k);
    for (int i = 0; i < k; i++) {
      double d = s[i] / (s[i] * s[i] + alpha);
      for (int v = 0; v < targets; v++) {
        uty[v * k + i] *= d;
      }
    }
    double[] beta = new double[p * targets]; // column-major (p x targets)
    blas.dgemm("T", "N", p, targets, k, 1.0, vt, 0, k, uty, 0, k, 0.0, beta, 0, p);
    if (xTest == null) {
      return transpose(beta, p, targets);
    }
    double[] xt = transpose(xTest, p, nTest); // row-major (nTest, p) read as column-major (p x nTest)
    double[] pred = new double[nTest * targets];
    blas.dgemm("N", "N", nTest, targets, p, 1.0, xt, 0, nTest, beta, 0, p, 0.0, pred, 0, nTest);
    return transpose(pred, nTest, targets);
  }

  /** Column-major (rows x cols) to row-major; equally, row-major (cols x rows) to column-major. */
  private static double[] transpose(double[] a, int rows, int cols) {
    double[] out = new double[a.length];
    for (int j = 0; j < cols; j++) {
      for (int i = 0; i < rows; i++) {
        out[i * cols + j] = a[j * rows + i];
      }
    }
    return out;
  }

  private static void validate(double[] x, int n, int p, double[] y, int targets,
      double[] xTest, int nTest) {
    validateShape(n, p, targets);
    validateValues(x, n, p, y, targets, xTest, nTest);
  }

  private static void validateShape(int n, int p, int targets) {
    if (n < 2) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": need at least 2 samples (rows"
          + " of --input), but X has " + n);
    }
    if (p < 1 || targets < 1) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": X needs at least 1 feature and"
          + " Y at least 1 target, but X has " + p + " and Y " + targets);
    }
  }

  private static void validateValues(double[] x, int n, int p, double[] y, int targets,
      double[] xTest, int nTest) {
    Series.requireLength(x, (long) n * p, "--input", "(" + n + ", " + p + ")");
    if (y == null || y.length % n != 0 || y.length / n != targets) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --target must have one row per"
          + " sample of X (" + n + " rows, " + targets + " targets), but has "
          + (y == null ? 0 : y.length) + " values");
    }
    Series.requireFinite(x, "--input", COMMAND);
    Series.requireFinite(y, "--target", COMMAND);
    if (xTest != null) {
      if (nTest < 1 || xTest.length != (long) nTest * p) {
        throw new InvalidInputException("Cannot run " + COMMAND + ": --x-test must have " + p
            + " columns like X, but has " + xTest.length + " values for " + nTest + " rows");
      }
      Series.requireFinite(xTest, "--x-test", COMMAND);
    }
  }
}
