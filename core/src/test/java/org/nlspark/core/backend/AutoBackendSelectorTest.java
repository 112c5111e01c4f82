package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class AutoBackendSelectorTest {
  @Test
  void belowTheSmallThresholdStaysOnCpuWithoutProbing() {
    // 9,999,999 = 3 x 3,333,333 x 1
    Backend b = AutoBackendSelector.select(3, 3_333_333, 1, FakeGpus.mustNotBeCalled());
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.selectionReason()).isEqualTo("auto: size 9,999,999 < 10,000,000; using CPU");
  }

  @Test
  void cvMultipliesTheSize() {
    // 1000 x 4000 x 2 = 8,000,000 < 10M: CPU even with cv > 1 and a GPU
    assertThat(AutoBackendSelector.select(1000, 4000, 2, FakeGpus.mustNotBeCalled()).kind())
        .isEqualTo(BackendKind.CPU);
    // 1000 x 4000 x 3 = 12,000,000: the cv rule takes the GPU
    Backend b = AutoBackendSelector.select(1000, 4000, 3, FakeGpus.usable());
    assertThat(b.kind()).isEqualTo(BackendKind.GPU);
    assertThat(b.selectionReason()).contains("cross-validation (cv=3)");
  }

  @Test
  void aboveTheLargeThresholdTakesAUsableGpu() {
    Backend b = AutoBackendSelector.select(30_000_001, 1, 1, FakeGpus.usable());
    assertThat(b.kind()).isEqualTo(BackendKind.GPU);
    assertThat(b.deviceName()).isEqualTo(FakeGpus.H200);
    assertThat(b.selectionReason()).contains("size 30,000,001 > 30,000,000");
  }

  @Test
  void aboveTheLargeThresholdWithoutGpuIsCpu() {
    Backend b = AutoBackendSelector.select(30_000_001, 1, 1, FakeGpus.none("no CUDA device"));
    assertThat(b.kind()).isEqualTo(BackendKind.CPU);
    assertThat(b.selectionReason())
        .isEqualTo("auto: no usable GPU (no CUDA device); using CPU (size 30,000,001)");
  }

  @Test
  void inBetweenFallsToAutoWhichTakesAUsableGpu() {
    // exactly 10,000,000 (not below) and exactly 30,000,000 (not above): the auto branch
    for (long n : new long[] {10_000_000L, 30_000_000L}) {
      Backend gpu = AutoBackendSelector.select(n, 1, 1, FakeGpus.usable());
      assertThat(gpu.kind()).isEqualTo(BackendKind.GPU);
      assertThat(gpu.selectionReason()).startsWith("auto: usable GPU NVIDIA H200");
      Backend cpu = AutoBackendSelector.select(n, 1, 1, FakeGpus.none("no CUDA device"));
      assertThat(cpu.kind()).isEqualTo(BackendKind.CPU);
      assertThat(cpu.selectionReason()).startsWith("auto: no usable GPU (no CUDA device)");
    }
  }

  @Test
  void hugeSizesSaturateInsteadOfOverflowing() {
    assertThat(AutoBackendSelector.problemSize(Long.MAX_VALUE / 2, 3, 1)).isEqualTo(Long.MAX_VALUE);
    assertThat(AutoBackendSelector.problemSize(7, 11, 13)).isEqualTo(1001);
    assertThat(AutoBackendSelector.select(Long.MAX_VALUE / 2, 3, 1, FakeGpus.usable()).kind())
        .isEqualTo(BackendKind.GPU);
  }

  @Test
  void rejectsImpossibleShapes() {
    assertThatThrownBy(() -> AutoBackendSelector.select(-1, 5, 1, FakeGpus.usable()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("n_samples must be >= 0, but was: -1");
    assertThatThrownBy(() -> AutoBackendSelector.select(5, 5, 0, FakeGpus.usable()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("cv (folds) must be >= 1, but was: 0");
  }
}
