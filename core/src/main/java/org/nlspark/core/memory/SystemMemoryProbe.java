package org.nlspark.core.memory;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.OptionalLong;
import org.nlspark.core.backend.GpuProbe;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.backend.GpuStatus;

/** {@link MemoryProbe} of this machine and JVM. */
final class SystemMemoryProbe implements MemoryProbe {
  static final SystemMemoryProbe SYSTEM = new SystemMemoryProbe(GpuProbes.system());
  private static final Path MEMINFO = Path.of("/proc/meminfo");

  private final GpuProbe gpu;

  SystemMemoryProbe(GpuProbe gpu) {
    this.gpu = GpuProbes.guard(Objects.requireNonNull(gpu, "[BUG] a memory probe needs a GPU probe"));
  }

  @Override
  public OptionalLong availableSystemBytes() {
    try {
      OptionalLong fromProc = parseMemAvailable(Files.readAllLines(MEMINFO));
      if (fromProc.isPresent()) {
        return fromProc;
      }
    } catch (IOException | RuntimeException notLinux) {
      // Not Linux, or /proc is hidden: ask the JVM instead.
    }
    try {
      if (ManagementFactory.getOperatingSystemMXBean()
          instanceof com.sun.management.OperatingSystemMXBean os) {
        long free = os.getFreeMemorySize();
        return free > 0 ? OptionalLong.of(free) : OptionalLong.empty();
      }
    } catch (RuntimeException | LinkageError unavailable) {
      // No measurement: the budget falls back.
    }
    return OptionalLong.empty();
  }

  @Override
  public long heapHeadroomBytes() {
    Runtime rt = Runtime.getRuntime();
    return rt.maxMemory() - (rt.totalMemory() - rt.freeMemory());
  }

  @Override
  public OptionalLong freeDeviceBytes() {
    GpuStatus status = gpu.probe();
    return status.available() ? OptionalLong.of(status.freeBytes()) : OptionalLong.empty();
  }

  /** The MemAvailable line of /proc/meminfo ("MemAvailable:  123456 kB") in bytes. */
  static OptionalLong parseMemAvailable(List<String> lines) {
    for (String line : lines) {
      if (line.startsWith("MemAvailable:")) {
        String[] parts = line.substring("MemAvailable:".length()).trim().split("\\s+");
        try {
          long value = Long.parseLong(parts[0]);
          long unit = parts.length > 1 && parts[1].equalsIgnoreCase("kB") ? 1024L : 1L;
          return value >= 0 ? OptionalLong.of(value * unit) : OptionalLong.empty();
        } catch (NumberFormatException malformed) {
          return OptionalLong.empty();
        }
      }
    }
    return OptionalLong.empty();
  }
}
