package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class GpuProbesTest {
  @Test
  void theDefaultProbeIsTheCudaShimAndSaysWhyNoGpuIsUsable() {
    GpuStatus status = GpuProbes.system().probe();
    org.junit.jupiter.api.Assumptions.assumeFalse(status.available(), "a GPU is usable here");
    assertThat(status.reason()).isNotBlank();
    assertThat(GpuProbes.system()).isSameAs(GpuProbes.system());
  }

  @Test
  void guardTurnsFailuresIntoNoGpuWithTheReason() {
    GpuStatus thrown = GpuProbes.guard(() -> {
      throw new IllegalStateException("cudaErrorNoDevice");
    }).probe();
    assertThat(thrown.available()).isFalse();
    assertThat(thrown.reason()).startsWith("the GPU probe failed: ").contains("cudaErrorNoDevice");

    GpuStatus linkage = GpuProbes.guard(() -> {
      throw new NoClassDefFoundError("ai/rapids/cudf/Cuda");
    }).probe();
    assertThat(linkage.reason()).contains("ai/rapids/cudf/Cuda");

    GpuStatus nothing = GpuProbes.guard(() -> null).probe();
    assertThat(nothing.reason()).startsWith("[BUG]");
  }

  @Test
  void guardPassesAGoodAnswerThrough() {
    GpuStatus ok = GpuProbes.guard(FakeGpus.usable()).probe();
    assertThat(ok.available()).isTrue();
    assertThat(ok.deviceName()).isEqualTo(FakeGpus.H200);
    assertThat(ok.freeBytes()).isEqualTo(100_000_000_000L);
  }

  @Test
  void statusInvariants() {
    assertThat(GpuStatus.unavailable("no driver"))
        .isEqualTo(new GpuStatus(false, null, 0, 0, null, "no driver"));
    assertThatThrownBy(() -> GpuStatus.unavailable(null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("[BUG] an unusable GPU status must say why");
    assertThatThrownBy(() -> new GpuStatus(true, "T4", 1, 2, "550", "but why"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("must not carry an unavailability reason, but was: but why");
    assertThatThrownBy(() -> GpuStatus.available("T4", -1, 2, "550"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("free=-1");
  }
}
