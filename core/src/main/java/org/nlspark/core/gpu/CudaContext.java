package org.nlspark.core.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.ReentrantLock;
import org.nlspark.core.ResourceRefusedException;

/**
 * One CUDA device as the GPU backend uses it: its primary context (shared with the CUDA runtime,
 * so with cuBLAS and RAPIDS), a cuBLAS handle, the kernels compiled for its compute capability,
 * and where device memory comes from (the RAPIDS pool when one is initialised, else cuMemAlloc).
 *
 * <p>{@link #shared(int)} gives the process-wide context of a device; callers hold
 * {@link #lock()} while they use it, since a cuBLAS handle is not meant for concurrent threads.
 * The kernels are compiled by NVRTC on first use and cached for the process.
 */
public final class CudaContext extends Device implements AutoCloseable {
  static final String KERNEL_SOURCE = "/org/nlspark/core/gpu/nlspark_kernels.cu";
  static final String MATH_HEADER = "/org/nlspark/core/gpu/nlspark_math.cuh";
  private static final Map<Integer, CudaContext> SHARED = new ConcurrentHashMap<>();

  private final int device;
  private final ReentrantLock lock = new ReentrantLock();
  private final Map<String, Long> functions = new HashMap<>();
  private final RapidsPool rapids;
  private long handle;
  private long module;

  private CudaContext(int device, RapidsPool rapids) {
    this.device = device;
    this.rapids = rapids;
    this.handle = CudaNative.contextCreate(device);
  }

  /**
   * Opens a context on {@code device} that the caller owns and closes.
   *
   * @throws ResourceRefusedException when no GPU is usable (the reason says why)
   */
  public static CudaContext open(int device) {
    requireGpu(device);
    return new CudaContext(device, RapidsPool.detect().orElse(null));
  }

  /** The process-wide context of {@code device} (never closed; the process owns it). */
  public static CudaContext shared(int device) {
    requireGpu(device);
    return SHARED.computeIfAbsent(device,
        d -> new CudaContext(d, RapidsPool.detect().orElse(null)));
  }

  private static void requireGpu(int device) {
    String reason = NativeShim.load();
    if (reason != null) {
      throw new ResourceRefusedException("Cannot use the GPU: " + reason
          + ". Run with --backend cpu (or auto).");
    }
    int count = CudaNative.deviceCount();
    if (device < 0 || device >= count) {
      throw new ResourceRefusedException("Cannot use GPU " + device + ": device index must be in [0, "
          + count + "), but was: " + device + " (check the Spark GPU resource assignment)");
    }
  }

  public ReentrantLock lock() {
    return lock;
  }

  public int device() {
    return device;
  }

  long handle() {
    if (handle == 0) {
      throw new IllegalStateException("[BUG] CUDA context of device " + device + " used after close");
    }
    return handle;
  }

  public String deviceName() {
    return CudaNative.deviceName(device);
  }

  /** {major, minor} compute capability. */
  public int[] computeCapability() {
    return CudaNative.computeCapability(device);
  }

  /** {free, total} device bytes as the driver sees them. */
  public long[] memoryInfo() {
    return CudaNative.memInfo(handle());
  }

  /** Where device memory comes from: the RAPIDS pool, or null for cuMemAlloc. */
  public RapidsPool rapidsPool() {
    return rapids;
  }

  /** Free bytes this backend may plan with: the RAPIDS pool's when it has one, else the driver's. */
  public long freeBytes() {
    if (rapids != null) {
      java.util.OptionalLong pool = rapids.freeBytes();
      if (pool.isPresent()) {
        return pool.getAsLong();
      }
    }
    return memoryInfo()[0];
  }

  public int cublasVersion() {
    return CudaNative.cublasVersion(handle());
  }

  /**
   * Allocates device memory; a device out-of-memory throws
   * {@link org.nlspark.core.memory.DeviceOutOfMemoryException}.
   */
  public DeviceBuffer allocate(long bytes) {
    if (bytes < 0) {
      throw new IllegalArgumentException("[BUG] allocation size must be >= 0, but was: " + bytes);
    }
    if (rapids != null) {
      return rapids.allocate(this, bytes);
    }
    return new DeviceBuffer(this, CudaNative.memAlloc(handle(), bytes), bytes, null);
  }

  /**
   * Column-major C := alpha · op(A) · op(B) + beta · C through cuBLAS (DGEMM when {@code dbl},
   * else SGEMM); addresses are device addresses.
   */
  public void gemm(boolean dbl, boolean transA, boolean transB, int m, int n, int k, double alpha,
      long a, int lda, long b, int ldb, double beta, long c, int ldc) {
    CudaNative.gemm(handle(), dbl, transA ? CudaNative.OP_T : CudaNative.OP_N,
        transB ? CudaNative.OP_T : CudaNative.OP_N, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }

  /**
   * Launches kernel {@code name} of the nlspark kernel source with a 1-D grid. Arguments are
   * {@link DeviceBuffer}s (their address), Long or Integer (as long long) or Double.
   */
  public void launch(String name, long blocks, int threads, Object... args) {
    if (blocks <= 0) {
      return;
    }
    long[] bits = launchSlots(name, blocks, args);
    CudaNative.launch(handle(), function(name), (int) blocks, 1, threads, 0, bits);
  }

  @Override
  void free(long address) {
    CudaNative.memFree(handle(), address);
  }

  @Override
  void zero(long address, long bytes) {
    CudaNative.memZero(handle(), address, bytes);
  }

  @Override
  void copyToDevice(long dst, Object array, long hostOffset, long bytes) {
    CudaNative.copyToDevice(handle(), dst, array, hostOffset, bytes);
  }

  @Override
  void copyToHost(Object array, long hostOffset, long src, long bytes) {
    CudaNative.copyToHost(handle(), array, hostOffset, src, bytes);
  }

  public void synchronize() {
    CudaNative.synchronize(handle());
  }

  private synchronized long function(String name) {
    Long f = functions.get(name);
    if (f == null) {
      if (module == 0) {
        int[] cc = computeCapability();
        module = CudaNative.moduleCompile(handle(), kernelSource(), "nlspark_kernels.cu",
            compileOptions(cc[0], cc[1]));
      }
      f = CudaNative.function(handle(), module, name);
      functions.put(name, f);
    }
    return f;
  }

  /** NVRTC options: a cubin for this device's architecture, and no FMA contraction (see source). */
  static String[] compileOptions(int major, int minor) {
    return new String[] {"--gpu-architecture=sm_" + major + minor, "--fmad=false",
        "--std=c++14"};
  }

  /**
   * The CUDA C source of the kernels as NVRTC compiles it: nlspark_kernels.cu with the per-value
   * math header nlspark_math.cuh pasted in place of its #include (both shipped as resources; the
   * host build includes the same header by path).
   */
  public static String kernelSource() {
    String src = resource(KERNEL_SOURCE);
    String include = "#include \"nlspark_math.cuh\"";
    if (!src.contains(include)) {
      throw new IllegalStateException("[BUG] the GPU kernel source does not include "
          + MATH_HEADER);
    }
    return src.replace(include, resource(MATH_HEADER));
  }

  private static String resource(String name) {
    try (InputStream in = CudaContext.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("[BUG] the GPU kernel source " + name
            + " is missing from the jar");
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new IllegalStateException("[BUG] cannot read the GPU kernel source " + name + ": " + e,
          e);
    }
  }

  @Override
  public synchronized void close() {
    if (handle == 0) {
      return;
    }
    if (SHARED.get(device) == this) {
      return; // the process owns shared contexts
    }
    try {
      if (module != 0) {
        CudaNative.moduleUnload(handle, module);
      }
    } finally {
      module = 0;
      functions.clear();
      CudaNative.contextDestroy(handle);
      handle = 0;
    }
  }
}
