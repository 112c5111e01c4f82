/*
 * The host build of the CUDA kernels (nlspark_kernels.cu with nlspark_math.cuh), compiled by the
 * same Maven step as the CUDA shim and linked into the same library, for
 * org.nlspark.core.gpu.HostKernels: the CPU parity suite runs the very kernel source the GPU runs
 * and compares it bit for bit with the Java CPU kernels, without a GPU.
 *
 * A launch is emulated as loops over blocks and threads, one thread at a time, in index order.
 * That is faithful for every kernel whose threads only write their own outputs; row_maxima, whose
 * threads meet at a block barrier, is split into its two phases (row_max_partial, row_max_step)
 * and each phase runs for every thread of a block before the next, as the barrier orders them.
 * Compiled with -ffp-contract=off (no a*b+c fusion, as NVRTC's --fmad=false); x86-64 doubles use
 * SSE2, so every operation rounds once, as on the device and in Java.
 *
 * "Device memory" is host memory from calloc; addresses are pointers carried as jlong.
 */
#include <jni.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {
struct NlDim3 {
  unsigned int x, y, z;
};
}  // namespace

/* CUDA's built-in index variables, per calling thread. */
static __thread NlDim3 blockIdx, threadIdx, blockDim, gridDim;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline

static inline long long __double_as_longlong(double x) {
  long long r;
  memcpy(&r, &x, sizeof r);
  return r;
}

static inline double __longlong_as_double(long long x) {
  double r;
  memcpy(&r, &x, sizeof r);
  return r;
}

#include "nlspark_kernels.cu"

/* ---------------------------------------------------------------- launch emulation */

typedef const jlong *Args;

template <typename T>
static T ptr(Args a, int i) {
  return (T)(intptr_t)a[i];
}

static long long ll(Args a, int i) { return (long long)a[i]; }

static double dbl(Args a, int i) { return __longlong_as_double((long long)a[i]); }

/* Runs body once per (block, thread) with the index variables set, blocks then threads in order. */
template <typename Body>
static void each_thread(unsigned grid, unsigned block, Body body) {
  gridDim = NlDim3{grid, 1, 1};
  blockDim = NlDim3{block, 1, 1};
  for (unsigned bx = 0; bx < grid; bx++) {
    blockIdx = NlDim3{bx, 0, 0};
    for (unsigned t = 0; t < block; t++) {
      threadIdx = NlDim3{t, 0, 0};
      body();
    }
  }
}

/* row_maxima with its barrier: every thread's partial maximum, then each reduction step for every
 * thread before the next step (the device kernel's __syncthreads points). */
static void row_maxima_host(unsigned grid, unsigned block, Args a) {
  const double *keys = ptr<const double *>(a, 0);
  long long rows = ll(a, 1), b = ll(a, 2);
  double *maxima = ptr<double *>(a, 3);
  double best[1024];
  for (unsigned bx = 0; bx < grid; bx++) {
    long long r = bx;
    if (r >= rows) continue;
    for (unsigned t = 0; t < block; t++) best[t] = row_max_partial(keys, r, b, t, block);
    for (unsigned s = block / 2; s > 0; s >>= 1) {
      for (unsigned t = 0; t < block; t++) row_max_step(best, t, s);
    }
    maxima[r] = best[0];
  }
}

#define NL_HOST_TYPED(T, S)                                                                    \
  if (strcmp(name, "sign_flip_" #S) == 0) {                                                    \
    each_thread(grid, block, [&] {                                                             \
      sign_flip_##S(ptr<const T *>(a, 0), ptr<double *>(a, 1), ll(a, 2), ll(a, 3), ll(a, 4),   \
                    ll(a, 5), ptr<const double *>(a, 6));                                      \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "flip_fold_keys_" #S) == 0) {                                               \
    each_thread(grid, block, [&] {                                                             \
      flip_fold_keys_##S(ptr<const T *>(a, 0), ptr<double *>(a, 1), ll(a, 2), ll(a, 3),        \
                         ll(a, 4), ptr<const double *>(a, 5));                                 \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "flip_count_" #S) == 0) {                                                   \
    each_thread(grid, block, [&] {                                                             \
      flip_count_##S(ptr<const T *>(a, 0), ll(a, 1), ll(a, 2), ll(a, 3),                       \
                     ptr<const double *>(a, 4), ptr<const double *>(a, 5),                     \
                     ptr<unsigned long long *>(a, 6));                                         \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "flip_thresholds_" #S) == 0) {                                              \
    each_thread(grid, block, [&] {                                                             \
      flip_thresholds_##S(ptr<const T *>(a, 0), ll(a, 1), ll(a, 2), ptr<const double *>(a, 3), \
                          ptr<double *>(a, 4));                                                \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "two_sample_" #S) == 0) {                                                   \
    each_thread(grid, block, [&] {                                                             \
      two_sample_##S(ptr<const T *>(a, 0), ptr<const T *>(a, 1), ptr<double *>(a, 2), ll(a, 3), \
                     ll(a, 4), dbl(a, 5), dbl(a, 6), ll(a, 7), ptr<const double *>(a, 8),      \
                     ptr<const double *>(a, 9));                                               \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "correlation_" #S) == 0) {                                                  \
    each_thread(grid, block, [&] {                                                             \
      correlation_##S(ptr<const T *>(a, 0), ptr<double *>(a, 1), ll(a, 2), ll(a, 3),           \
                      ptr<const double *>(a, 4));                                              \
    });                                                                                        \
    return 1;                                                                                  \
  }                                                                                            \
  if (strcmp(name, "bootstrap_linear_" #S) == 0) {                                             \
    each_thread(grid, block, [&] {                                                             \
      bootstrap_linear_##S(ptr<const T *>(a, 0), ptr<const T *>(a, 1), ptr<double *>(a, 2),    \
                           ll(a, 3), ll(a, 4), dbl(a, 5), ll(a, 6));                           \
    });                                                                                        \
    return 1;                                                                                  \
  }

/* Runs kernel name; 1 when it exists, else 0. */
static int launch_by_name(const char *name, unsigned grid, unsigned block, Args a) {
  NL_HOST_TYPED(float, f32)
  NL_HOST_TYPED(double, f64)
  if (strcmp(name, "flip_row_max") == 0) {
    each_thread(grid, block, [&] {
      flip_row_max(ptr<double *>(a, 0), ll(a, 1), ll(a, 2), ll(a, 3), ll(a, 4));
    });
    return 1;
  }
  if (strcmp(name, "set_columns") == 0) {
    each_thread(grid, block, [&] {
      set_columns(ptr<double *>(a, 0), ll(a, 1), ll(a, 2), ptr<const int *>(a, 3), ll(a, 4),
                  ptr<const double *>(a, 5));
    });
    return 1;
  }
  if (strcmp(name, "tail_keys") == 0) {
    each_thread(grid, block, [&] { tail_keys(ptr<double *>(a, 0), ll(a, 1), ll(a, 2)); });
    return 1;
  }
  if (strcmp(name, "count_exceedances") == 0) {
    each_thread(grid, block, [&] {
      count_exceedances(ptr<const double *>(a, 0), ll(a, 1), ll(a, 2), ptr<const double *>(a, 3),
                        ptr<unsigned long long *>(a, 4));
    });
    return 1;
  }
  if (strcmp(name, "row_maxima") == 0) {
    row_maxima_host(grid, block, a);
    return 1;
  }
  if (strcmp(name, "window_moments") == 0) {
    each_thread(grid, block, [&] {
      window_moments(ptr<const double *>(a, 0), ll(a, 1), ll(a, 2), ptr<double *>(a, 3),
                     ptr<double *>(a, 4));
    });
    return 1;
  }
  if (strcmp(name, "bootstrap_order") == 0) {
    each_thread(grid, block, [&] {
      bootstrap_order(ptr<const int *>(a, 0), ptr<const double *>(a, 1), ptr<const int *>(a, 2),
                      ptr<double *>(a, 3), ll(a, 4), ll(a, 5), ll(a, 6), ll(a, 7));
    });
    return 1;
  }
  return 0;
}

/* ---------------------------------------------------------------- JNI */

static void throw_java(JNIEnv *env, const char *cls, const char *msg) {
  if (env->ExceptionCheck()) return;
  jclass c = env->FindClass(cls);
  if (c != NULL) env->ThrowNew(c, msg);
}

extern "C" {

JNIEXPORT jlong JNICALL Java_org_nlspark_core_gpu_HostKernels_alloc(JNIEnv *env, jclass,
                                                                    jlong bytes) {
  void *p = calloc((size_t)(bytes > 0 ? bytes : 1), 1);
  if (p == NULL) {
    char msg[160];
    snprintf(msg, sizeof msg, "Cannot allocate %lld bytes of emulated device memory",
             (long long)bytes);
    throw_java(env, "java/lang/OutOfMemoryError", msg);
  }
  return (jlong)(intptr_t)p;
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_HostKernels_free(JNIEnv *, jclass, jlong p) {
  free((void *)(intptr_t)p);
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_HostKernels_zero(JNIEnv *, jclass, jlong p,
                                                                  jlong bytes) {
  memset((void *)(intptr_t)p, 0, (size_t)bytes);
}

/* Short copies inside the critical region: nothing here blocks. */
JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_HostKernels_copyIn(JNIEnv *env, jclass,
                                                                    jlong dst, jobject array,
                                                                    jlong offset, jlong bytes) {
  char *host = (char *)env->GetPrimitiveArrayCritical((jarray)array, NULL);
  if (host == NULL) return;
  memcpy((void *)(intptr_t)dst, host + offset, (size_t)bytes);
  env->ReleasePrimitiveArrayCritical((jarray)array, host, JNI_ABORT);
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_HostKernels_copyOut(JNIEnv *env, jclass,
                                                                     jobject array, jlong offset,
                                                                     jlong src, jlong bytes) {
  char *host = (char *)env->GetPrimitiveArrayCritical((jarray)array, NULL);
  if (host == NULL) return;
  memcpy(host + offset, (const void *)(intptr_t)src, (size_t)bytes);
  env->ReleasePrimitiveArrayCritical((jarray)array, host, 0);
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_HostKernels_launch(JNIEnv *env, jclass,
                                                                    jstring name, jint grid,
                                                                    jint block, jlongArray args) {
  jlong slots[32];
  jsize n = env->GetArrayLength(args);
  if (n > 32 || block < 1 || block > 1024 || grid < 0) {
    throw_java(env, "java/lang/IllegalArgumentException",
               "[BUG] an emulated launch takes at most 32 parameters and 1..1024 threads");
    return;
  }
  env->GetLongArrayRegion(args, 0, n, slots);
  const char *nm = env->GetStringUTFChars(name, NULL);
  int found = launch_by_name(nm, (unsigned)grid, (unsigned)block, slots);
  if (!found) {
    char msg[256];
    snprintf(msg, sizeof msg, "[BUG] the host build has no kernel %s", nm);
    env->ReleaseStringUTFChars(name, nm);
    throw_java(env, "java/lang/IllegalArgumentException", msg);
    return;
  }
  env->ReleaseStringUTFChars(name, nm);
}

}  // extern "C"
