package org.nlspark.core.engine;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.BackendResolver;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuStatus;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;

/**
 * What {@code env} prints and {@code summary.json} records about devices; ports §3.3 of
 * DESIGN.md (the reference's {@code check_gpu_available}): whether a GPU is usable, the backend
 * {@code auto} would pick, its device and name — plus, in Java, which BLAS is active and the
 * memory budgets (uncapped, as capacity figures), and why the GPU is unusable when it is.
 *
 * @param backend "gpu" or "cpu": what {@code --backend auto} resolves to here
 * @param device "cuda" or "cpu"
 * @param cpuBudgetSource the {@link org.nlspark.core.memory.BudgetSource} name, lower case
 * @param gpuBudgetGb null when no GPU is usable
 */
public record DeviceReport(boolean gpuAvailable, String backend, String device, String deviceName,
    String blas, boolean nativeBlas, double cpuBudgetGb, String cpuBudgetSource,
    Double gpuBudgetGb, String gpuUnavailableReason) {

  /** Probes the GPU with {@code probe} and measures memory on this machine. */
  public static DeviceReport collect(GpuProbe probe) {
    return collect(probe, MemoryProbe.system(probe), null);
  }

  /**
   * Probes the GPU and memory with the given probes.
   *
   * @param explicitBudgetGb {@code --memory-budget-gb}, or null to report measured budgets
   */
  public static DeviceReport collect(GpuProbe probe, MemoryProbe memory, Double explicitBudgetGb) {
    Objects.requireNonNull(memory, "[BUG] a device report needs a memory probe");
    GpuStatus status = BackendResolver.probeSafely(probe);
    // What a local run would get: the scheduler's own resolution.
    MemoryBudget cpu = LocalEngine.budget(explicitBudgetGb, BackendKind.CPU, memory);
    Double gpuGb = status.available()
        ? LocalEngine.budget(explicitBudgetGb, BackendKind.GPU, memory).gb()
        : null;
    return new DeviceReport(
        status.available(),
        status.available() ? "gpu" : "cpu",
        status.available() ? "cuda" : "cpu",
        status.available() ? status.deviceName() : Backend.CPU_DEVICE_NAME,
        Blas.describe(),
        Blas.isNativeOpenBlas(),
        cpu.gb(),
        cpu.source().name().toLowerCase(Locale.ROOT),
        gpuGb,
        status.reason());
  }

  /** The fields in a stable order under snake_case keys, for JSON; absent values are null. */
  public Map<String, Object> toMap() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("gpu_available", gpuAvailable);
    m.put("backend", backend);
    m.put("device", device);
    m.put("device_name", deviceName);
    m.put("blas", blas);
    m.put("native_blas", nativeBlas);
    m.put("cpu_budget_gb", cpuBudgetGb);
    m.put("cpu_budget_source", cpuBudgetSource);
    m.put("gpu_budget_gb", gpuBudgetGb);
    m.put("gpu_unavailable_reason", gpuUnavailableReason);
    return Collections.unmodifiableMap(m);
  }
}
