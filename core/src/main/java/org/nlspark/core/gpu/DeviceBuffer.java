package org.nlspark.core.gpu;

/**
 * Device memory of one allocation, from cuMemAlloc or from the RAPIDS pool. {@link #close()} is
 * idempotent; use try-with-resources. Copies are synchronous on the default stream.
 */
public final class DeviceBuffer implements AutoCloseable {
  private final Device device;
  private final long address;
  private final long bytes;
  private final AutoCloseable owner; // RAPIDS buffer, or null for raw device memory
  private boolean closed;

  DeviceBuffer(Device device, long address, long bytes, AutoCloseable owner) {
    this.device = device;
    this.address = address;
    this.bytes = bytes;
    this.owner = owner;
  }

  /** Device address (valid until close). */
  public long address() {
    checkOpen();
    return address;
  }

  public long bytes() {
    return bytes;
  }

  /** Address of element {@code index} of {@code elementBytes}-wide elements. */
  public long address(long index, int elementBytes) {
    checkOpen();
    long offset = index * elementBytes;
    if (offset < 0 || offset > bytes) {
      throw new IllegalArgumentException("[BUG] device offset " + offset + " outside a buffer of "
          + bytes + " bytes");
    }
    return address + offset;
  }

  public void zero() {
    device.zero(address(), bytes);
  }

  public void upload(double[] src, int from, int count, long dstIndex) {
    copyIn(src, 8L * from, 8L * count, 8L * dstIndex, src.length * 8L);
  }

  public void upload(float[] src, int from, int count, long dstIndex) {
    copyIn(src, 4L * from, 4L * count, 4L * dstIndex, src.length * 4L);
  }

  public void upload(int[] src, int from, int count, long dstIndex) {
    copyIn(src, 4L * from, 4L * count, 4L * dstIndex, src.length * 4L);
  }

  public void upload(double[] src) {
    upload(src, 0, src.length, 0);
  }

  public void upload(float[] src) {
    upload(src, 0, src.length, 0);
  }

  public void upload(int[] src) {
    upload(src, 0, src.length, 0);
  }

  /** Copies {@code count} doubles from element {@code srcIndex} into dst[from ..). */
  public void download(long srcIndex, double[] dst, int from, int count) {
    copyOut(dst, 8L * from, 8L * count, 8L * srcIndex, dst.length * 8L);
  }

  /** Copies {@code count} 64-bit integers from element {@code srcIndex} into dst[from ..). */
  public void download(long srcIndex, long[] dst, int from, int count) {
    copyOut(dst, 8L * from, 8L * count, 8L * srcIndex, dst.length * 8L);
  }

  public void download(long srcIndex, float[] dst, int from, int count) {
    copyOut(dst, 4L * from, 4L * count, 4L * srcIndex, dst.length * 4L);
  }

  private void copyIn(Object src, long hostOffset, long count, long deviceOffset, long hostBytes) {
    checkRange(hostOffset, count, deviceOffset, hostBytes);
    device.copyToDevice(address() + deviceOffset, src, hostOffset, count);
  }

  private void copyOut(Object dst, long hostOffset, long count, long deviceOffset,
      long hostBytes) {
    checkRange(hostOffset, count, deviceOffset, hostBytes);
    device.copyToHost(dst, hostOffset, address() + deviceOffset, count);
  }

  private void checkRange(long hostOffset, long count, long deviceOffset, long hostBytes) {
    if (hostOffset < 0 || count < 0 || hostOffset + count > hostBytes || deviceOffset < 0
        || deviceOffset + count > bytes) {
      throw new IllegalArgumentException("[BUG] copy of " + count + " bytes (host offset "
          + hostOffset + " of " + hostBytes + ", device offset " + deviceOffset + " of " + bytes
          + ") is out of range");
    }
  }

  private void checkOpen() {
    if (closed) {
      throw new IllegalStateException("[BUG] device buffer of " + bytes + " bytes used after close");
    }
  }

  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    if (owner != null) {
      try {
        owner.close();
      } catch (Exception e) {
        throw new CudaException("Cannot release a RAPIDS device buffer: " + e);
      }
    } else {
      device.free(address);
    }
  }
}
