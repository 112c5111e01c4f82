package org.nlspark.core.gpu;


/**
 * A CUDA device whose GEMMs are the CPU's {@code BlockGemm} calls (operands copied to the host and
 * the product back); every kernel runs on the device. With the GEMM products equal by
 * construction, {@link GpuTileExecutor} on it must equal the CPU bit for bit: the device check's
 * test of the device kernels themselves, independent of cuBLAS's summation order.
 */
final class HostGemmDevice extends Device {
  private final CudaContext cuda;

  HostGemmDevice(CudaContext cuda) {
    this.cuda = cuda;
  }

  @Override
  DeviceBuffer allocate(long bytes) {
    return cuda.allocate(bytes);
  }

  @Override
  void free(long address) {
    cuda.free(address);
  }

  @Override
  void zero(long address, long bytes) {
    cuda.zero(address, bytes);
  }

  @Override
  void copyToDevice(long dst, Object array, long hostOffset, long bytes) {
    cuda.copyToDevice(dst, array, hostOffset, bytes);
  }

  @Override
  void copyToHost(Object array, long hostOffset, long src, long bytes) {
    cuda.copyToHost(array, hostOffset, src, bytes);
  }

  /** The CPU's BlockGemm call of the same shape (see {@link Device#hostGemm}). */
  @Override
  void gemm(boolean dbl, boolean transA, boolean transB, int m, int n, int k, double alpha,
      long a, int lda, long b, int ldb, double beta, long c, int ldc) {
    hostGemm(dbl, transA, transB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

  @Override
  void launch(String name, long blocks, int threads, Object... args) {
    cuda.launch(name, blocks, threads, args);
  }

  @Override
  void synchronize() {
    cuda.synchronize();
  }
}
