package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.backend.GpuStatus;

class SystemMemoryProbeTest {
  @Test
  void readsMemAvailableInKibibytes() {
    List<String> meminfo = List.of("MemTotal:       131072000 kB", "MemFree:         1000 kB",
        "MemAvailable:    2048 kB", "Buffers:          0 kB");
    assertThat(SystemMemoryProbe.parseMemAvailable(meminfo)).hasValue(2048L * 1024);
    assertThat(SystemMemoryProbe.parseMemAvailable(List.of("MemTotal: 1 kB"))).isEmpty();
    assertThat(SystemMemoryProbe.parseMemAvailable(List.of("MemAvailable: lots"))).isEmpty();
  }

  @Test
  void measuresThisJvmAndMachine() {
    MemoryProbe probe = MemoryProbe.system();
    assertThat(probe.heapHeadroomBytes()).isPositive()
        .isLessThanOrEqualTo(Runtime.getRuntime().maxMemory());
    assertThat(probe.availableSystemBytes()).isPresent();
    assertThat(probe.availableSystemBytes().getAsLong()).isPositive();
    assertThat(probe.freeDeviceBytes()).isEmpty(); // no GPU module in core
  }

  @Test
  void freeDeviceMemoryComesFromTheGpuProbe() {
    MemoryProbe withGpu = MemoryProbe.system(() -> GpuStatus.available("T4", 123L, 456L, "550"));
    assertThat(withGpu.freeDeviceBytes()).hasValue(123L);
    MemoryProbe without = MemoryProbe.system(() -> GpuStatus.unavailable("no CUDA device"));
    assertThat(without.freeDeviceBytes()).isEmpty();
  }
}
