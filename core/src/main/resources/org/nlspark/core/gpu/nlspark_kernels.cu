// nlspark GPU epilogues: the statistic of each replicate from the GEMM products, extremeness
// keys, exceedance counts, per-replicate maxima and bootstrap window moments. The per-value math
// is nlspark_math.cuh, shared with the host build of these kernels (src/main/native/
// nlspark_host.cpp) that the CPU parity suite runs against the Java kernels; compiled by NVRTC
// with --fmad=false and by gcc with -ffp-contract=off, so neither side fuses a*b+c and a float64
// run differs from the CPU only through the GEMM products (DESIGN §5).
//
// Launch convention (CudaNative.launch): every parameter is 8 bytes wide — a device pointer, a
// long long or a double. Elementwise kernels take one thread per (replicate row, voxel) of a
// row-major rows x b buffer; per-voxel kernels one thread per voxel; row_maxima one block per row.

#include "nlspark_math.cuh"

__device__ __forceinline__ long long thread_index() {
  return (long long)blockIdx.x * blockDim.x + threadIdx.x;
}

// One-sample under sign flips: t (tstat) or the mean of every (row, voxel) from g = D * X;
// scale[v] = n * sum(x^2), +Infinity for a voxel without t.
template <typename T>
__device__ void sign_flip(const T* g, double* out, long long rows, long long b, long long n,
                          long long tstat, const double* scale) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double gv = (double)g[i];
  out[i] = tstat ? nl_flip_t(gv, scale[i % b], n) : nl_flip_mean(gv, n);
}

// The two-tailed fold key of every (row, voxel): the ratio (t) or |g| (mean); its row maximum
// gives the replicate's maximum |statistic| through nl_flip_row_max.
template <typename T>
__device__ void flip_fold_keys(const T* g, double* out, long long rows, long long b,
                               long long tstat, const double* scale) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double gv = (double)g[i];
  out[i] = tstat ? nl_flip_ratio(gv, scale[i % b]) : fabs(gv);
}

// counts[v] += the two-tailed counts of voxel v over rows; th holds 4 thresholds per voxel
// (nl_flip_thresholds). One thread per voxel: exact integer counts, no atomics.
template <typename T>
__device__ void flip_count(const T* g, long long rows, long long b, long long tstat,
                           const double* scale, const double* th, unsigned long long* counts) {
  long long v = thread_index();
  if (v >= b) return;
  const double* t = th + 4 * v;
  unsigned long long c = 0;
  for (long long r = 0; r < rows; r++) {
    double gv = (double)g[r * b + v];
    c += tstat ? nl_flip_t_count(gv, scale[v], t[0], t[1], t[2], t[3])
               : nl_flip_mean_count(gv, t[0]);
  }
  counts[v] += c;
}

// maxima[r] := the replicate's maximum two-tailed key from its maximum fold key (row_maxima of
// flip_fold_keys), or -Infinity when the block has no voxel with a statistic (any_defined 0).
extern "C" __global__ void flip_row_max(double* maxima, long long rows, long long tstat,
                                        long long n, long long any_defined) {
  long long r = thread_index();
  if (r >= rows) return;
  maxima[r] = any_defined ? nl_flip_row_max(maxima[r], tstat != 0, n)
                          : __longlong_as_double((long long)0xfff0000000000000ULL);
}

// Two-sample, group 1 minus group 2: the mean difference on integer-shifted data, or Welch t on
// centred data (q1 the products with the squares).
template <typename T>
__device__ void two_sample(const T* s1p, const T* q1p, double* out, long long rows, long long b,
                           double a, double c, long long welch, const double* total,
                           const double* total_sq) {
  long long i = thread_index();
  if (i >= rows * b) return;
  long long v = i % b;
  double s1 = (double)s1p[i];
  out[i] = welch ? nl_welch_t(s1, (double)q1p[i], total[v], total_sq[v], a, c)
                 : nl_mean_diff(s1, total[v], a, c);
}

// Correlation: Pearson when denominator is null, else Spearman over the per-voxel denominator.
template <typename T>
__device__ void correlation(const T* p, double* out, long long rows, long long b,
                            const double* denominator) {
  long long i = thread_index();
  if (i >= rows * b) return;
  double r = (double)p[i];
  out[i] = denominator == 0 ? nl_pearson(r) : nl_spearman(r, denominator[i % b]);
}

// Bootstrap sum / mean / std; kind 0 SUM, 1 MEAN, 2 STD.
template <typename T>
__device__ void bootstrap_linear(const T* p, const T* p2, double* out, long long rows,
                                 long long b, double nd, long long kind) {
  long long i = thread_index();
  if (i >= rows * b) return;
  out[i] = nl_bootstrap_linear((double)p[i], kind == 2 ? (double)p2[i] : 0.0, nd, kind);
}

#define NL_INSTANTIATE(T, S)                                                                     \
  extern "C" __global__ void sign_flip_##S(const T* g, double* out, long long rows, long long b, \
                                           long long n, long long tstat,                         \
                                           const double* scale) {                                \
    sign_flip<T>(g, out, rows, b, n, tstat, scale);                                              \
  }                                                                                              \
  extern "C" __global__ void flip_fold_keys_##S(const T* g, double* out, long long rows,         \
                                                long long b, long long tstat,                    \
                                                const double* scale) {                           \
    flip_fold_keys<T>(g, out, rows, b, tstat, scale);                                            \
  }                                                                                              \
  extern "C" __global__ void flip_count_##S(const T* g, long long rows, long long b,             \
                                            long long tstat, const double* scale,                \
                                            const double* th, unsigned long long* counts) {      \
    flip_count<T>(g, rows, b, tstat, scale, th, counts);                                         \
  }                                                                                              \
  extern "C" __global__ void two_sample_##S(const T* s1, const T* q1, double* out,               \
                                            long long rows, long long b, double a, double c,     \
                                            long long welch, const double* total,                \
                                            const double* total_sq) {                            \
    two_sample<T>(s1, q1, out, rows, b, a, c, welch, total, total_sq);                           \
  }                                                                                              \
  extern "C" __global__ void correlation_##S(const T* p, double* out, long long rows,            \
                                             long long b, const double* denominator) {           \
    correlation<T>(p, out, rows, b, denominator);                                                \
  }                                                                                              \
  extern "C" __global__ void bootstrap_linear_##S(const T* p, const T* p2, double* out,          \
                                                  long long rows, long long b, double nd,        \
                                                  long long kind) {                              \
    bootstrap_linear<T>(p, p2, out, rows, b, nd, kind);                                          \
  }                                                                                              \
  extern "C" __global__ void flip_thresholds_##S(const T* g, long long b, long long tstat,       \
                                                 const double* scale, double* th) {              \
    long long v = thread_index();                                                                \
    if (v >= b) return;                                                                          \
    nl_flip_thresholds((double)g[v], scale[v], tstat != 0, th + 4 * v);                          \
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

// Extremeness key in place (nl_tail_key): 0 TWO |s|, 1 UPPER s, 2 LOWER -s; NaN becomes -Infinity.
extern "C" __global__ void tail_keys(double* x, long long total, long long tail) {
  long long i = thread_index();
  if (i >= total) return;
  x[i] = nl_tail_key(x[i], tail);
}

// counts[v] += #{r < rows : keys[r, v] >= thresholds[v]} (thresholds: the observed key, +Infinity
// where it is NaN). One thread per voxel, so no atomics and exact integer counts.
extern "C" __global__ void count_exceedances(const double* keys, long long rows, long long b,
                                             const double* thresholds,
                                             unsigned long long* counts) {
  long long v = thread_index();
  if (v >= b) return;
  double o = thresholds[v];
  unsigned long long c = 0;
  for (long long r = 0; r < rows; r++) {
    if (keys[r * b + v] >= o) c++;
  }
  counts[v] += c;
}

// row_maxima in two explicit phases around the block barrier (the host build runs each phase for
// every thread of a block before the next): each thread's strided maximum, then a tree reduction.
// Max is exact in any order under nl_key_less. NaN is ignored; -Infinity when all are NaN.
__device__ __forceinline__ double row_max_partial(const double* keys, long long r, long long b,
                                                  long long t, long long threads) {
  double m = __longlong_as_double((long long)0xfff0000000000000ULL);
  for (long long v = t; v < b; v += threads) {
    double k = keys[r * b + v];
    if (nl_key_less(m, k)) m = k;
  }
  return m;
}

__device__ __forceinline__ void row_max_step(double* best, long long t, long long s) {
  if (t < s && nl_key_less(best[t], best[t + s])) best[t] = best[t + s];
}

#ifdef __CUDACC__
// maxima[r] := max over voxels of keys[r, :]; one block of 256 threads per replicate row.
extern "C" __global__ void row_maxima(const double* keys, long long rows, long long b,
                                      double* maxima) {
  __shared__ double best[256];
  long long r = blockIdx.x;
  if (r >= rows) return;
  best[threadIdx.x] = row_max_partial(keys, r, b, threadIdx.x, blockDim.x);
  __syncthreads();
  for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
    row_max_step(best, threadIdx.x, s);
    __syncthreads();
  }
  if (threadIdx.x == 0) maxima[r] = best[0];
}
#endif

// Two-pass window moments per voxel, in the order MomentAccumulator.ofWindow uses.
extern "C" __global__ void window_moments(const double* x, long long rows, long long b,
                                          double* mean, double* m2) {
  long long v = thread_index();
  if (v >= b) return;
  nl_window_moments(x + v, rows, b, mean + v, m2 + v);
}

// Bootstrap median / min / max from per-row draw counts; kind 0 MEDIAN, 1 MIN, 2 MAX. counts is
// rows x n; sorted values and their source rows are voxel-major (v * n + j).
extern "C" __global__ void bootstrap_order(const int* counts, const double* sorted_values,
                                           const int* sorted_rows, double* out, long long rows,
                                           long long b, long long n, long long kind) {
  long long i = thread_index();
  if (i >= rows * b) return;
  long long r = i / b;
  long long v = i % b;
  out[i] = nl_bootstrap_order(counts + r * n, sorted_values + v * n, sorted_rows + v * n, n,
                              kind);
}
