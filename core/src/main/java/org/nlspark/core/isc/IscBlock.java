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
import org.nlspark.core.accumulate.QuickSelect;
import org.nlspark.core.accumulate.TailAccumulator;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.job.Tail;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.resample.Seeds;
import org.nlspark.core.resample.SubjectDraws;
import org.nlspark.core.resample.Surrogates;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.timeseries.Series;

/** One fixed voxel block: observed ISC and every replicate, folded window by window. */
final class IscBlock {
  private final int s;
  private final int t;
  private final int v0;
  private final int vb;
  private final int pairs;
  private final Isc.Options o;
  private final int k;
  private final double[] raw;
  private final double[] work;
  private final double[] gram;
  /** Voxels whose every subject series varies (set by {@link #correlations}). */
  private boolean[] defined;
  private final BLAS blas = Blas.get();

  /**
   * @param data row-major (subjects · timepoints) x {@code stride} values holding voxel block
   *     {@code b} from column {@code column}: the whole array (stride = voxels, column = the
   *     block's first voxel) or the block alone as an executor holds it (stride = its width,
   *     column 0)
   */
  IscBlock(double[] data, int stride, int column, int subjects, int timepoints, int voxels,
      int b, Isc.Options o, int k) {
    this.s = subjects;
    this.t = timepoints;
    this.v0 = o.grid().blockStart(b);
    this.vb = o.grid().blockEnd(b, voxels) - v0;
    if (column + vb > stride || (long) subjects * timepoints * stride != data.length) {
      throw new IllegalArgumentException("[BUG] ISC block " + b + " of " + vb + " voxels from"
          + " column " + column + " is not in " + data.length + " values of stride " + stride);
    }
    this.pairs = subjects * (subjects - 1) / 2;
    this.o = o;
    this.k = k;
    // raw[(v * S + s) * T + t]: each voxel's subjects as a column-major T x S matrix
    this.raw = new double[vb * s * t];
    // transpose in chunks of voxels so reads stay in short rows and writes in few streams
    final int chunk = 32;
    for (int si = 0; si < s; si++) {
      for (int c0 = 0; c0 < vb; c0 += chunk) {
        int c1 = Math.min(vb, c0 + chunk);
        for (int ti = 0; ti < t; ti++) {
          int src = (si * timepoints + ti) * stride + column;
          for (int v = c0; v < c1; v++) {
            raw[(v * s + si) * t + ti] = data[src + v];
          }
        }
      }
    }
    this.work = new double[raw.length];
    this.gram = new double[s * s];
  }

  private int valuesPerVoxel() {
    return o.summary() == IscSummary.PAIRWISE ? pairs : s;
  }

  /**
   * Correlations per voxel of series {@code x} (layout of raw) into values[v * n + i]: pairs
   * (s < t in row-major order) or leave-one-out per subject; NaN rows for undefined voxels.
   */
  void correlations(double[] x, double[] values) {
    int n = valuesPerVoxel();
    System.arraycopy(x, 0, work, 0, x.length);
    defined = new boolean[vb];
    for (int v = 0; v < vb; v++) {
      boolean ok = true;
      int base = v * s * t;
      for (int si = 0; si < s; si++) {
        int off = base + si * t;
        ok &= o.summary() == IscSummary.PAIRWISE
            ? Series.standardize(work, off, t) : Series.center(work, off, t);
      }
      defined[v] = ok;
    }
    correlationsOfPrepared(work, values);
  }

  /**
   * As {@link #correlations} for series already standardised (pairwise) or centred
   * (leave-one-out), in time or in an orthonormal basis: only dot products and sums are used.
   */
  void correlationsOfPrepared(double[] prepared, double[] values) {
    int n = valuesPerVoxel();
    for (int v = 0; v < vb; v++) {
      int base = v * s * t;
      if (!defined[v]) {
        Arrays.fill(values, v * n, (v + 1) * n, Double.NaN);
        continue;
      }
      if (o.summary() == IscSummary.PAIRWISE) {
        // gram = Z^T Z (S x S), Z = the voxel's T x S standardised series
        blas.dgemm("T", "N", s, s, t, 1.0, prepared, base, t, prepared, base, t, 0.0, gram, 0,
            s);
        int idx = v * n;
        for (int i = 0; i < s; i++) {
          for (int j = i + 1; j < s; j++) {
            values[idx++] = Isc.clamp(gram[j * s + i]);
          }
        }
      } else {
        leaveOneOut(prepared, base, values, v * n);
      }
    }
  }

  /** r(x_s, Σ_{u≠s} x_u) on centred series; the mean of the others has the same correlation. */
  private void leaveOneOut(double[] c, int base, double[] values, int out) {
    double[] sum = new double[t];
    for (int si = 0; si < s; si++) {
      for (int ti = 0; ti < t; ti++) {
        sum[ti] += c[base + si * t + ti];
      }
    }
    for (int si = 0; si < s; si++) {
      int off = base + si * t;
      double xy = 0;
      double xx = 0;
      double yy = 0;
      for (int ti = 0; ti < t; ti++) {
        double xi = c[off + ti];
        double yi = sum[ti] - xi;
        xy += xi * yi;
        xx += xi * xi;
        yy += yi * yi;
      }
      if (!(yy > 0)) {
        // the others' mean is constant: leave-one-out ISC is undefined for the whole voxel
        Arrays.fill(values, out, out + s, Double.NaN);
        return;
      }
      values[out + si] = Isc.clamp(xy / Math.sqrt(xx * yy));
    }
  }

  double summarize(double[] values, int off, int n) {
    if (Double.isNaN(values[off])) {
      return Double.NaN;
    }
    if (o.metric() == IscMetric.MEDIAN) {
      return IscMath.median(values, off, n);
    }
    double z = 0;
    for (int i = off; i < off + n; i++) {
      z += IscMath.fisherZ(values[i]);
    }
    return StrictMath.tanh(z / n);
  }

  Isc.BlockOutcome run(int block) {
    int n = valuesPerVoxel();
    double[] values = new double[vb * n];
    correlations(raw, values);
    double[] observed = new double[vb];
    double[] obsKeys = new double[vb];
    for (int v = 0; v < vb; v++) {
      observed[v] = summarize(values, v * n, n);
      obsKeys[v] = o.tail().key(observed[v]);
    }
    int p = (int) o.samples();
    TailAccumulator tails = new TailAccumulator(vb, k);
    ExceedanceCounter counter = new ExceedanceCounter(vb);
    boolean perm = o.nullMethod().isPermutation();
    NullMaxAccumulator nullMax = perm && o.fwer() ? new NullMaxAccumulator(0, p) : null;
    int window = o.grid().window();
    double[] vals = new double[window * vb];
    double[] samples = o.saveSamples() ? new double[Math.multiplyExact(p, vb)] : null;
    double[] keys = new double[window * vb];
    Bootstrap boot = perm ? null : new Bootstrap(values, n, window);
    boolean lagged = o.nullMethod() == IscNull.CIRCLE_SHIFT
        && o.summary() == IscSummary.PAIRWISE;
    double[] shifted = lagged ? circleShiftNull(values, n, p) : null;
    double[] spectra = perm && !lagged ? spectra() : null;
    double[] rotated = perm && !lagged ? new double[raw.length] : null;
    double[] nullValues = perm && !lagged ? new double[vb * n] : null;
    for (int r0 = 0; r0 < p; r0 += window) {
      int rows = Math.min(window, p - r0);
      if (lagged) {
        System.arraycopy(shifted, r0 * vb, vals, 0, rows * vb);
      } else if (perm) {
        for (int r = 0; r < rows; r++) {
          rotate(spectra, r0 + r, rotated);
          correlationsOfPrepared(rotated, nullValues);
          for (int v = 0; v < vb; v++) {
            vals[r * vb + v] = Double.isNaN(observed[v]) ? Double.NaN
                : summarize(nullValues, v * n, n);
          }
        }
      } else {
        boot.window(r0, rows, vals);
      }
      for (int r = 0; r < rows; r++) {
        for (int v = 0; v < vb; v++) {
          int i = r * vb + v;
          if (Double.isNaN(observed[v])) {
            vals[i] = Double.NaN;
          }
          keys[i] = o.tail().key(perm ? vals[i] : vals[i] - observed[v]);
        }
      }
      tails.update(vals, 0, rows, vb);
      if (samples != null) {
        System.arraycopy(vals, 0, samples, r0 * vb, rows * vb);
      }
      counter.update(keys, 0, rows, vb, obsKeys, 0);
      if (nullMax != null) {
        nullMax.update(keys, 0, rows, vb, r0);
      }
    }
    double[] lower = new double[vb];
    double[] upper = new double[vb];
    tails.interval(BootstrapSummary.lowerPercentile(o.confidence()),
        BootstrapSummary.upperPercentile(o.confidence()), lower, upper);
    return new Isc.BlockOutcome(block, observed, lower, upper, counter.counts(),
        nullMax == null ? null : nullMax.maxima(), samples);
  }

  /**
   * Every replicate's pairwise ISC under circle shifts, row-major (P, vb). Shifting subjects by
   * a_s and a_t turns r_st into the circular cross-correlation at lag d = (a_s − a_t) mod T, so
   * each voxel's T lags of every pair are computed once (T − 1 GEMMs of S × S × T on the
   * standardised series; lag 0 is the observed r itself) and a replicate is S(S−1)/2 look-ups
   * instead of a new correlation matrix. A draw with all shifts equal thus reproduces the
   * observed ISC bit for bit: a tie, which counts.
   */
  private double[] circleShiftNull(double[] values, int n, int p) {
    int[][] shifts = new int[p][];
    for (int r = 0; r < p; r++) {
      shifts[r] = SubjectDraws.subjectShifts(o.seed(), r, s, t);
    }
    boolean mean = o.metric() == IscMetric.MEAN;
    double[] out = new double[p * vb];
    double[] z = new double[s * t];
    double[] zext = new double[2 * t * s + t]; // each subject twice in a row, ld 2T
    double[] lag = new double[s * s];
    double[] table = new double[n * t]; // table[pair * T + d]
    double[] scratch = new double[n];
    long[] keys = new long[n];
    for (int v = 0; v < vb; v++) {
      if (Double.isNaN(values[v * n])) {
        for (int r = 0; r < p; r++) {
          out[r * vb + v] = Double.NaN;
        }
        continue;
      }
      System.arraycopy(raw, v * s * t, z, 0, s * t);
      for (int si = 0; si < s; si++) {
        Series.standardize(z, si * t, t);
        System.arraycopy(z, si * t, zext, si * 2 * t, t);
        System.arraycopy(z, si * t, zext, si * 2 * t + t, t);
      }
      for (int d = 1; d < t; d++) {
        // lag[i + j*S] = Σ_u z_i[u] z_j[(u + d) mod T]
        blas.dgemm("T", "N", s, s, t, 1.0, z, 0, t, zext, d, 2 * t, 0.0, lag, 0, s);
        int idx = 0;
        for (int i = 0; i < s; i++) {
          for (int j = i + 1; j < s; j++) {
            table[idx++ * t + d] = Isc.clamp(lag[j * s + i]);
          }
        }
      }
      for (int idx = 0; idx < n; idx++) {
        table[idx * t] = values[v * n + idx];
      }
      if (mean) {
        for (int i = 0; i < table.length; i++) {
          table[i] = IscMath.fisherZ(table[i]);
        }
      }
      for (int r = 0; r < p; r++) {
        int[] a = shifts[r];
        int idx = 0;
        double zsum = 0;
        for (int i = 0; i < s; i++) {
          for (int j = i + 1; j < s; j++) {
            int d = a[i] - a[j];
            double x = table[idx * t + (d < 0 ? d + t : d)];
            scratch[idx++] = x;
            zsum += x;
          }
        }
        out[r * vb + v] = mean ? StrictMath.tanh(zsum / n)
            : QuickSelect.median(scratch, 0, n, keys);
      }
    }
    return out;
  }

  /**
   * The prepared series of the block (as {@link #correlations} leaves them in work) in the
   * orthonormal real Fourier basis: row 0 the mean, rows 2k−1 and 2k the cosine and sine
   * parts of frequency k = 1..⌊(T−1)/2⌋, row T−1 the Nyquist term when T is even. One GEMM for
   * the block. Dot products are unchanged (Parseval), and both surrogates act per subject as
   * rotations of each frequency's (cos, sin) pair: phase randomization by φ_k, a circular
   * shift by a by −2πka/T (and the Nyquist term by (−1)^a). So a surrogate's correlations
   * are dot products of rotated coefficients, with no per-series convolution.
   */
  private double[] spectra() { // reads work as left by correlations(raw, ...)
    double[] basis = new double[t * t]; // column-major: basis[row + u*T]
    double c0 = Math.sqrt(1.0 / t);
    double c1 = Math.sqrt(2.0 / t);
    for (int u = 0; u < t; u++) {
      basis[u * t] = c0;
      for (int k = 1; 2 * k < t; k++) {
        double angle = 2 * Math.PI * (((long) k * u) % t) / t;
        basis[2 * k - 1 + u * t] = c1 * StrictMath.cos(angle);
        basis[2 * k + u * t] = -c1 * StrictMath.sin(angle);
      }
      if (t % 2 == 0) {
        basis[t - 1 + u * t] = (u % 2 == 0) ? c0 : -c0;
      }
    }
    double[] out = new double[raw.length];
    // out (T x S*vb) = basis (T x T) * work (T x S*vb)
    blas.dgemm("N", "N", t, s * vb, t, 1.0, basis, 0, t, work, 0, t, 0.0, out, 0, t);
    return out;
  }

  /** Replicate r's surrogate coefficients: each subject's frequencies rotated by its draw. */
  private void rotate(double[] spectra, long replicate, double[] out) {
    int kmax = (t - 1) / 2;
    double[] cos = new double[s * kmax];
    double[] sin = new double[s * kmax];
    double[] nyquist = new double[s];
    if (o.nullMethod() == IscNull.CIRCLE_SHIFT) {
      int[] shifts = SubjectDraws.subjectShifts(o.seed(), replicate, s, t);
      for (int si = 0; si < s; si++) {
        for (int k = 1; k <= kmax; k++) {
          double angle = -2 * Math.PI * (((long) k * shifts[si]) % t) / t;
          cos[si * kmax + k - 1] = StrictMath.cos(angle);
          sin[si * kmax + k - 1] = StrictMath.sin(angle);
        }
        nyquist[si] = shifts[si] % 2 == 0 ? 1.0 : -1.0;
      }
    } else {
      SplittableRandom rng = Seeds.forReplicate(o.seed(), replicate);
      for (int si = 0; si < s; si++) {
        double[] phases = Surrogates.drawPhases(rng, t);
        for (int k = 1; k <= kmax; k++) {
          cos[si * kmax + k - 1] = StrictMath.cos(phases[k - 1]);
          sin[si * kmax + k - 1] = StrictMath.sin(phases[k - 1]);
        }
        nyquist[si] = 1.0;
      }
    }
    for (int v = 0; v < vb; v++) {
      for (int si = 0; si < s; si++) {
        int off = (v * s + si) * t;
        out[off] = spectra[off];
        for (int k = 1; k <= kmax; k++) {
          double re = spectra[off + 2 * k - 1];
          double im = spectra[off + 2 * k];
          double c = cos[si * kmax + k - 1];
          double sn = sin[si * kmax + k - 1];
          out[off + 2 * k - 1] = re * c - im * sn;
          out[off + 2 * k] = re * sn + im * c;
        }
        if (t % 2 == 0) {
          out[off + t - 1] = spectra[off + t - 1] * nyquist[si];
        }
      }
    }
  }

  /** The bootstrap of one block: GEMM for Fisher means, weighted medians for medians. */
  private final class Bootstrap {
    private final int n;
    private final boolean pairwise;
    private final double[] fisher; // row-major (n, vb): the GEMM's right-hand operand
    private final double[] sorted; // per voxel, its n values ascending
    private final int[] item; // per voxel, the pair (or subject) of each sorted value
    /** Per replicate of the window, the weight of each pair (c_s c_t) or subject (c_s). */
    private final double[] weights;
    /** Medians: row-major (n, vb), 1 where the item is among the voxel's n/2 lowest. */
    private final double[] lowerHalf;
    private final double[] below;
    private final int[] counts;
    private final double[] totals;
    private final boolean[] defined;

    Bootstrap(double[] values, int n, int window) {
      this.n = n;
      this.pairwise = o.summary() == IscSummary.PAIRWISE;
      this.defined = new boolean[vb];
      for (int v = 0; v < vb; v++) {
        defined[v] = !Double.isNaN(values[v * n]);
      }
      this.counts = new int[s];
      this.totals = new double[window];
      this.weights = new double[window * n];
      if (o.metric() == IscMetric.MEAN) {
        fisher = new double[n * vb];
        for (int v = 0; v < vb; v++) {
          for (int i = 0; i < n; i++) {
            double r = values[v * n + i];
            fisher[i * vb + v] = Double.isNaN(r) ? 0.0 : IscMath.fisherZ(r);
          }
        }
        lowerHalf = null;
        below = null;
        sorted = null;
        item = null;
      } else {
        fisher = null;
        lowerHalf = new double[n * vb];
        below = new double[window * vb];
        sorted = new double[vb * n];
        item = new int[vb * n];
        for (int v = 0; v < vb; v++) {
          int base = v * n;
          if (!defined[v]) {
            continue;
          }
          System.arraycopy(values, base, sorted, base, n);
          for (int i = 0; i < n; i++) {
            item[base + i] = i;
          }
          IscMath.sortWithItems(sorted, item, base, base + n);
          for (int i = 0; i < n / 2; i++) {
            lowerHalf[item[base + i] * vb + v] = 1.0;
          }
        }
      }
    }

    void window(int r0, int rows, double[] out) {
      for (int r = 0; r < rows; r++) {
        SubjectDraws.subjectCounts(o.seed(), r0 + r, s, counts);
        int idx = r * n;
        long total = 0;
        if (pairwise) {
          for (int i = 0; i < s; i++) {
            for (int j = i + 1; j < s; j++) {
              long w = (long) counts[i] * counts[j];
              weights[idx++] = w;
              total += w;
            }
          }
        } else {
          for (int i = 0; i < s; i++) {
            weights[idx++] = counts[i];
            total += counts[i];
          }
        }
        totals[r] = total; // Σ_{s<t} c_s c_t, or S
      }
      if (fisher != null) {
        // out (vb x rows, column-major) = F (vb x n) * W (n x rows): row-major (rows, vb)
        blas.dgemm("N", "N", vb, rows, n, 1.0, fisher, 0, vb, weights, 0, n, 0.0, out, 0, vb);
        for (int r = 0; r < rows; r++) {
          double total = totals[r];
          for (int v = 0; v < vb; v++) {
            out[r * vb + v] = StrictMath.tanh(out[r * vb + v] / total);
          }
        }
        return;
      }
      // Weighted medians. The walk starts at each voxel's middle item m0 = n/2, not at the
      // smallest: the weight below m0 for every replicate and voxel of the window is W · L, L
      // the 0/1 indicator of each voxel's lower half: one GEMM per cell, exact (integer sums far
      // below 2^53). The median is then usually a short walk away.
      int m0 = n / 2;
      // below (vb x rows, column-major) = L (vb x n) * W (n x rows): row-major (rows, vb)
      blas.dgemm("N", "N", vb, rows, n, 1.0, lowerHalf, 0, vb, weights, 0, n, 0.0, below, 0,
          vb);
      for (int v = 0; v < vb; v++) {
        int base = v * n;
        for (int r = 0; r < rows; r++) {
          out[r * vb + v] = defined[v]
              ? IscMath.weightedMedian(sorted, item, base, n, weights, r * n,
                  (long) totals[r], m0, (long) below[r * vb + v])
              : Double.NaN;
        }
      }
    }
  }
}
