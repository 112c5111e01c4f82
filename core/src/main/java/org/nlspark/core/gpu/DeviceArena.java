package org.nlspark.core.gpu;

import java.util.ArrayDeque;
import java.util.Deque;

/**
 * The device buffers of one unit of work, closed together (newest first) by {@link #close()} —
 * also when the work fails, so an OOM retry starts from the memory it had before.
 */
final class DeviceArena implements AutoCloseable {
  private final Device context;
  private final Deque<DeviceBuffer> buffers = new ArrayDeque<>();

  DeviceArena(Device context) {
    this.context = context;
  }

  DeviceBuffer alloc(long bytes) {
    DeviceBuffer b = context.allocate(bytes);
    buffers.push(b);
    return b;
  }

  DeviceBuffer upload(double[] values) {
    DeviceBuffer b = alloc(8L * values.length);
    b.upload(values);
    return b;
  }

  DeviceBuffer upload(float[] values) {
    DeviceBuffer b = alloc(4L * values.length);
    b.upload(values);
    return b;
  }

  DeviceBuffer upload(int[] values) {
    DeviceBuffer b = alloc(4L * values.length);
    b.upload(values);
    return b;
  }

  @Override
  public void close() {
    RuntimeException first = null;
    while (!buffers.isEmpty()) {
      try {
        buffers.pop().close();
      } catch (RuntimeException e) {
        if (first == null) {
          first = e;
        } else {
          first.addSuppressed(e);
        }
      }
    }
    if (first != null) {
      throw first;
    }
  }
}
