package org.nlspark.core.engine;
import org.nlspark.core.backend.*;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.nlspark.core.memory.MemoryProbe;

class DeviceReportTest {
  private static MemoryProbe memory(long systemAvailable, long heap, long deviceFree) {
    return new MemoryProbe() {
      @Override
      public OptionalLong availableSystemBytes() {
        return OptionalLong.of(systemAvailable);
      }

      @Override
      public long heapHeadroomBytes() {
        return heap;
      }

      @Override
      public OptionalLong freeDeviceBytes() {
        return OptionalLong.of(deviceFree);
      }
    };
  }

  @Test
  void withoutGpuReportsCpuTheReasonAndTheCpuBudget() {
    DeviceReport r = DeviceReport.collect(FakeGpus.none("no CUDA device"),
        memory(6_000_000_000L, 10_000_000_000L, 0), null);
    assertThat(r.gpuAvailable()).isFalse();
    assertThat(r.backend()).isEqualTo("cpu");
    assertThat(r.device()).isEqualTo("cpu");
    assertThat(r.deviceName()).isEqualTo("CPU");
    assertThat(r.cpuBudgetGb()).isCloseTo(3.0, within(1e-12)); // 6 GB x 0.5
    assertThat(r.cpuBudgetSource()).isEqualTo("measured_system");
    assertThat(r.gpuBudgetGb()).isNull();
    assertThat(r.gpuUnavailableReason()).isEqualTo("no CUDA device");
    assertThat(r.blas()).isEqualTo(Blas.describe());
    assertThat(r.nativeBlas()).isEqualTo(Blas.isNativeOpenBlas());
  }

  @Test
  void withGpuReportsItsNameAndDeviceBudget() {
    DeviceReport r = DeviceReport.collect(FakeGpus.usable(),
        memory(6_000_000_000L, 10_000_000_000L, 50_000_000_000L), null);
    assertThat(r.gpuAvailable()).isTrue();
    assertThat(r.backend()).isEqualTo("gpu");
    assertThat(r.device()).isEqualTo("cuda");
    assertThat(r.deviceName()).isEqualTo(FakeGpus.H200);
    assertThat(r.gpuBudgetGb()).isCloseTo(40.0, within(1e-9)); // 50 GB x 0.8, uncapped
    assertThat(r.gpuUnavailableReason()).isNull();
  }

  @Test
  void explicitBudgetIsReportedAsSuch() {
    DeviceReport r = DeviceReport.collect(FakeGpus.none("no CUDA device"), memory(1, 1, 0), 2.5);
    assertThat(r.cpuBudgetGb()).isEqualTo(2.5);
    assertThat(r.cpuBudgetSource()).isEqualTo("explicit");
  }

  @Test
  void mapHasAStableKeyOrderAndKeepsNulls() {
    DeviceReport r = DeviceReport.collect(FakeGpus.none("no CUDA device"),
        memory(6_000_000_000L, 10_000_000_000L, 0), null);
    assertThat(r.toMap().keySet()).containsExactly("gpu_available", "backend", "device",
        "device_name", "blas", "native_blas", "cpu_budget_gb", "cpu_budget_source",
        "gpu_budget_gb", "gpu_unavailable_reason");
    assertThat(r.toMap()).containsEntry("gpu_budget_gb", null).containsEntry("device", "cpu");
  }

  @Test
  void systemCollectUsesTheGivenProbe() {
    DeviceReport r = DeviceReport.collect(GpuProbes.system());
    org.junit.jupiter.api.Assumptions.assumeFalse(r.gpuAvailable(), "a GPU is usable here");
    assertThat(r.gpuUnavailableReason()).isEqualTo(GpuProbes.system().probe().reason());
    assertThat(r.cpuBudgetGb()).isPositive();
  }
}
