package org.nlspark.core.backend;

import java.util.Objects;
import java.util.ServiceLoader;

/**
 * The process-wide {@link GpuProbe}. Core's backend layer has no GPU code: the probe is found with
 * {@link ServiceLoader} (the CUDA module registers its probe in
 * {@code META-INF/services/org.nlspark.core.backend.GpuProbe}); without one, or when it fails to
 * load, the process reports no GPU and says why. Everything else reads {@link #system()}, or takes
 * a probe as a parameter so it can be pinned in tests.
 */
public final class GpuProbes {
  /** The reason given when no probe is registered. */
  public static final String NO_GPU_BACKEND = "no GPU backend is built into this process";

  /** Looks the probe up on first use, so merely resolving "cpu" never loads native code. */
  private static final GpuProbe SYSTEM = guard(new LazyProbe());

  private GpuProbes() {}

  /** The process-wide probe: cheap, thread-safe, never throws. */
  public static GpuProbe system() {
    return SYSTEM;
  }

  /**
   * Wraps a probe so that it keeps the never-throw contract: an exception or linkage error
   * (a GPU library that is not on this machine) becomes "no GPU" with the failure as the reason.
   */
  public static GpuProbe guard(GpuProbe probe) {
    Objects.requireNonNull(probe, "Cannot guard a GPU probe: the probe must not be null");
    return () -> {
      GpuStatus status;
      try {
        status = probe.probe();
      } catch (RuntimeException | LinkageError e) {
        return GpuStatus.unavailable("the GPU probe failed: " + e);
      }
      return status != null ? status : GpuStatus.unavailable("[BUG] the GPU probe returned null");
    };
  }

  private static final class LazyProbe implements GpuProbe {
    private volatile GpuProbe delegate;

    @Override
    public GpuStatus probe() {
      GpuProbe d = delegate;
      if (d == null) {
        synchronized (this) {
          if (delegate == null) {
            delegate = ServiceLoader.load(GpuProbe.class, GpuProbes.class.getClassLoader())
                .findFirst()
                .orElse(() -> GpuStatus.unavailable(NO_GPU_BACKEND));
          }
          d = delegate;
        }
      }
      return d.probe();
    }
  }
}
