package org.nlspark.core.timeseries;

import java.io.Serializable;
import org.nlspark.core.engine.LocalEngine;

import org.nlspark.core.resample.Surrogates;
import dev.ludovic.netlib.blas.BLAS;
import java.util.List;
import java.util.SplittableRandom;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.resample.Seeds;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialBytes;

/**
 * Pearson correlation of every voxel's series X[:, v] with one target series y, tested against
 * surrogates of y (circular shifts or phase randomizations). A permutation of y would also destroy
 * y's autocorrelation and so understate the null's spread for smooth (e.g. BOLD) series; a
 * surrogate keeps it and breaks only the alignment with X.
 *
 * <p>Replicate r's surrogate depends only on (seed, r). Per fixed grid cell (voxel block × replicate
 * window) the null correlations are one GEMM on standardised series, then folded into exact counts
 * and per-replicate maxima (DESIGN §4, §5), so outputs are bit-identical for any thread count.
 */
public final class TimeSeriesCorrelation {
  private static final String COMMAND = "timeseries-correlation";

  /** Options; the grid fixes the output bits, the engine only schedules the blocks. */
  public record Options(SurrogateMethod method, long permutations, Tail tail, boolean fwer,
      long seed, Grid grid) implements Serializable {
    public Options {
      if (permutations < 1 || permutations > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("--permutations must be in [1, " + (Integer.MAX_VALUE - 8)
            + "], but was: " + permutations);
      }
      if (method == null || tail == null || grid == null) {
        throw new IllegalArgumentException("[BUG] method, tail and grid must be set");
      }
    }

    public static Options defaults(SurrogateMethod method, long permutations, long seed) {
      return new Options(method, permutations, Tail.TWO, true, seed, Grid.DEFAULT);
    }
  }

  private TimeSeriesCorrelation() {}

  /** Runs on this JVM's threads: arrays as read from {@code --input} and {@code --target}. */
  public static PermutationResult run(NpyArray x, NpyArray y, Options o) {
    return (PermutationResult) LocalEngine.defaults().run(prepare(x, y, o)).result;
  }

  /** Runs on this JVM's threads; x row-major (timepoints, voxels), y (timepoints,). */
  public static PermutationResult run(double[] x, int timepoints, int voxels, double[] y,
      Options o) {
    return run(LocalEngine.defaults(), x, timepoints, voxels, y, o);
  }

  /** The same on a given local engine (its threads change no bit). */
  public static PermutationResult run(LocalEngine engine, double[] x, int timepoints, int voxels,
      double[] y, Options o) {
    return (PermutationResult) engine.run(prepare(x, timepoints, voxels, y, o)).result;
  }

  /** Checks the arrays as read from {@code --input} X (timepoints, voxels) and {@code --target}. */
  public static TimeSeriesAnalysis prepare(NpyArray x, NpyArray y, Options o) {
    if (x.rank() != 2) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --input must be 2-D"
          + " (timepoints, voxels), but has shape " + NpyHeader.formatShape(x.shape()));
    }
    if (y.rank() != 1) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --target must be 1-D"
          + " (timepoints,), but has shape " + NpyHeader.formatShape(y.shape()));
    }
    return prepare(x.data(), x.dim(0), x.dim(1), y.data(), o);
  }

  /**
   * Validates the inputs and draws the surrogates of y once, on the driver: they do not depend
   * on the voxel. Circle shifts: one T x T matrix whose column a is zy rolled by a, so lag 0
   * (the observed r) and every shifted r come out of one GEMM per block and the identity shift
   * reproduces the observed value bit for bit (a tie, which counts). Phase randomization: the P
   * standardised surrogates, (P x T).
   */
  public static TimeSeriesAnalysis prepare(double[] x, int timepoints, int voxels, double[] y,
      Options o) {
    validate(x, timepoints, voxels, y);
    return new TimeSeriesAnalysis(withSurrogates(x, timepoints, voxels, y, o), o, null, false);
  }

  /**
   * The same analysis prepared from the shape of X alone, for a series that executors read into
   * voxel blocks (DESIGN §8): y and its surrogates travel with the tiles, each tile reads its
   * block (the readers refuse a non-finite value, exit 2).
   */
  public static TimeSeriesAnalysis prepareOnExecutors(int timepoints, int voxels, double[] y,
      Options o) {
    validateShape(timepoints, voxels, y);
    return new TimeSeriesAnalysis(withSurrogates(null, timepoints, voxels, y, o), o, null, true);
  }

  private static Data withSurrogates(double[] x, int timepoints, int voxels, double[] y,
      Options o) {
    double[] zy = y.clone();
    if (!Series.standardize(zy, 0, timepoints)) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": the target series y is"
          + " constant, so its correlation with any voxel is undefined");
    }
    // the surrogates are drawn here, on the driver: refused up front when they cannot fit
    long table = o.method() == SurrogateMethod.CIRCLE_SHIFT ? 4L * o.permutations()
        : 8L * o.permutations() * timepoints;
    org.nlspark.core.memory.DriverMemory.check(COMMAND, new org.nlspark.core.memory.DriverMemory
        .Need(table, o.permutations(), "the surrogates of y").plus(org.nlspark.core.memory
        .DriverMemory.nullDistributions(o.permutations(), o.fwer() ? 1 : 0)));
    int p = (int) o.permutations();
    double[] surrogates;
    int[] shifts = null;
    if (o.method() == SurrogateMethod.CIRCLE_SHIFT) {
      surrogates = new double[timepoints * timepoints];
      for (int a = 0; a < timepoints; a++) {
        Surrogates.roll(zy, 0, timepoints, a, surrogates, a * timepoints);
      }
      shifts = new int[p];
      for (int r = 0; r < p; r++) {
        shifts[r] = Surrogates.drawShift(Seeds.forReplicate(o.seed(), r), timepoints);
      }
    } else {
      surrogates = new double[p * timepoints];
      double[] raw = new double[timepoints];
      for (int r = 0; r < p; r++) {
        surrogate(y, timepoints, o.method(), o.seed(), r, raw);
        System.arraycopy(raw, 0, surrogates, r * timepoints, timepoints);
        Series.standardize(surrogates, r * timepoints, timepoints);
      }
    }
    return new Data(x, timepoints, voxels, zy, surrogates, shifts);
  }

  /**
   * What every block reads: X (null when executors hold it as voxel blocks), the standardised y
   * and its surrogates (or shift table).
   */
  record Data(double[] x, int timepoints, int voxels, double[] zy, double[] surrogates,
      int[] shifts) implements Serializable {}

  /** The merge of every block's outcome (each block once, any order). */
  static PermutationResult merge(List<BlockOut> outs, int voxels, Options o) {
    int p = (int) o.permutations();
    double[] observed = new double[voxels];
    long[] counts = new long[voxels];
    NullMaxAccumulator nullMax = new NullMaxAccumulator(0, p);
    for (BlockOut out : outs) {
      System.arraycopy(out.observed, 0, observed, out.from, out.observed.length);
      long[] c = out.counter.counts();
      System.arraycopy(c, 0, counts, out.from, c.length);
      nullMax.merge(out.nullMax);
    }
    double[] keys = new double[voxels];
    int undefined = 0;
    for (int v = 0; v < voxels; v++) {
      keys[v] = o.tail().key(observed[v]);
      if (Double.isNaN(observed[v])) {
        undefined++;
      }
    }
    double[] pv = PValues.fromCounts(counts, p, keys, false);
    double[] pFwer = o.fwer() ? PValues.fwer(nullMax.maxima(), keys, false) : null;
    return new PermutationResult(observed, pv, pFwer, o.fwer() ? nullMax.maxima() : null, p,
        false, undefined);
  }

  /** Replicate r's surrogate of y (not standardised). */
  public static void surrogate(double[] y, int timepoints, SurrogateMethod method, long seed,
      long replicate, double[] out) {
    SplittableRandom rng = Seeds.forReplicate(seed, replicate);
    if (method == SurrogateMethod.CIRCLE_SHIFT) {
      Surrogates.roll(y, 0, timepoints, Surrogates.drawShift(rng, timepoints), out, 0);
    } else {
      double[] h = Surrogates.phaseKernel(Surrogates.drawPhases(rng, timepoints), timepoints);
      for (int t = 0; t < timepoints; t++) {
        double s = 0;
        for (int u = 0; u < timepoints; u++) {
          s += h[Math.floorMod(t - u, timepoints)] * y[u];
        }
        out[t] = s;
      }
    }
  }

  /**
   * One block's observed r, exceedance counts and per-replicate maxima. Bytes (big-endian): the
   * {@link PartialFamily#TIME_SERIES_BLOCK} header, first voxel, length-prefixed observed r, then
   * the counter's and the maxima's length-prefixed bytes.
   */
  record BlockOut(int from, double[] observed, ExceedanceCounter counter,
      NullMaxAccumulator nullMax) {
    byte[] toBytes() {
      try {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        PartialBytes.writeFamily(out, PartialFamily.TIME_SERIES_BLOCK);
        out.writeInt(from);
        out.writeInt(observed.length);
        for (double v : observed) {
          out.writeDouble(v);
        }
        byte[] c = counter.toBytes();
        out.writeInt(c.length);
        out.write(c);
        byte[] m = nullMax.toBytes();
        out.writeInt(m.length);
        out.write(m);
        out.flush();
        return bytes.toByteArray();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    static BlockOut fromBytes(byte[] data) {
      try {
        java.io.DataInputStream in =
            new java.io.DataInputStream(new java.io.ByteArrayInputStream(data));
        PartialBytes.readFamily(in, PartialFamily.TIME_SERIES_BLOCK);
        int from = in.readInt();
        double[] observed = new double[in.readInt()];
        for (int i = 0; i < observed.length; i++) {
          observed[i] = in.readDouble();
        }
        byte[] c = new byte[in.readInt()];
        in.readFully(c);
        byte[] m = new byte[in.readInt()];
        in.readFully(m);
        return new BlockOut(from, observed, ExceedanceCounter.fromBytes(c),
            NullMaxAccumulator.fromBytes(m));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }
  }

  /** One fixed voxel block: a pure function of the data, the options and the block index. */
  static BlockOut block(Data d, int b, Options o) {
    return block(d, d.x(), d.voxels(), o.grid().blockStart(b), b, o);
  }

  /**
   * {@link #block} of X given as {@code x}, row-major timepoints x {@code stride}, the block
   * from column {@code column}: X whole (stride = voxels) or the block as an executor holds it
   * (stride = its width, column 0). The same bits either way.
   */
  static BlockOut block(Data d, double[] x, int stride, int column, int b, Options o) {
    int timepoints = d.timepoints();
    int voxels = d.voxels();
    double[] zy = d.zy();
    double[] surrogates = d.surrogates();
    int[] shifts = d.shifts();
    int p = (int) o.permutations();
    Grid grid = o.grid();
    int v0 = grid.blockStart(b);
    int vb = grid.blockEnd(b, voxels) - v0;
    // zx: row-major (T, vb), each column standardised; column-major that is (vb, T), ld = vb.
    double[] col = new double[timepoints];
    double[] zx = new double[timepoints * vb];
    boolean[] defined = new boolean[vb];
    double[] observed = new double[vb];
    double[] obsKeys = new double[vb];
    for (int v = 0; v < vb; v++) {
      for (int t = 0; t < timepoints; t++) {
        col[t] = x[t * stride + column + v];
      }
      defined[v] = Series.standardize(col, 0, timepoints);
      double r = 0;
      for (int t = 0; t < timepoints; t++) {
        zx[t * vb + v] = col[t];
        r += col[t] * zy[t];
      }
      observed[v] = defined[v] ? clamp(r) : Double.NaN;
      obsKeys[v] = o.tail().key(observed[v]);
    }
    BLAS blas = Blas.get();
    double[] lags = null;
    if (shifts != null) {
      // lags (vb x T, column-major) = Zx (vb x T) * L (T x T): lags[v + a*vb] = r after shift a
      lags = new double[vb * timepoints];
      blas.dgemm("N", "N", vb, timepoints, timepoints, 1.0, zx, 0, vb, surrogates, 0, timepoints,
          0.0, lags, 0, vb);
      for (int v = 0; v < vb; v++) {
        observed[v] = defined[v] ? clamp(lags[v]) : Double.NaN;
        obsKeys[v] = o.tail().key(observed[v]);
      }
    }
    ExceedanceCounter counter = new ExceedanceCounter(vb);
    NullMaxAccumulator nullMax = new NullMaxAccumulator(0, p);
    int window = grid.window();
    double[] c = new double[window * vb];
    for (int r0 = 0; r0 < p; r0 += window) {
      int rows = Math.min(window, p - r0);
      if (lags != null) {
        for (int r = 0; r < rows; r++) {
          System.arraycopy(lags, shifts[r0 + r] * vb, c, r * vb, vb);
        }
      } else {
        // C (vb x rows, column-major) = Zx (vb x T) * S (T x rows): row-major (rows, vb) nulls.
        blas.dgemm("N", "N", vb, rows, timepoints, 1.0, zx, 0, vb, surrogates, r0 * timepoints,
            timepoints, 0.0, c, 0, vb);
      }
      for (int r = 0; r < rows; r++) {
        for (int v = 0; v < vb; v++) {
          int i = r * vb + v;
          c[i] = defined[v] ? o.tail().key(clamp(c[i])) : Double.NaN;
        }
      }
      counter.update(c, 0, rows, vb, obsKeys, 0);
      nullMax.update(c, 0, rows, vb, r0);
    }
    return new BlockOut(v0, observed, counter, nullMax);
  }

  static double clamp(double r) {
    return r > 1 ? 1 : (r < -1 ? -1 : r);
  }

  private static void validate(double[] x, int timepoints, int voxels, double[] y) {
    validateShape(timepoints, voxels, y);
    Series.requireLength(x, (long) timepoints * voxels, "--input",
        "(" + timepoints + ", " + voxels + ")");
    Series.requireFinite(x, "--input", COMMAND);
  }

  private static void validateShape(int timepoints, int voxels, double[] y) {
    if (timepoints < 3) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": need at least 3 time points,"
          + " but the input has " + timepoints);
    }
    if (voxels < 1) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": the input has no voxels");
    }
    if (y == null || y.length != timepoints) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": --target must have one value per"
          + " time point (" + timepoints + "), but has " + (y == null ? 0 : y.length));
    }
    Series.requireFinite(y, "--target", COMMAND);
  }
}
