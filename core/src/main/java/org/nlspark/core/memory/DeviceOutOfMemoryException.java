package org.nlspark.core.memory;

/**
 * What GPU code throws on a real device out-of-memory, so {@link OomRecovery} can tell it from
 * every other failure (which it never retries).
 */
public class DeviceOutOfMemoryException extends RuntimeException {
  public DeviceOutOfMemoryException(String message) {
    super(message);
  }

  public DeviceOutOfMemoryException(String message, Throwable cause) {
    super(message, cause);
  }
}
