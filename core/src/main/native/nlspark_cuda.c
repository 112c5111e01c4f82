/*
 * JNI shim between org.nlspark.core.gpu.CudaNative and the CUDA driver, cuBLAS and NVRTC.
 *
 * Built with plain gcc and no CUDA toolkit: the few types and prototypes it needs are declared
 * below, and every library is opened with dlopen at run time, so the same .so loads on a machine
 * without a GPU and reports why no GPU is usable instead of failing to link.
 *
 * Conventions: every entry point that takes a context makes it current on the calling thread
 * first (Spark runs tasks on pooled threads). Errors become Java exceptions: a device
 * out-of-memory becomes org.nlspark.core.memory.DeviceOutOfMemoryException (so OomRecovery can
 * halve the work), anything else org.nlspark.core.gpu.CudaException. All work runs on the legacy
 * default stream, so copies, cuBLAS calls and kernel launches are ordered without events.
 */
#include <jni.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- CUDA driver API (subset) ---- */
typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef unsigned long long CUdeviceptr;

#define CUDA_SUCCESS 0
#define CUDA_ERROR_OUT_OF_MEMORY 2
#define CUDA_ERROR_NO_DEVICE 100
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR 75
#define CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR 76

/* ---- cuBLAS (subset) ---- */
typedef int cublasStatus_t;
typedef struct cublasContext *cublasHandle_t;
#define CUBLAS_STATUS_SUCCESS 0
#define CUBLAS_STATUS_ALLOC_FAILED 3

/* ---- NVRTC (subset) ---- */
typedef int nvrtcResult;
typedef struct _nvrtcProgram *nvrtcProgram;
#define NVRTC_SUCCESS 0

static struct {
  CUresult (*cuInit)(unsigned int);
  CUresult (*cuDriverGetVersion)(int *);
  CUresult (*cuDeviceGetCount)(int *);
  CUresult (*cuDeviceGet)(CUdevice *, int);
  CUresult (*cuDeviceGetName)(char *, int, CUdevice);
  CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
  CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
  CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
  CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
  CUresult (*cuCtxSetCurrent)(CUcontext);
  CUresult (*cuCtxSynchronize)(void);
  CUresult (*cuMemGetInfo)(size_t *, size_t *);
  CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
  CUresult (*cuMemFree)(CUdeviceptr);
  CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
  CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
  CUresult (*cuMemsetD8)(CUdeviceptr, unsigned char, size_t);
  CUresult (*cuModuleLoadData)(CUmodule *, const void *);
  CUresult (*cuModuleUnload)(CUmodule);
  CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
  CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int, unsigned int,
                             unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
  CUresult (*cuGetErrorName)(CUresult, const char **);

  cublasStatus_t (*cublasCreate)(cublasHandle_t *);
  cublasStatus_t (*cublasDestroy)(cublasHandle_t);
  cublasStatus_t (*cublasGetVersion)(cublasHandle_t, int *);
  cublasStatus_t (*cublasSgemm)(cublasHandle_t, int, int, int, int, int, const float *,
                                const float *, int, const float *, int, const float *, float *, int);
  cublasStatus_t (*cublasDgemm)(cublasHandle_t, int, int, int, int, int, const double *,
                                const double *, int, const double *, int, const double *, double *,
                                int);

  nvrtcResult (*nvrtcVersion)(int *, int *);
  nvrtcResult (*nvrtcCreateProgram)(nvrtcProgram *, const char *, const char *, int,
                                    const char *const *, const char *const *);
  nvrtcResult (*nvrtcCompileProgram)(nvrtcProgram, int, const char *const *);
  nvrtcResult (*nvrtcGetProgramLogSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetProgramLog)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetCUBINSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetCUBIN)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcGetPTXSize)(nvrtcProgram, size_t *);
  nvrtcResult (*nvrtcGetPTX)(nvrtcProgram, char *);
  nvrtcResult (*nvrtcDestroyProgram)(nvrtcProgram *);
  const char *(*nvrtcGetErrorString)(nvrtcResult);
} F;

static pthread_mutex_t open_lock = PTHREAD_MUTEX_INITIALIZER;
static int opened = 0;
static char cublas_name[128];
static char nvrtc_name[128];

/* One device context: the device's primary context (shared with the CUDA runtime, hence with
 * cuBLAS and RAPIDS) and this context's cuBLAS handle. */
typedef struct {
  CUdevice device;
  CUcontext ctx;
  cublasHandle_t blas;
} Context;

/* ---------------------------------------------------------------- errors */

static void throw_class(JNIEnv *env, const char *cls, const char *msg) {
  if ((*env)->ExceptionCheck(env)) {
    return; /* keep the first failure */
  }
  jclass c = (*env)->FindClass(env, cls);
  if (c != NULL) {
    (*env)->ThrowNew(env, c, msg);
  }
}

static void throw_cuda(JNIEnv *env, const char *msg) {
  throw_class(env, "org/nlspark/core/gpu/CudaException", msg);
}

static void throw_oom(JNIEnv *env, const char *msg) {
  throw_class(env, "org/nlspark/core/memory/DeviceOutOfMemoryException", msg);
}

static const char *cu_name(CUresult r) {
  const char *name = NULL;
  if (F.cuGetErrorName != NULL && F.cuGetErrorName(r, &name) == CUDA_SUCCESS && name != NULL) {
    return name;
  }
  return "CUDA_ERROR_UNKNOWN";
}

/* Returns 1 when r is success; else throws (OOM or CudaException) naming what failed. */
static int cu_ok(JNIEnv *env, CUresult r, const char *what) {
  char msg[512];
  if (r == CUDA_SUCCESS) {
    return 1;
  }
  if (r == CUDA_ERROR_OUT_OF_MEMORY) {
    snprintf(msg, sizeof msg, "Cannot %s: the GPU is out of memory (%s)", what, cu_name(r));
    throw_oom(env, msg);
  } else {
    snprintf(msg, sizeof msg, "Cannot %s: %s (CUDA error %d)", what, cu_name(r), r);
    throw_cuda(env, msg);
  }
  return 0;
}

/* cublasStatus_t names (cublas_api.h); numbers are stable across CUDA 11-13. */
static const char *blas_name(cublasStatus_t s) {
  switch (s) {
    case 0: return "CUBLAS_STATUS_SUCCESS";
    case 1: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3: return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7: return "CUBLAS_STATUS_INVALID_VALUE";
    case 8: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11: return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16: return "CUBLAS_STATUS_LICENSE_ERROR";
    default: return "CUBLAS_STATUS_UNKNOWN";
  }
}

static int blas_ok(JNIEnv *env, cublasStatus_t s, const char *what) {
  char msg[512];
  if (s == CUBLAS_STATUS_SUCCESS) {
    return 1;
  }
  if (s == CUBLAS_STATUS_ALLOC_FAILED) {
    snprintf(msg, sizeof msg, "Cannot %s: cuBLAS could not allocate device memory"
             " (CUBLAS_STATUS_ALLOC_FAILED)", what);
    throw_oom(env, msg);
  } else {
    snprintf(msg, sizeof msg, "Cannot %s: %s (cuBLAS status %d)%s", what, blas_name(s), s,
             s == 1 ? "; the CUDA runtime inside cuBLAS could not initialise: is this cuBLAS"
                      " newer than the driver's CUDA version, or is the device busy or lost?"
                    : "");
    throw_cuda(env, msg);
  }
  return 0;
}

static Context *use(JNIEnv *env, jlong handle) {
  Context *c = (Context *)(intptr_t)handle;
  if (c == NULL) {
    throw_cuda(env, "[BUG] a GPU call was given a closed or null device context");
    return NULL;
  }
  if (!cu_ok(env, F.cuCtxSetCurrent(c->ctx), "make the device context current")) {
    return NULL;
  }
  return c;
}

/* ---------------------------------------------------------------- loading */

#define SYM(lib, field, name)                                                              \
  do {                                                                                     \
    *(void **)(&F.field) = dlsym(lib, name);                                               \
    if (F.field == NULL) {                                                                 \
      snprintf(reason, reason_len, "%s lacks the symbol %s", libname, name);               \
      return 0;                                                                            \
    }                                                                                      \
  } while (0)

static int bind_driver(void *lib, const char *libname, char *reason, size_t reason_len) {
  SYM(lib, cuInit, "cuInit");
  SYM(lib, cuDriverGetVersion, "cuDriverGetVersion");
  SYM(lib, cuDeviceGetCount, "cuDeviceGetCount");
  SYM(lib, cuDeviceGet, "cuDeviceGet");
  SYM(lib, cuDeviceGetName, "cuDeviceGetName");
  SYM(lib, cuDeviceTotalMem, "cuDeviceTotalMem_v2");
  SYM(lib, cuDeviceGetAttribute, "cuDeviceGetAttribute");
  SYM(lib, cuDevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain");
  SYM(lib, cuDevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2");
  SYM(lib, cuCtxSetCurrent, "cuCtxSetCurrent");
  SYM(lib, cuCtxSynchronize, "cuCtxSynchronize");
  SYM(lib, cuMemGetInfo, "cuMemGetInfo_v2");
  SYM(lib, cuMemAlloc, "cuMemAlloc_v2");
  SYM(lib, cuMemFree, "cuMemFree_v2");
  SYM(lib, cuMemcpyHtoD, "cuMemcpyHtoD_v2");
  SYM(lib, cuMemcpyDtoH, "cuMemcpyDtoH_v2");
  SYM(lib, cuMemsetD8, "cuMemsetD8_v2");
  SYM(lib, cuModuleLoadData, "cuModuleLoadData");
  SYM(lib, cuModuleUnload, "cuModuleUnload");
  SYM(lib, cuModuleGetFunction, "cuModuleGetFunction");
  SYM(lib, cuLaunchKernel, "cuLaunchKernel");
  SYM(lib, cuGetErrorName, "cuGetErrorName");
  return 1;
}

static int bind_cublas(void *lib, const char *libname, char *reason, size_t reason_len) {
  SYM(lib, cublasCreate, "cublasCreate_v2");
  SYM(lib, cublasDestroy, "cublasDestroy_v2");
  SYM(lib, cublasGetVersion, "cublasGetVersion_v2");
  SYM(lib, cublasSgemm, "cublasSgemm_v2");
  SYM(lib, cublasDgemm, "cublasDgemm_v2");
  return 1;
}

static int bind_nvrtc(void *lib, const char *libname, char *reason, size_t reason_len) {
  SYM(lib, nvrtcVersion, "nvrtcVersion");
  SYM(lib, nvrtcCreateProgram, "nvrtcCreateProgram");
  SYM(lib, nvrtcCompileProgram, "nvrtcCompileProgram");
  SYM(lib, nvrtcGetProgramLogSize, "nvrtcGetProgramLogSize");
  SYM(lib, nvrtcGetProgramLog, "nvrtcGetProgramLog");
  SYM(lib, nvrtcGetCUBINSize, "nvrtcGetCUBINSize");
  SYM(lib, nvrtcGetCUBIN, "nvrtcGetCUBIN");
  SYM(lib, nvrtcGetPTXSize, "nvrtcGetPTXSize");
  SYM(lib, nvrtcGetPTX, "nvrtcGetPTX");
  SYM(lib, nvrtcDestroyProgram, "nvrtcDestroyProgram");
  SYM(lib, nvrtcGetErrorString, "nvrtcGetErrorString");
  return 1;
}

/* The CUDA major version a library name carries after ".so." (libnvrtc.so.11.2: 11), or 0. */
static int name_major(const char *name) {
  const char *p = strstr(name, ".so.");
  return p == NULL ? 0 : atoi(p + 4);
}

/* Opens the first library of names that loads and whose CUDA major version is not newer than
 * the driver's (driver_major); writes the tried and skipped names into reason if none. */
static void *open_first(JNIEnv *env, jobjectArray names, int driver_major, char *chosen,
                        size_t chosen_len, const char *what, char *reason, size_t reason_len) {
  jsize count = (*env)->GetArrayLength(env, names);
  char tried[512] = "";
  for (jsize i = 0; i < count; i++) {
    jstring js = (jstring)(*env)->GetObjectArrayElement(env, names, i);
    const char *name = (*env)->GetStringUTFChars(env, js, NULL);
    if (name_major(name) > driver_major) {
      size_t used = strlen(tried);
      snprintf(tried + used, sizeof tried - used, "%s%s skipped: newer than the driver's CUDA %d",
               used == 0 ? "" : ", ", name, driver_major);
      (*env)->ReleaseStringUTFChars(env, js, name);
      continue;
    }
    void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != NULL) {
      snprintf(chosen, chosen_len, "%s", name);
      (*env)->ReleaseStringUTFChars(env, js, name);
      return lib;
    }
    size_t used = strlen(tried);
    snprintf(tried + used, sizeof tried - used, "%s%s", used == 0 ? "" : ", ", name);
    (*env)->ReleaseStringUTFChars(env, js, name);
  }
  snprintf(reason, reason_len, "%s not found (tried %s; add its folder to LD_LIBRARY_PATH)",
           what, tried);
  return NULL;
}

/*
 * Opens the driver, cuBLAS and NVRTC and initialises the driver. Returns NULL when a GPU is usable,
 * else the reason none is. Safe to call repeatedly; the first success is kept for the process.
 */
JNIEXPORT jstring JNICALL Java_org_nlspark_core_gpu_CudaNative_open(
    JNIEnv *env, jclass cls, jstring driverName, jobjectArray cublasNames,
    jobjectArray nvrtcNames) {
  char reason[768] = "";
  pthread_mutex_lock(&open_lock);
  if (opened) {
    pthread_mutex_unlock(&open_lock);
    return NULL;
  }
  const char *dname = (*env)->GetStringUTFChars(env, driverName, NULL);
  void *driver = dlopen(dname, RTLD_NOW | RTLD_LOCAL);
  if (driver == NULL) {
    const char *err = dlerror();
    snprintf(reason, sizeof reason, "%s not found (no NVIDIA driver on this machine: %s)", dname,
             err == NULL ? "dlopen failed" : err);
    (*env)->ReleaseStringUTFChars(env, driverName, dname);
    goto fail;
  }
  if (!bind_driver(driver, dname, reason, sizeof reason)) {
    (*env)->ReleaseStringUTFChars(env, driverName, dname);
    goto fail;
  }
  (*env)->ReleaseStringUTFChars(env, driverName, dname);
  /* The driver's version first: it bounds which cuBLAS and NVRTC it can run. */
  int driver_version = 0;
  CUresult r = F.cuDriverGetVersion(&driver_version);
  if (r != CUDA_SUCCESS || driver_version <= 0) {
    snprintf(reason, sizeof reason, "the CUDA driver did not report its version"
             " (cuDriverGetVersion: %s)", cu_name(r));
    goto fail;
  }
  int driver_major = driver_version / 1000;
  r = F.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) {
    snprintf(reason, sizeof reason, "no CUDA device (cuInit: %s)", cu_name(r));
    goto fail;
  }
  if (r != CUDA_SUCCESS) {
    snprintf(reason, sizeof reason, "the CUDA driver failed to initialise (cuInit: %s, error %d)",
             cu_name(r), r);
    goto fail;
  }
  int devices = 0;
  r = F.cuDeviceGetCount(&devices);
  if (r != CUDA_SUCCESS || devices < 1) {
    snprintf(reason, sizeof reason, "no CUDA device (cuDeviceGetCount: %d devices, %s)", devices,
             cu_name(r));
    goto fail;
  }
  void *blas = open_first(env, cublasNames, driver_major, cublas_name, sizeof cublas_name, "cuBLAS", reason,
                          sizeof reason);
  if (blas == NULL || !bind_cublas(blas, cublas_name, reason, sizeof reason)) {
    goto fail;
  }
  void *rtc = open_first(env, nvrtcNames, driver_major, nvrtc_name, sizeof nvrtc_name, "NVRTC", reason,
                         sizeof reason);
  if (rtc == NULL || !bind_nvrtc(rtc, nvrtc_name, reason, sizeof reason)) {
    goto fail;
  }
  opened = 1;
  pthread_mutex_unlock(&open_lock);
  return NULL;
fail:
  /* Libraries stay mapped on failure: unmapping a half-bound driver buys nothing. */
  memset(&F, 0, sizeof F);
  pthread_mutex_unlock(&open_lock);
  return (*env)->NewStringUTF(env, reason);
}

/* "driver 13.0; cuBLAS libcublas.so.13; NVRTC 13.0 (libnvrtc.so.13)": what open() loaded. */
JNIEXPORT jstring JNICALL Java_org_nlspark_core_gpu_CudaNative_versions(JNIEnv *env, jclass cls) {
  char text[512];
  int driver = 0, major = 0, minor = 0;
  if (!opened) {
    return NULL;
  }
  F.cuDriverGetVersion(&driver);
  F.nvrtcVersion(&major, &minor);
  snprintf(text, sizeof text, "driver %d.%d; cuBLAS %s; NVRTC %d.%d (%s)", driver / 1000,
           (driver % 1000) / 10, cublas_name, major, minor, nvrtc_name);
  return (*env)->NewStringUTF(env, text);
}

JNIEXPORT jint JNICALL Java_org_nlspark_core_gpu_CudaNative_deviceCount(JNIEnv *env, jclass cls) {
  int n = 0;
  if (!cu_ok(env, F.cuDeviceGetCount(&n), "count CUDA devices")) {
    return 0;
  }
  return n;
}

JNIEXPORT jstring JNICALL Java_org_nlspark_core_gpu_CudaNative_deviceName(JNIEnv *env, jclass cls,
                                                                          jint ordinal) {
  CUdevice dev;
  char name[256] = "";
  if (!cu_ok(env, F.cuDeviceGet(&dev, ordinal), "find the CUDA device") ||
      !cu_ok(env, F.cuDeviceGetName(name, sizeof name, dev), "read the device name")) {
    return NULL;
  }
  return (*env)->NewStringUTF(env, name);
}

/* {major, minor} compute capability. */
JNIEXPORT jintArray JNICALL Java_org_nlspark_core_gpu_CudaNative_computeCapability(
    JNIEnv *env, jclass cls, jint ordinal) {
  CUdevice dev;
  jint cc[2] = {0, 0};
  if (!cu_ok(env, F.cuDeviceGet(&dev, ordinal), "find the CUDA device") ||
      !cu_ok(env, F.cuDeviceGetAttribute(&cc[0], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev),
             "read the compute capability") ||
      !cu_ok(env, F.cuDeviceGetAttribute(&cc[1], CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev),
             "read the compute capability")) {
    return NULL;
  }
  jintArray out = (*env)->NewIntArray(env, 2);
  (*env)->SetIntArrayRegion(env, out, 0, 2, cc);
  return out;
}

/* ---------------------------------------------------------------- contexts */

JNIEXPORT jlong JNICALL Java_org_nlspark_core_gpu_CudaNative_contextCreate(JNIEnv *env, jclass cls,
                                                                           jint ordinal) {
  Context *c = (Context *)calloc(1, sizeof(Context));
  if (c == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "Cannot allocate a device context on the host");
    return 0;
  }
  if (!cu_ok(env, F.cuDeviceGet(&c->device, ordinal), "find the CUDA device")) {
    free(c);
    return 0;
  }
  if (!cu_ok(env, F.cuDevicePrimaryCtxRetain(&c->ctx, c->device), "retain the device context")) {
    free(c);
    return 0;
  }
  if (!cu_ok(env, F.cuCtxSetCurrent(c->ctx), "make the device context current") ||
      !blas_ok(env, F.cublasCreate(&c->blas), "create a cuBLAS handle")) {
    F.cuDevicePrimaryCtxRelease(c->device);
    free(c);
    return 0;
  }
  return (jlong)(intptr_t)c;
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_contextDestroy(JNIEnv *env, jclass cls,
                                                                           jlong handle) {
  Context *c = (Context *)(intptr_t)handle;
  if (c == NULL) {
    return;
  }
  F.cuCtxSetCurrent(c->ctx);
  F.cuCtxSynchronize();
  F.cublasDestroy(c->blas);
  F.cuDevicePrimaryCtxRelease(c->device);
  free(c);
}

JNIEXPORT jint JNICALL Java_org_nlspark_core_gpu_CudaNative_cublasVersion(JNIEnv *env, jclass cls,
                                                                          jlong handle) {
  Context *c = use(env, handle);
  int v = 0;
  if (c == NULL || !blas_ok(env, F.cublasGetVersion(c->blas, &v), "read the cuBLAS version")) {
    return 0;
  }
  return v;
}

/* {free, total} bytes of the context's device. */
JNIEXPORT jlongArray JNICALL Java_org_nlspark_core_gpu_CudaNative_memInfo(JNIEnv *env, jclass cls,
                                                                          jlong handle) {
  size_t freeb = 0, total = 0;
  Context *c = use(env, handle);
  if (c == NULL || !cu_ok(env, F.cuMemGetInfo(&freeb, &total), "read device memory")) {
    return NULL;
  }
  jlong v[2] = {(jlong)freeb, (jlong)total};
  jlongArray out = (*env)->NewLongArray(env, 2);
  (*env)->SetLongArrayRegion(env, out, 0, 2, v);
  return out;
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_synchronize(JNIEnv *env, jclass cls,
                                                                        jlong handle) {
  Context *c = use(env, handle);
  if (c != NULL) {
    cu_ok(env, F.cuCtxSynchronize(), "wait for the device");
  }
}

/* ---------------------------------------------------------------- memory */

JNIEXPORT jlong JNICALL Java_org_nlspark_core_gpu_CudaNative_memAlloc(JNIEnv *env, jclass cls,
                                                                      jlong handle, jlong bytes) {
  CUdeviceptr p = 0;
  char what[128];
  Context *c = use(env, handle);
  if (c == NULL) {
    return 0;
  }
  snprintf(what, sizeof what, "allocate %lld bytes of device memory", (long long)bytes);
  if (!cu_ok(env, F.cuMemAlloc(&p, (size_t)(bytes > 0 ? bytes : 1)), what)) {
    return 0;
  }
  return (jlong)p;
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_memFree(JNIEnv *env, jclass cls,
                                                                    jlong handle, jlong ptr) {
  Context *c = use(env, handle);
  if (c != NULL && ptr != 0) {
    cu_ok(env, F.cuMemFree((CUdeviceptr)ptr), "free device memory");
  }
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_memZero(JNIEnv *env, jclass cls,
                                                                    jlong handle, jlong ptr,
                                                                    jlong bytes) {
  Context *c = use(env, handle);
  if (c != NULL && bytes > 0) {
    cu_ok(env, F.cuMemsetD8((CUdeviceptr)ptr, 0, (size_t)bytes), "clear device memory");
  }
}

/* Copies go through a host staging buffer in slices: the JNI critical region (which holds off
 * the garbage collector for every thread of the JVM) only covers a memcpy, never a blocking
 * device copy. */
#define STAGING_BYTES ((size_t)16 << 20)

/* Copies bytes [hostOffset, hostOffset + bytes) of a Java primitive array to device address dst. */
JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_copyToDevice(
    JNIEnv *env, jclass cls, jlong handle, jlong dst, jobject array, jlong hostOffset,
    jlong bytes) {
  Context *c = use(env, handle);
  if (c == NULL || bytes <= 0) {
    return;
  }
  size_t cap = (size_t)bytes < STAGING_BYTES ? (size_t)bytes : STAGING_BYTES;
  char *stage = (char *)malloc(cap);
  if (stage == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "Cannot allocate a host staging buffer");
    return;
  }
  for (jlong done = 0; done < bytes;) {
    size_t len = (size_t)(bytes - done) < cap ? (size_t)(bytes - done) : cap;
    char *host = (char *)(*env)->GetPrimitiveArrayCritical(env, (jarray)array, NULL);
    if (host == NULL) {
      break;
    }
    memcpy(stage, host + hostOffset + done, len);
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)array, host, JNI_ABORT);
    if (!cu_ok(env, F.cuMemcpyHtoD((CUdeviceptr)(dst + done), stage, len),
               "copy to the device")) {
      break;
    }
    done += (jlong)len;
  }
  free(stage);
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_copyToHost(
    JNIEnv *env, jclass cls, jlong handle, jobject array, jlong hostOffset, jlong src,
    jlong bytes) {
  Context *c = use(env, handle);
  if (c == NULL || bytes <= 0) {
    return;
  }
  size_t cap = (size_t)bytes < STAGING_BYTES ? (size_t)bytes : STAGING_BYTES;
  char *stage = (char *)malloc(cap);
  if (stage == NULL) {
    throw_class(env, "java/lang/OutOfMemoryError", "Cannot allocate a host staging buffer");
    return;
  }
  for (jlong done = 0; done < bytes;) {
    size_t len = (size_t)(bytes - done) < cap ? (size_t)(bytes - done) : cap;
    if (!cu_ok(env, F.cuMemcpyDtoH(stage, (CUdeviceptr)(src + done), len),
               "copy from the device")) {
      break;
    }
    char *host = (char *)(*env)->GetPrimitiveArrayCritical(env, (jarray)array, NULL);
    if (host == NULL) {
      break;
    }
    memcpy(host + hostOffset + done, stage, len);
    (*env)->ReleasePrimitiveArrayCritical(env, (jarray)array, host, 0);
    done += (jlong)len;
  }
  free(stage);
}

/* ---------------------------------------------------------------- cuBLAS */

/* Column-major C := alpha * op(A) * op(B) + beta * C, in float64 when dbl else float32. */
JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_gemm(
    JNIEnv *env, jclass cls, jlong handle, jboolean dbl, jint transA, jint transB, jint m, jint n,
    jint k, jdouble alpha, jlong a, jint lda, jlong b, jint ldb, jdouble beta, jlong cptr,
    jint ldc) {
  Context *c = use(env, handle);
  if (c == NULL) {
    return;
  }
  cublasStatus_t s;
  if (dbl) {
    s = F.cublasDgemm(c->blas, transA, transB, m, n, k, &alpha, (const double *)(intptr_t)a, lda,
                      (const double *)(intptr_t)b, ldb, &beta, (double *)(intptr_t)cptr, ldc);
    blas_ok(env, s, "run cuBLAS DGEMM");
  } else {
    float fa = (float)alpha, fb = (float)beta;
    s = F.cublasSgemm(c->blas, transA, transB, m, n, k, &fa, (const float *)(intptr_t)a, lda,
                      (const float *)(intptr_t)b, ldb, &fb, (float *)(intptr_t)cptr, ldc);
    blas_ok(env, s, "run cuBLAS SGEMM");
  }
}

/* ---------------------------------------------------------------- NVRTC and kernels */

/* Compiles CUDA C source with NVRTC and loads it into the context; returns the module. The
 * options choose the architecture: "--gpu-architecture=sm_XY" yields a cubin (no PTX JIT, so the
 * driver need not be newer than NVRTC), "compute_XY" yields PTX. */
JNIEXPORT jlong JNICALL Java_org_nlspark_core_gpu_CudaNative_moduleCompile(
    JNIEnv *env, jclass cls, jlong handle, jstring source, jstring name, jobjectArray options) {
  Context *c = use(env, handle);
  if (c == NULL) {
    return 0;
  }
  jsize nopt = (*env)->GetArrayLength(env, options);
  const char **opts = (const char **)calloc(nopt > 0 ? nopt : 1, sizeof(char *));
  jstring *jopts = (jstring *)calloc(nopt > 0 ? nopt : 1, sizeof(jstring));
  for (jsize i = 0; i < nopt; i++) {
    jopts[i] = (jstring)(*env)->GetObjectArrayElement(env, options, i);
    opts[i] = (*env)->GetStringUTFChars(env, jopts[i], NULL);
  }
  const char *src = (*env)->GetStringUTFChars(env, source, NULL);
  const char *nm = (*env)->GetStringUTFChars(env, name, NULL);
  int cubin = 0;
  for (jsize i = 0; i < nopt; i++) {
    if (strstr(opts[i], "sm_") != NULL) {
      cubin = 1;
    }
  }
  nvrtcProgram prog = NULL;
  jlong result = 0;
  char msg[4096];
  nvrtcResult r = F.nvrtcCreateProgram(&prog, src, nm, 0, NULL, NULL);
  if (r != NVRTC_SUCCESS) {
    snprintf(msg, sizeof msg, "Cannot compile the GPU kernels: nvrtcCreateProgram: %s",
             F.nvrtcGetErrorString(r));
    throw_cuda(env, msg);
    goto done;
  }
  r = F.nvrtcCompileProgram(prog, nopt, opts);
  if (r != NVRTC_SUCCESS) {
    size_t logSize = 0;
    F.nvrtcGetProgramLogSize(prog, &logSize);
    char *log = (char *)calloc(logSize + 1, 1);
    F.nvrtcGetProgramLog(prog, log);
    snprintf(msg, sizeof msg, "Cannot compile the GPU kernels (%s): %s; NVRTC log: %s", nm,
             F.nvrtcGetErrorString(r), log);
    free(log);
    throw_cuda(env, msg);
    goto done;
  }
  size_t size = 0;
  r = cubin ? F.nvrtcGetCUBINSize(prog, &size) : F.nvrtcGetPTXSize(prog, &size);
  char *image = (char *)malloc(size > 0 ? size : 1);
  if (r == NVRTC_SUCCESS) {
    r = cubin ? F.nvrtcGetCUBIN(prog, image) : F.nvrtcGetPTX(prog, image);
  }
  if (r != NVRTC_SUCCESS) {
    snprintf(msg, sizeof msg, "Cannot read the compiled GPU kernels: %s",
             F.nvrtcGetErrorString(r));
    throw_cuda(env, msg);
  } else {
    CUmodule module = NULL;
    if (cu_ok(env, F.cuModuleLoadData(&module, image), "load the compiled GPU kernels")) {
      result = (jlong)(intptr_t)module;
    }
  }
  free(image);
done:
  if (prog != NULL) {
    F.nvrtcDestroyProgram(&prog);
  }
  (*env)->ReleaseStringUTFChars(env, name, nm);
  (*env)->ReleaseStringUTFChars(env, source, src);
  for (jsize i = 0; i < nopt; i++) {
    (*env)->ReleaseStringUTFChars(env, jopts[i], opts[i]);
  }
  free(opts);
  free(jopts);
  return result;
}

JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_moduleUnload(JNIEnv *env, jclass cls,
                                                                         jlong handle,
                                                                         jlong module) {
  Context *c = use(env, handle);
  if (c != NULL && module != 0) {
    cu_ok(env, F.cuModuleUnload((CUmodule)(intptr_t)module), "unload the GPU kernels");
  }
}

JNIEXPORT jlong JNICALL Java_org_nlspark_core_gpu_CudaNative_function(JNIEnv *env, jclass cls,
                                                                      jlong handle, jlong module,
                                                                      jstring name) {
  Context *c = use(env, handle);
  if (c == NULL) {
    return 0;
  }
  const char *nm = (*env)->GetStringUTFChars(env, name, NULL);
  CUfunction f = NULL;
  char what[256];
  snprintf(what, sizeof what, "find the GPU kernel %s", nm);
  int ok = cu_ok(env, F.cuModuleGetFunction(&f, (CUmodule)(intptr_t)module, nm), what);
  (*env)->ReleaseStringUTFChars(env, name, nm);
  return ok ? (jlong)(intptr_t)f : 0;
}

/* Launches a kernel whose parameters are all 8 bytes wide (pointers, long long, double): args
 * holds their raw bits in order. */
JNIEXPORT void JNICALL Java_org_nlspark_core_gpu_CudaNative_launch(
    JNIEnv *env, jclass cls, jlong handle, jlong function, jint gridX, jint gridY, jint blockX,
    jint sharedBytes, jlongArray args) {
  Context *c = use(env, handle);
  if (c == NULL) {
    return;
  }
  jsize n = (*env)->GetArrayLength(env, args);
  jlong slots[32];
  void *params[32];
  if (n > 32) {
    throw_cuda(env, "[BUG] a GPU kernel launch takes at most 32 parameters");
    return;
  }
  (*env)->GetLongArrayRegion(env, args, 0, n, slots);
  for (jsize i = 0; i < n; i++) {
    params[i] = &slots[i];
  }
  CUresult r = F.cuLaunchKernel((CUfunction)(intptr_t)function, (unsigned)gridX, (unsigned)gridY,
                                1, (unsigned)blockX, 1, 1, (unsigned)sharedBytes, NULL, params,
                                NULL);
  cu_ok(env, r, "launch a GPU kernel");
}
