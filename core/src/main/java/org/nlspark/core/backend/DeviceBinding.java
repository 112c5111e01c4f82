package org.nlspark.core.backend;

import java.io.IOException;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.Objects;

/**
 * The device a fitted or partial result was computed on, kept with it when it is serialized;
 * ports the run-or-raise rule, §3.4 of DESIGN.md. Restoring never re-resolves the device: where
 * the recorded GPU is missing, the record stays as it was and {@link #checkCanCompute(GpuProbe)}
 * refuses, so work never moves silently to another device.
 */
public final class DeviceBinding implements Serializable {
  private static final long serialVersionUID = 1L;

  private final BackendKind kind;
  private final String deviceName;

  private DeviceBinding(BackendKind kind, String deviceName) {
    this.kind = kind;
    this.deviceName = deviceName;
  }

  /** Records the kind and device name of a resolved backend. */
  public static DeviceBinding of(Backend backend) {
    Objects.requireNonNull(backend, "[BUG] cannot bind to a null backend");
    return new DeviceBinding(backend.kind(), backend.deviceName());
  }

  public BackendKind kind() {
    return kind;
  }

  public String deviceName() {
    return deviceName;
  }

  /**
   * Passes when the recorded device can compute here; a CPU record always can. A GPU record with
   * no usable GPU now throws {@link IllegalStateException} naming the device and the remedies.
   */
  public void checkCanCompute(GpuProbe probe) {
    if (kind == BackendKind.CPU) {
      return;
    }
    GpuStatus status = BackendResolver.probeSafely(probe);
    if (!status.available()) {
      throw new IllegalStateException("Cannot compute with this result: it was computed on GPU "
          + deviceName + ", which is not available in this process (" + status.reason() + ")."
          + " Refit on an available device, or choose cpu (--backend cpu).");
    }
  }

  private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
    in.defaultReadObject();
    if (kind == null) {
      throw new InvalidObjectException("Cannot restore a device binding: its backend kind is missing");
    }
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof DeviceBinding b && kind == b.kind && Objects.equals(deviceName, b.deviceName);
  }

  @Override
  public int hashCode() {
    return Objects.hash(kind, deviceName);
  }

  @Override
  public String toString() {
    return "DeviceBinding[" + kind + ", " + deviceName + "]";
  }
}
