package org.nlspark.core.backend;

/**
 * Looks for a usable GPU. Implementations must never throw: a missing driver, library or device
 * is reported as {@link GpuStatus#unavailable(String)} with the reason, so that {@code auto} can
 * fall back to the CPU and say why. {@link GpuProbes#guard(GpuProbe)} enforces this for callers
 * that cannot trust a probe.
 */
@FunctionalInterface
public interface GpuProbe {
  GpuStatus probe();
}
