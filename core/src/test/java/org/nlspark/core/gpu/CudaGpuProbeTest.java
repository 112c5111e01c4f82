package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.io.File;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.backend.GpuStatus;

class CudaGpuProbeTest {
  @Test
  void aLoaderReasonBecomesUnavailable() {
    GpuStatus s = new CudaGpuProbe(0, () -> "shim not built (test)").probe();
    assertThat(s.available()).isFalse();
    assertThat(s.reason()).isEqualTo("shim not built (test)");
  }

  @Test
  void neverThrowsEvenWhenLoadingThrows() {
    CudaGpuProbe probe = new CudaGpuProbe(0, () -> {
      throw new IllegalStateException("boom");
    });
    GpuStatus s = probe.probe();
    assertThat(s.available()).isFalse();
    assertThat(s.reason()).isEqualTo("the CUDA probe failed: java.lang.IllegalStateException: boom");
    CudaGpuProbe linkage = new CudaGpuProbe(0, () -> {
      throw new UnsatisfiedLinkError("no shim");
    });
    assertThat(linkage.probe().reason()).contains("UnsatisfiedLinkError: no shim");
  }

  @Test
  void theRealProbeReportsNoGpuWithAReasonHere() {
    assumeFalse(new File("/dev/nvidia0").exists(), "this machine has an NVIDIA device");
    GpuStatus[] s = new GpuStatus[1];
    assertThatCode(() -> s[0] = new CudaGpuProbe().probe()).doesNotThrowAnyException();
    assertThat(s[0].available()).isFalse();
    assertThat(s[0].reason()).isNotBlank();
    // A second probe answers from the cached outcome, the same way.
    assertThat(new CudaGpuProbe(3).probe().reason()).isEqualTo(s[0].reason());
  }

  @Test
  void detailsCarryTheReasonAndTheRapidsState() {
    assumeFalse(new File("/dev/nvidia0").exists(), "this machine has an NVIDIA device");
    Map<String, Object> m = new CudaGpuProbe().details();
    assertThat(m).containsEntry("gpu_available", false).containsEntry("device_index", 0);
    assertThat((String) m.get("reason")).isNotBlank();
    assertThat(m.get("rapids_pool"))
        .isEqualTo("not used: ai.rapids.cudf.Rmm is not on the class path");
  }
}
