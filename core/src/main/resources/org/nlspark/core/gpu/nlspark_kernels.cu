// nlspark GPU epilogues: the statistic of each replicate from the GEMM products, extremeness
// keys, exceedance counts, per-replicate maxima and bootstrap window moments. They port the CPU
// kernels of org.nlspark.core.stats formula for formula; compiled by NVRTC with --fmad=false so
// every double expression rounds as Java's does, and a float64 run differs from the CPU only
// through the GEMM products (DESIGN §5).
//
// Launch convention (CudaNative.launch): every parameter is 8 bytes wide — a device pointer, a
// long long or a double. Elementwise kernels take one thread per (replicate row, voxel) of a
// row-major rows x b buffer.

#define NL_NAN __longlong_as_double(0x7ff8000000000000LL)
#define NL_NEG_INF __longlong_as_double(0xfff0000000000000ULL)

// Java's Math.max(0.0, x): NaN stays NaN, -0.0 becomes 0.0.
__device__ __forceinline__ double jmax0(double x) {
  return (x < 0.0 || x == 0.0) ? 0.0 : x;
}

// The order NullMaxAccumulator keeps: a < b, and +0.0 above -0.0; false when either is NaN.
__device__ __forceinline__ bool key_less(double a, double b) {
  return a < b || (a == b && __double_as_longlong(a) < __double_as_longlong(b));
}

__device__ __forceinline__ long long thread_index() {
  return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

// One-sample under sign flips (SignFlipStatistic): g = D * X; mean = g / n;
// var = (sum(x^2) - g * mean) / (n - 1); t = mean / sqrt(var / n).
template <typename T>
__device__ void sign_flip(const T* g, double* out, long long rows, long long b, long long n,
                          long long tstat, const double* ssq) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double nd = (double)n;
  double gv = (double)g[i];
  double mean = gv / nd;
  if (!tstat) {
    out[i] = mean;
    return;
  }
  double var = (ssq[i % b] - gv * mean) / (double)(n - 1);
  out[i] = mean / sqrt(var / nd);
}

// Two-sample under label permutation (TwoSampleStatistic), group 1 minus group 2, data centred.
template <typename T>
__device__ void two_sample(const T* s1p, const T* q1p, double* out, long long rows, long long b,
                           double a, double c, long long welch, const double* total,
                           const double* total_sq) {
  long long i = thread_index();
  if (i >= rows * b) return;
  long long v = i % b;
  double s1 = (double)s1p[i];
  double s2 = total[v] - s1;
  double m1 = s1 / a;
  double m2 = s2 / c;
  if (!welch) {
    out[i] = m1 - m2;
    return;
  }
  double q1 = (double)q1p[i];
  double q2 = total_sq[v] - q1;
  double v1 = jmax0((q1 - s1 * m1) / (a - 1));
  double v2 = jmax0((q2 - s2 * m2) / (c - 1));
  out[i] = (m1 - m2) / sqrt(v1 / a + v2 / c);
}

// Correlation (CorrelationStatistic): r = D * Xs, clamped to [-1, 1] as Math.max/min do.
template <typename T>
__device__ void correlation(const T* p, double* out, long long rows, long long b) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double r = (double)p[i];
  out[i] = r > 1.0 ? 1.0 : (r < -1.0 ? -1.0 : r);
}

// Bootstrap sum / mean / std with ddof = 0 (BootstrapLinearStatistic); kind 0 SUM, 1 MEAN, 2 STD.
template <typename T>
__device__ void bootstrap_linear(const T* p, const T* p2, double* out, long long rows,
                                 long long b, double nd, long long kind) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double s = (double)p[i];
  if (kind == 0) {
    out[i] = s;
  } else if (kind == 1) {
    out[i] = s / nd;
  } else {
    double m = s / nd;
    out[i] = sqrt(jmax0((double)p2[i] / nd - m * m));
  }
}

#define NL_INSTANTIATE(T, S)                                                                     \
  extern "C" __global__ void sign_flip_##S(const T* g, double* out, long long rows, long long b, \
                                           long long n, long long tstat, const double* ssq) {    \
    sign_flip<T>(g, out, rows, b, n, tstat, ssq);                                                \
  }                                                                                              \
  extern "C" __global__ void two_sample_##S(const T* s1, const T* q1, double* out,               \
                                            long long rows, long long b, double a, double c,     \
                                            long long welch, const double* total,                \
                                            const double* total_sq) {                            \
    two_sample<T>(s1, q1, out, rows, b, a, c, welch, total, total_sq);                           \
  }                                                                                              \
  extern "C" __global__ void correlation_##S(const T* p, double* out, long long rows,            \
                                             long long b) {                                      \
    correlation<T>(p, out, rows, b);                                                             \
  }                                                                                              \
  extern "C" __global__ void bootstrap_linear_##S(const T* p, const T* p2, double* out,          \
                                                  long long rows, long long b, double nd,        \
                                                  long long kind) {                              \
    bootstrap_linear<T>(p, p2, out, rows, b, nd, kind);                                          \
  }

NL_INSTANTIATE(float, f32)
NL_INSTANTIATE(double, f64)

// out[r, cols[k]] := values[k] for every row: a constant voxel's exact statistic, or NaN for a
// voxel whose statistic is undefined.
extern "C" __global__ void set_columns(double* out, long long rows, long long b, const int* cols,
                                       long long count, const double* values) {
  long long i = thread_index();
  if (i >= rows * count) return;
  long long r = i / count;
  long long k = i % count;
  out[r * b + cols[k]] = values[k];
}

// Extremeness key in place (Tail.key): 0 TWO |s|, 1 UPPER s, 2 LOWER -s; NaN stays NaN.
extern "C" __global__ void tail_keys(double* x, long long total, long long tail) {
  long long i = thread_index();
  if (i >= total) return;
  double s = x[i];
  x[i] = tail == 0 ? fabs(s) : (tail == 1 ? s : -s);
}

// counts[v] += #{r < rows : keys[r, v] >= observed[v]}; NaN on either side never counts
// (ExceedanceCounter). One thread per voxel, so no atomics and exact integer counts.
extern "C" __global__ void count_exceedances(const double* keys, long long rows, long long b,
                                             const double* observed,
                                             unsigned long long* counts) {
  long long v = thread_index();
  if (v >= b) return;
  double o = observed[v];
  unsigned long long c = 0;
  for (long long r = 0; r < rows; r++) {
    double k = keys[r * b + v];
    if (k >= o) c++;  // false when either is NaN
  }
  counts[v] += c;
}

// maxima[r] := max over voxels of keys[r, :], NaN ignored, -Infinity when all are NaN
// (NullMaxAccumulator). One block of 256 threads per replicate row; max is exact in any order.
extern "C" __global__ void row_maxima(const double* keys, long long rows, long long b,
                                      double* maxima) {
  __shared__ double best[256];
  long long r = blockIdx.x;
  if (r >= rows) return;
  double m = NL_NEG_INF;
  for (long long v = threadIdx.x; v < b; v += blockDim.x) {
    double k = keys[r * b + v];
    if (key_less(m, k)) m = k;
  }
  best[threadIdx.x] = m;
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s && key_less(best[threadIdx.x], best[threadIdx.x + s])) {
      best[threadIdx.x] = best[threadIdx.x + s];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) maxima[r] = best[0];
}

// Two-pass window moments per voxel, in the order MomentAccumulator.ofWindow uses:
// mean = (sum over rows in order) / rows; m2 = sum over rows of (x - mean)^2.
extern "C" __global__ void window_moments(const double* x, long long rows, long long b,
                                          double* mean, double* m2) {
  long long v = thread_index();
  if (v >= b) return;
  // shifted mean, as MomentAccumulator.ofWindow: exact for a constant voxel
  double x0 = x[v];
  double s = 0.0;
  for (long long r = 1; r < rows; r++) s += x[r * b + v] - x0;
  double mu = x0 + s / (double)rows;
  double q = 0.0;
  for (long long r = 0; r < rows; r++) {
    double d = x[r * b + v] - mu;
    q += d * d;
  }
  mean[v] = mu;
  m2[v] = q;
}

// Bootstrap median / min / max (BootstrapOrderStatistic) from per-row draw counts: walk the
// voxel's sorted column accumulating counts. kind 0 MEDIAN, 1 MIN, 2 MAX. counts is rows x n,
// sorted values and their source rows are voxel-major (v * n + j).
extern "C" __global__ void bootstrap_order(const int* counts, const double* sorted_values,
                                           const int* sorted_rows, double* out, long long rows,
                                           long long b, long long n, long long kind) {
  long long i = thread_index();
  if (i >= rows * b) return;
  long long r = i / b;
  long long v = i % b;
  const int* c = counts + r * n;
  const double* sv = sorted_values + v * n;
  const int* sr = sorted_rows + v * n;
  double result = NL_NAN;
  if (kind == 1) {
    for (long long j = 0; j < n; j++) {
      if (c[sr[j]] > 0) { result = sv[j]; break; }
    }
  } else if (kind == 2) {
    for (long long j = n - 1; j >= 0; j--) {
      if (c[sr[j]] > 0) { result = sv[j]; break; }
    }
  } else {
    long long lo = (n - 1) / 2;
    long long hi = n / 2;
    long long seen = 0;
    double a = NL_NAN;
    for (long long j = 0; j < n; j++) {
      seen += c[sr[j]];
      if (isnan(a) && seen > lo) a = sv[j];
      if (seen > hi) {
        result = lo == hi ? a : (a + sv[j]) / 2.0;
        break;
      }
    }
  }
  out[i] = result;
}
