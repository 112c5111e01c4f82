package org.nlspark.core.gpu;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuStatus;

/**
 * The real {@link GpuProbe}: loads the CUDA shim and libraries (once per process) and reports the
 * device, its free and total memory (the RAPIDS pool's free memory when a pool is initialised) and
 * the driver, cuBLAS and NVRTC versions — or why no GPU is usable ("shim not built",
 * "libcuda.so.1 not found …", "no CUDA device …", "cuBLAS not found …"). Never throws.
 */
public final class CudaGpuProbe implements GpuProbe {
  private final int device;
  private final Supplier<String> loader;

  /** Probes device 0 (local mode). */
  public CudaGpuProbe() {
    this(0);
  }

  /** @param device the CUDA device index (from Spark's task resources on an executor) */
  public CudaGpuProbe(int device) {
    this(device, NativeShim::load);
  }

  CudaGpuProbe(int device, Supplier<String> loader) {
    this.device = device;
    this.loader = loader;
  }

  @Override
  public GpuStatus probe() {
    try {
      String reason = loader.get();
      if (reason != null) {
        return GpuStatus.unavailable(reason);
      }
      int count = CudaNative.deviceCount();
      if (device < 0 || device >= count) {
        return GpuStatus.unavailable("no CUDA device " + device + " (" + count
            + " visible; check CUDA_VISIBLE_DEVICES and the Spark GPU resource assignment)");
      }
      CudaContext context = CudaContext.shared(device);
      long[] mem = context.memoryInfo();
      return GpuStatus.available(context.deviceName(), context.freeBytes(), mem[1],
          versions(context));
    } catch (RuntimeException | LinkageError e) {
      return GpuStatus.unavailable("the CUDA probe failed: " + e);
    }
  }

  private static String versions(CudaContext context) {
    int[] cc = context.computeCapability();
    return CudaNative.versions() + "; cuBLAS version " + context.cublasVersion()
        + "; compute capability " + cc[0] + "." + cc[1]
        + (context.rapidsPool() != null ? "; memory from the RAPIDS pool" : "; memory from cuMemAlloc");
  }

  /** The probe's findings as ordered key/values, for {@code env --json}. */
  public Map<String, Object> details() {
    GpuStatus s = probe();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("gpu_available", s.available());
    m.put("device_index", device);
    m.put("device_name", s.deviceName());
    m.put("free_bytes", s.freeBytes());
    m.put("total_bytes", s.totalBytes());
    m.put("versions", s.driverVersion());
    m.put("reason", s.reason());
    String rapids = RapidsPool.absenceReason();
    m.put("rapids_pool", rapids == null ? "in use" : "not used: " + rapids);
    return m;
  }
}
