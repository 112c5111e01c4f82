package org.nlspark.core.backend;

import java.util.List;
import java.util.Objects;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * Turns a {@code --backend} value into a {@link Backend}; ports §3.1 of DESIGN.md (the
 * reference's {@code _resolve_backend}). An explicit {@code gpu} never falls back to the CPU: it
 * is refused when no GPU is usable. Only {@code auto} falls back, and records why.
 */
public final class BackendResolver {
  /** The accepted {@code --backend} values. */
  public static final List<String> ACCEPTED = List.of("cpu", "gpu", "auto");

  private BackendResolver() {}

  /**
   * {@code null} or {@code "cpu"} gives the CPU; {@code "gpu"} the GPU or a
   * {@link ResourceRefusedException}; {@code "auto"} the GPU when one is usable, else the CPU;
   * anything else an {@link InvalidInputException} listing {@link #ACCEPTED}.
   */
  public static Backend resolve(String spec, GpuProbe probe) {
    if (spec == null) {
      return Backend.cpu("default: cpu (no backend requested)");
    }
    switch (spec) {
      case "cpu":
        return Backend.cpu("requested: cpu");
      case "gpu": {
        GpuStatus status = probeSafely(probe);
        if (!status.available()) {
          throw new ResourceRefusedException("Cannot run on a GPU: GPU requested explicitly"
              + " (--backend gpu), but none is available (" + status.reason() + ")."
              + " Use --backend 'cpu' or 'auto' to allow CPU execution.");
        }
        return Backend.gpu(status.deviceName(), "requested: gpu");
      }
      case "auto": {
        GpuStatus status = probeSafely(probe);
        if (status.available()) {
          return Backend.gpu(status.deviceName(), "auto: usable GPU " + status.deviceName());
        }
        return Backend.cpu("auto: no usable GPU (" + status.reason() + "); using CPU");
      }
      default:
        throw new InvalidInputException(
            "--backend must be one of " + ACCEPTED + ", but was: '" + spec + "'");
    }
  }

  /** A backend that is already resolved passes through unchanged (resolve once, upstream). */
  public static Backend resolve(Backend already) {
    return Objects.requireNonNull(already, "[BUG] cannot pass through a null backend");
  }

  public static GpuStatus probeSafely(GpuProbe probe) {
    Objects.requireNonNull(probe, "[BUG] resolving a GPU backend needs a GPU probe");
    return GpuProbes.guard(probe).probe();
  }
}
