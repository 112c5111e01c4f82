package org.nlspark.core.backend;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicReference;
import java.util.logging.Logger;

/**
 * The process-wide {@link GpuProbe}. Core has no GPU code, so by default it reports no GPU; the
 * GPU module calls {@link #install(GpuProbe)} once at startup with its real probe. Everything
 * else reads {@link #system()}, or takes a probe as a parameter so it can be pinned in tests
 * (install is not a test hook).
 */
public final class GpuProbes {
  /** The reason the default probe gives. */
  public static final String NO_GPU_BACKEND = "no GPU backend is built into this process";

  private static final Logger LOG = Logger.getLogger(GpuProbes.class.getName());
  /** Default: the CUDA probe of the shim shipped in this jar (reports why no GPU is usable). */
  private static final AtomicReference<GpuProbe> INSTALLED =
      new AtomicReference<>(new LazyCudaProbe());

  /** Reads the installed probe on every call, so a reference taken before install stays valid. */
  private static final GpuProbe SYSTEM = guard(() -> INSTALLED.get().probe());

  private GpuProbes() {}

  /** The process-wide probe: cheap, thread-safe, never throws. */
  public static GpuProbe system() {
    return SYSTEM;
  }

  /**
   * Installs the real probe of the GPU module. Called once when that module starts; a later call
   * replaces the probe (and is logged).
   */
  public static void install(GpuProbe probe) {
    Objects.requireNonNull(probe, "Cannot install a GPU probe: the probe must not be null");
    GpuProbe previous = INSTALLED.getAndSet(probe);
    LOG.info("nlspark GPU probe installed: " + probe.getClass().getName()
        + " (replaces " + previous.getClass().getName() + ")");
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

  /** Creates the CUDA probe on first use, so merely resolving "cpu" never loads native code. */
  private static final class LazyCudaProbe implements GpuProbe {
    private volatile GpuProbe delegate;

    @Override
    public GpuStatus probe() {
      GpuProbe d = delegate;
      if (d == null) {
        synchronized (this) {
          if (delegate == null) {
            delegate = new org.nlspark.core.gpu.CudaGpuProbe();
          }
          d = delegate;
        }
      }
      return d.probe();
    }
  }
}
