package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

class BackendResolverTest {
  @Test
  void nullMeansCpuWithoutProbing() {
    Backend b = BackendResolver.resolve((String) null, FakeGpus.mustNotBeCalled());
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.deviceName()).isEqualTo(Backend.CPU_DEVICE_NAME);
    assertThat(b.selectionReason()).contains("default");
  }

  @Test
  void cpuMeansCpuEvenWithAGpu() {
    Backend b = BackendResolver.resolve("cpu", FakeGpus.mustNotBeCalled());
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.selectionReason()).isEqualTo("requested: cpu");
  }

  @Test
  void gpuWithAUsableGpuRunsThere() {
    Backend b = BackendResolver.resolve("gpu", FakeGpus.usable());
    assertThat(b).isEqualTo(new Backend(BackendKind.GPU, FakeGpus.H200, "requested: gpu"));
  }

  @Test
  void gpuWithoutOneIsRefusedNeverFallsBack() {
    assertThatThrownBy(() -> BackendResolver.resolve("gpu", FakeGpus.none("CUDA driver not found")))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("GPU requested explicitly")
        .hasMessageContaining("none is available")
        .hasMessageContaining("(CUDA driver not found)")
        .hasMessageContaining("'cpu' or 'auto'");
  }

  @Test
  void autoTakesAUsableGpu() {
    Backend b = BackendResolver.resolve("auto", FakeGpus.usable());
    assertThat(b.kind()).isEqualTo(BackendKind.GPU);
    assertThat(b.deviceName()).isEqualTo(FakeGpus.H200);
    assertThat(b.selectionReason()).isEqualTo("auto: usable GPU NVIDIA H200");
  }

  @Test
  void autoFallsBackToCpuAndRecordsWhy() {
    Backend b = BackendResolver.resolve("auto", FakeGpus.none("no CUDA device"));
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.selectionReason()).isEqualTo("auto: no usable GPU (no CUDA device); using CPU");
  }

  @Test
  void autoSurvivesAProbeThatBreaksItsContract() {
    Backend b = BackendResolver.resolve("auto", () -> {
      throw new UnsatisfiedLinkError("libcudart.so.12: cannot open shared object file");
    });
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.selectionReason()).contains("the GPU probe failed").contains("libcudart.so.12");
  }

  @Test
  void anythingElseListsTheAcceptedValues() {
    for (String bad : new String[] {"tpu", "GPU", "", "numpy", " cpu"}) {
      assertThatThrownBy(() -> BackendResolver.resolve(bad, FakeGpus.mustNotBeCalled()))
          .isInstanceOf(InvalidInputException.class)
          .hasMessage("--backend must be one of [cpu, gpu, auto], but was: '" + bad + "'");
    }
  }

  @Test
  void aResolvedBackendPassesThroughUnchanged() {
    Backend gpu = Backend.gpu("Tesla T4", "requested: gpu");
    assertThat(BackendResolver.resolve(gpu)).isSameAs(gpu);
  }
}
