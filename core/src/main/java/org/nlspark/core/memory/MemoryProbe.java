package org.nlspark.core.memory;

import java.util.OptionalLong;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;

/**
 * The memory measurements a {@link MemoryBudget} is built from. Injectable so that every branch
 * of the budget rule can be pinned; {@link #system()} measures this process and machine.
 */
public interface MemoryProbe {
  /** Available system memory: /proc/meminfo MemAvailable, else the OS MXBean; empty if unknown. */
  OptionalLong availableSystemBytes();

  /** Room left on the JVM heap: {@code maxMemory - (totalMemory - freeMemory)}. */
  long heapHeadroomBytes();

  /** Free memory of the usable GPU; empty when there is none. */
  OptionalLong freeDeviceBytes();

  /** Measures this machine; the GPU through {@link GpuProbes#system()}, read at each call. */
  static MemoryProbe system() {
    return SystemMemoryProbe.SYSTEM;
  }

  /** Measures this machine, the GPU through the given probe. */
  static MemoryProbe system(GpuProbe gpu) {
    return new SystemMemoryProbe(gpu);
  }
}
