package org.nlspark.core.backend;

/**
 * What a {@link GpuProbe} saw: whether a GPU is usable now and, if so, which one and how much of
 * its memory is free. When it is not usable, {@code reason} says why (it is shown by {@code env}
 * and recorded in a backend's selection reason), and is {@code null} otherwise.
 */
public record GpuStatus(boolean available, String deviceName, long freeBytes, long totalBytes,
    String driverVersion, String reason) {

  public GpuStatus {
    if (available && reason != null) {
      throw new IllegalArgumentException(
          "[BUG] a usable GPU must not carry an unavailability reason, but was: " + reason);
    }
    if (!available && (reason == null || reason.isBlank())) {
      throw new IllegalArgumentException(
          "[BUG] an unusable GPU status must say why, but the reason was: " + reason);
    }
    if (freeBytes < 0 || totalBytes < 0) {
      throw new IllegalArgumentException("[BUG] GPU memory sizes must be >= 0, but were: free="
          + freeBytes + ", total=" + totalBytes);
    }
  }

  /** A usable GPU. */
  public static GpuStatus available(String deviceName, long freeBytes, long totalBytes,
      String driverVersion) {
    return new GpuStatus(true, deviceName, freeBytes, totalBytes, driverVersion, null);
  }

  /** No usable GPU, and why. */
  public static GpuStatus unavailable(String reason) {
    return new GpuStatus(false, null, 0L, 0L, null, reason);
  }
}
