// nlspark per-value math, the one source for the device kernels (NVRTC, --fmad=false) and their
// host build (gcc, -ffp-contract=off; see src/main/native/nlspark_host.cpp). Every function ports
// an expression of the Java CPU kernels (org.nlspark.core.stats) operation for operation, with
// Java's rules where C's differ (Math.max with NaN and signed zeros, Math.copySign), so a float64
// run equals the CPU bit for bit given the same GEMM products.
//
// The host build defines __host__, __device__ and __forceinline__ away and supplies the bit
// casts; CudaContext.kernelSource() pastes this file in place of its #include for NVRTC.

#ifndef NLSPARK_MATH_CUH
#define NLSPARK_MATH_CUH

#define NL_HD __host__ __device__ __forceinline__

// Java's Math.max(0.0, x) and Math.max(x, 0.0): NaN stays NaN, -0.0 becomes 0.0.
NL_HD double nl_max0(double x) {
  return (x < 0.0 || x == 0.0) ? 0.0 : x;
}

// Java's Math.max(-1.0, Math.min(1.0, r)): NaN stays NaN, -0.0 stays -0.0.
NL_HD double nl_clamp_unit(double r) {
  return r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
}

// The total order NullMaxAccumulator keeps: a < b, and +0.0 above -0.0; false when either is NaN.
NL_HD bool nl_key_less(double a, double b) {
  return a < b || (a == b && __double_as_longlong(a) < __double_as_longlong(b));
}

// Extremeness key (Tail.key then PermutationFold): 0 TWO |s|, 1 UPPER s, 2 LOWER -s; a NaN key
// becomes -Infinity, so it never counts and never raises a maximum.
NL_HD double nl_tail_key(double s, long long tail) {
  double k = tail == 0 ? fabs(s) : (tail == 1 ? s : -s);
  return k == k ? k : __longlong_as_double((long long)0xfff0000000000000ULL);
}

// ---- one-sample under sign flips (SignFlipStatistic) ----
// With g = D * X and scale = n * sum(x^2): ratio = g^2 / max(scale - g^2, 0), so a flip whose
// variance term rounds to zero or below gives +Infinity (t = +-Infinity), never NaN.
NL_HD double nl_flip_ratio(double g, double scale) {
  double u = g * g;
  return u / nl_max0(scale - u);
}

// t = copySign(sqrt((n - 1) * ratio), g).
NL_HD double nl_flip_t_from_ratio(double ratio, double g, long long n) {
  return copysign(sqrt((double)(n - 1) * ratio), g);
}

NL_HD double nl_flip_t(double g, double scale, long long n) {
  return nl_flip_t_from_ratio(nl_flip_ratio(g, scale), g, n);
}

NL_HD double nl_flip_mean(double g, long long n) {
  return g / (double)n;
}

// Relative width of the band below |g_obs| where the two-tailed t count is decided by the exact
// ratio (SignFlipStatistic.NEAR_BAND).
#define NL_FLIP_NEAR_BAND 1e-7

// Per-voxel thresholds of the fused two-tailed fold from the observed product g (prepareThresholds):
// th[0] the observed key (ratio for t, |g| for the mean), th[1] |g_obs|, th[2] the band's centre,
// th[3] its half-width. An undefined voxel (scale +Infinity) never counts.
NL_HD void nl_flip_thresholds(double g, double scale, bool tstat, double* th) {
  bool undefined = scale == __longlong_as_double(0x7ff0000000000000LL);
  double inf = __longlong_as_double(0x7ff0000000000000LL);
  double ag = fabs(g);
  double low = ag * (1 - NL_FLIP_NEAR_BAND);
  th[0] = undefined ? inf : (tstat ? nl_flip_ratio(g, scale) : ag);
  th[1] = undefined ? inf : ag;
  th[2] = undefined ? inf : (ag + low) / 2;
  th[3] = undefined ? 0.0 : (ag - low) / 2;
}

// Two-tailed t count of one null product (SignFlipStatistic.foldRowT): |g| >= |g_obs| counts
// (the sign bit of |g| - |g_obs|, as the CPU tests it), and inside the band below |g_obs| the exact
// ratio decides.
NL_HD int nl_flip_t_count(double g, double scale, double thr, double obs, double mid,
                          double half) {
  double ag = fabs(g);
  int c = __double_as_longlong(ag - obs) >= 0 ? 1 : 0;
  if (fabs(ag - mid) < half) {
    c += (ag < obs && nl_flip_ratio(g, scale) >= thr) ? 1 : 0;
  }
  return c;
}

// Two-tailed mean count: |g| >= |g_obs| (on the product, before the division by n).
NL_HD int nl_flip_mean_count(double g, double obs) {
  return fabs(g) >= obs ? 1 : 0;
}

// A replicate's maximum two-tailed key from its maximum fold key m (the largest ratio, or the
// largest |g|, over the block's voxels): sqrt((n - 1) * m) for t, m / n for the mean.
NL_HD double nl_flip_row_max(double m, bool tstat, long long n) {
  return tstat ? sqrt((double)(n - 1) * m) : m / (double)n;
}

// ---- two-sample under label permutation (TwoSampleStatistic) ----
// s1, q1: group 1's sums of the (shifted or centred) data and of its squares; total, total_sq the
// column totals; a = n1, c = n2.
NL_HD double nl_mean_diff(double s1, double total, double a, double c) {
  double s2 = total - s1;
  return s1 / a - s2 / c;
}

NL_HD double nl_welch_t(double s1, double q1, double total, double total_sq, double a, double c) {
  double s2 = total - s1;
  double m1 = s1 / a;
  double m2 = s2 / c;
  double q2 = total_sq - q1;
  double v1 = nl_max0((q1 - s1 * m1) / (a - 1));
  double v2 = nl_max0((q2 - s2 * m2) / (c - 1));
  return (m1 - m2) / sqrt(v1 / a + v2 / c);
}

// ---- correlation (CorrelationStatistic) ----
// Pearson: the product of standardised columns, clamped. Spearman: the exact integer sum of
// centred doubled ranks (2 rank - (n + 1)) over its per-voxel denominator sqrt(sxx * syy), clamped.
NL_HD double nl_pearson(double p) {
  return nl_clamp_unit(p);
}

NL_HD double nl_spearman(double p, double denominator) {
  return nl_clamp_unit(p / denominator);
}

// ---- bootstrap linear statistics (BootstrapLinearStatistic) ----
// kind 0 SUM, 1 MEAN, 2 STD (ddof 0, on centred data: p2 the product with the squares).
NL_HD double nl_bootstrap_linear(double p, double p2, double nd, long long kind) {
  if (kind == 0) {
    return p;
  }
  if (kind == 1) {
    return p / nd;
  }
  double m = p / nd;
  return sqrt(nl_max0(p2 / nd - m * m));
}

// ---- window moments (MomentAccumulator.ofWindow) ----
// mean = x0 + sum_{r >= 1}(x_r - x0) / rows (exact for a constant column);
// m2 = sum over rows of (x_r - mean)^2, in row order. x points at the column, stride b.
NL_HD void nl_window_moments(const double* x, long long rows, long long b, double* mean,
                             double* m2) {
  double x0 = x[0];
  double s = 0.0;
  for (long long r = 1; r < rows; r++) {
    s += x[r * b] - x0;
  }
  double mu = x0 + s / (double)rows;
  double q = 0.0;
  for (long long r = 0; r < rows; r++) {
    double d = x[r * b] - mu;
    q += d * d;
  }
  *mean = mu;
  *m2 = q;
}

// ---- bootstrap order statistics (BootstrapOrderStatistic) ----
// Walks a voxel's sorted column (values sv, source rows sr) accumulating the replicate's draw
// counts c. kind 0 MEDIAN (numpy: the mean of the two middle values when n is even), 1 MIN, 2 MAX.
NL_HD double nl_bootstrap_order(const int* c, const double* sv, const int* sr, long long n,
                                long long kind) {
  double nan = __longlong_as_double(0x7ff8000000000000LL);
  if (kind == 1) {
    for (long long j = 0; j < n; j++) {
      if (c[sr[j]] > 0) return sv[j];
    }
    return nan;
  }
  if (kind == 2) {
    for (long long j = n - 1; j >= 0; j--) {
      if (c[sr[j]] > 0) return sv[j];
    }
    return nan;
  }
  long long lo = (n - 1) / 2;
  long long hi = n / 2;
  long long seen = 0;
  double a = nan;
  for (long long j = 0; j < n; j++) {
    seen += c[sr[j]];
    if (a != a && seen > lo) a = sv[j];
    if (seen > hi) {
      return lo == hi ? a : (a + sv[j]) / 2.0;
    }
  }
  return nan;
}

#endif  // NLSPARK_MATH_CUH
