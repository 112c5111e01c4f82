package org.nlspark.core.backend;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;

/**
 * A resolved backend: what the work runs on, the device's name, and why it was chosen (shown in
 * {@code summary.json}). Resolve once, upstream, and pass the instance down
 * ({@link BackendResolver#resolve(Backend)}).
 */
public record Backend(BackendKind kind, String deviceName, String selectionReason) {
  /** The device name a CPU backend reports. */
  public static final String CPU_DEVICE_NAME = "CPU";

  public Backend {
    Objects.requireNonNull(kind, "[BUG] a backend must have a kind");
  }

  /** A CPU backend, with the reason it was chosen. */
  public static Backend cpu(String selectionReason) {
    return new Backend(BackendKind.CPU, CPU_DEVICE_NAME, selectionReason);
  }

  /** A GPU backend on the named device, with the reason it was chosen. */
  public static Backend gpu(String deviceName, String selectionReason) {
    return new Backend(BackendKind.GPU, deviceName, selectionReason);
  }

  /**
   * The backend section of summary.json, the same for every command: what was requested, what
   * is used, its device and why.
   */
  public Map<String, Object> toMap(String requested) {
    Map<String, Object> b = new LinkedHashMap<>();
    b.put("requested", requested);
    b.put("used", kind.name().toLowerCase(Locale.ROOT));
    b.put("device", deviceName);
    b.put("reason", selectionReason);
    return b;
  }

  public boolean isGpu() {
    return kind == BackendKind.GPU;
  }
}
