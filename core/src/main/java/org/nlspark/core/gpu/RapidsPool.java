package org.nlspark.core.gpu;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import org.nlspark.core.memory.DeviceOutOfMemoryException;

/**
 * Device memory from RAPIDS (cuDF's RMM pool) when this executor shares its GPU with the RAPIDS
 * Accelerator: taking memory from the pool instead of cuMemAlloc keeps both from fighting over
 * the device. Found by reflection only — nlspark has no compile-time cuDF dependency — and used
 * only when {@code ai.rapids.cudf.Rmm.isInitialized()} says a pool exists.
 *
 * <p>The pool's free memory ({@code getPoolSize() - getTotalBytesAllocated()} where the cuDF
 * version has both) is the budget; where it cannot be read, {@link #freeBytes()} is empty and the
 * driver's free memory is used. Any failure to allocate that cuDF reports as out of memory becomes
 * a {@link DeviceOutOfMemoryException}, so OOM recovery works the same with or without RAPIDS.
 */
public final class RapidsPool {
  static final String RMM = "ai.rapids.cudf.Rmm";
  static final String DEVICE_MEMORY_BUFFER = "ai.rapids.cudf.DeviceMemoryBuffer";

  private final Method allocate;
  private final Method address;
  private final Method poolSize;
  private final Method allocated;

  private RapidsPool(Method allocate, Method address, Method poolSize, Method allocated) {
    this.allocate = allocate;
    this.address = address;
    this.poolSize = poolSize;
    this.allocated = allocated;
  }

  /** The RAPIDS pool of this process, if cuDF is on the class path and its pool is initialised. */
  public static Optional<RapidsPool> detect() {
    return detect(RapidsPool.class.getClassLoader(), RMM, DEVICE_MEMORY_BUFFER);
  }

  /** Why {@link #detect()} finds no pool (for the device report), or null when it finds one. */
  public static String absenceReason() {
    return absenceReason(RapidsPool.class.getClassLoader(), RMM, DEVICE_MEMORY_BUFFER);
  }

  static Optional<RapidsPool> detect(ClassLoader loader, String rmmName, String bufferName) {
    try {
      Class<?> rmm = Class.forName(rmmName, true, loader);
      Object initialized = rmm.getMethod("isInitialized").invoke(null);
      if (!Boolean.TRUE.equals(initialized)) {
        return Optional.empty();
      }
      Class<?> buffer = Class.forName(bufferName, true, loader);
      Method allocate = buffer.getMethod("allocate", long.class);
      Method address = buffer.getMethod("getAddress");
      if (!AutoCloseable.class.isAssignableFrom(buffer)) {
        return Optional.empty();
      }
      return Optional.of(new RapidsPool(allocate, address, optionalMethod(rmm, "getPoolSize"),
          optionalMethod(rmm, "getTotalBytesAllocated")));
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return Optional.empty();
    }
  }

  static String absenceReason(ClassLoader loader, String rmmName, String bufferName) {
    try {
      Class<?> rmm = Class.forName(rmmName, true, loader);
      Object initialized = rmm.getMethod("isInitialized").invoke(null);
      if (!Boolean.TRUE.equals(initialized)) {
        return "RAPIDS is on the class path but its memory pool is not initialised";
      }
      return detect(loader, rmmName, bufferName).isPresent() ? null
          : bufferName + " lacks allocate(long)/getAddress()/close()";
    } catch (ClassNotFoundException e) {
      return rmmName + " is not on the class path";
    } catch (ReflectiveOperationException | LinkageError | RuntimeException e) {
      return "cannot query RAPIDS: " + e;
    }
  }

  private static Method optionalMethod(Class<?> c, String name) {
    try {
      return c.getMethod(name);
    } catch (NoSuchMethodException e) {
      return null;
    }
  }

  /** Free bytes of the pool, when this cuDF version can tell. */
  public OptionalLong freeBytes() {
    if (poolSize == null || allocated == null) {
      return OptionalLong.empty();
    }
    try {
      long size = ((Number) poolSize.invoke(null)).longValue();
      long used = ((Number) allocated.invoke(null)).longValue();
      return size > 0 ? OptionalLong.of(Math.max(0, size - used)) : OptionalLong.empty();
    } catch (ReflectiveOperationException | RuntimeException e) {
      return OptionalLong.empty();
    }
  }

  /** Allocates from the pool; the returned buffer closes the cuDF buffer. */
  DeviceBuffer allocate(CudaContext context, long bytes) {
    Object buffer;
    try {
      buffer = allocate.invoke(null, bytes);
    } catch (InvocationTargetException e) {
      Throwable cause = e.getCause();
      if (isOutOfMemory(cause)) {
        throw new DeviceOutOfMemoryException("Cannot allocate " + bytes
            + " bytes from the RAPIDS pool: " + cause, cause);
      }
      throw new CudaException("Cannot allocate " + bytes + " bytes from the RAPIDS pool: " + cause);
    } catch (ReflectiveOperationException e) {
      throw new CudaException("Cannot allocate from the RAPIDS pool: " + e);
    }
    try {
      long addr = ((Number) address.invoke(buffer)).longValue();
      return new DeviceBuffer(context, addr, bytes, (AutoCloseable) buffer);
    } catch (ReflectiveOperationException | RuntimeException e) {
      try {
        ((AutoCloseable) buffer).close();
      } catch (Exception suppressed) {
        e.addSuppressed(suppressed);
      }
      throw new CudaException("Cannot read the address of a RAPIDS buffer: " + e);
    }
  }

  /** cuDF and spark-rapids report device OOM with several exception types; match them by name. */
  static boolean isOutOfMemory(Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause()) {
      String name = c.getClass().getSimpleName();
      String msg = String.valueOf(c.getMessage()).toLowerCase(Locale.ROOT);
      if (c instanceof OutOfMemoryError || name.contains("OOM") || name.contains("OutOfMemory")
          || msg.contains("out of memory") || msg.contains("out_of_memory")) {
        return true;
      }
    }
    return false;
  }
}
