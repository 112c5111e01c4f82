package org.nlspark.core.backend;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/**
 * Chooses a backend from the problem size; ports §3.2 of DESIGN.md (the reference's
 * {@code _auto_select_backend}). Size = n_samples × n_features × cv. Below
 * {@link #SMALL_THRESHOLD} the CPU wins (transfers would dominate); above
 * {@link #LARGE_THRESHOLD}, or with cv &gt; 1, a usable GPU is taken; everything else is
 * {@code auto}, which also takes a usable GPU — the branches differ only in the reason recorded.
 */
public final class AutoBackendSelector {
  public static final long SMALL_THRESHOLD = 10_000_000L;
  public static final long LARGE_THRESHOLD = 30_000_000L;

  private AutoBackendSelector() {}

  public static Backend select(long nSamples, long nFeatures, int cv, GpuProbe probe) {
    if (nSamples < 0) {
      throw new InvalidInputException("n_samples must be >= 0, but was: " + nSamples);
    }
    if (nFeatures < 0) {
      throw new InvalidInputException("n_features must be >= 0, but was: " + nFeatures);
    }
    if (cv < 1) {
      throw new InvalidInputException("cv (folds) must be >= 1, but was: " + cv);
    }
    long size = problemSize(nSamples, nFeatures, cv);
    String sized = "size " + String.format(Locale.ROOT, "%,d", size);
    if (size < SMALL_THRESHOLD) {
      return Backend.cpu("auto: " + sized + " < 10,000,000; using CPU");
    }
    GpuStatus status = BackendResolver.probeSafely(probe);
    if (size > LARGE_THRESHOLD && status.available()) {
      return Backend.gpu(status.deviceName(), "auto: " + sized + " > 30,000,000 with usable GPU "
          + status.deviceName());
    }
    if (cv > 1 && status.available()) {
      return Backend.gpu(status.deviceName(), "auto: cross-validation (cv=" + cv
          + ") with usable GPU " + status.deviceName());
    }
    Backend auto = BackendResolver.resolve("auto", () -> status);
    return new Backend(auto.kind(), auto.deviceName(), auto.selectionReason() + " (" + sized + ")");
  }

  /** n_samples × n_features × cv, saturating at {@link Long#MAX_VALUE} (far above any threshold). */
  static long problemSize(long nSamples, long nFeatures, int cv) {
    try {
      return Math.multiplyExact(Math.multiplyExact(nSamples, nFeatures), (long) cv);
    } catch (ArithmeticException overflow) {
      return Long.MAX_VALUE;
    }
  }
}
