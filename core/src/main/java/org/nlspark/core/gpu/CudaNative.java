package org.nlspark.core.gpu;

/**
 * The JNI entry points of {@code nlspark_cuda.c}. Raw handles and device addresses are longs;
 * only {@link CudaContext} and {@link DeviceBuffer} call these, after {@link NativeShim#load()}
 * succeeded. Every call taking a context makes it current on the calling thread first.
 */
final class CudaNative {
  private CudaNative() {}

  /** cuBLAS GEMM operation codes (cublasOperation_t). */
  static final int OP_N = 0;
  static final int OP_T = 1;

  /** Opens the libraries and initialises the driver: null when usable, else why not. */
  static native String open(String driver, String[] cublas, String[] nvrtc);

  /** Driver, cuBLAS and NVRTC versions, or null before a successful open. */
  static native String versions();

  static native int deviceCount();

  static native String deviceName(int device);

  /** {major, minor}. */
  static native int[] computeCapability(int device);

  static native long contextCreate(int device);

  static native void contextDestroy(long context);

  static native int cublasVersion(long context);

  /** {free, total} bytes. */
  static native long[] memInfo(long context);

  static native void synchronize(long context);

  static native long memAlloc(long context, long bytes);

  static native void memFree(long context, long address);

  static native void memZero(long context, long address, long bytes);

  static native void copyToDevice(long context, long dst, Object array, long hostByteOffset,
      long bytes);

  static native void copyToHost(long context, Object array, long hostByteOffset, long src,
      long bytes);

  /** Column-major C := alpha * op(A) * op(B) + beta * C (cuBLAS DGEMM or SGEMM). */
  static native void gemm(long context, boolean dbl, int transA, int transB, int m, int n, int k,
      double alpha, long a, int lda, long b, int ldb, double beta, long c, int ldc);

  static native long moduleCompile(long context, String source, String name, String[] options);

  static native void moduleUnload(long context, long module);

  static native long function(long context, long module, String name);

  /** Every kernel parameter is 8 bytes: args holds their raw bits in order. */
  static native void launch(long context, long function, int gridX, int gridY, int blockX,
      int sharedBytes, long[] args);
}
