package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import org.junit.jupiter.api.Test;

class DeviceBindingTest {
  @Test
  void gpuRecordRestoredWithoutGpuKeepsTheRecordAndRefusesToCompute() throws Exception {
    DeviceBinding fitted = DeviceBinding.of(BackendResolver.resolve("gpu", FakeGpus.usable()));
    DeviceBinding restored = roundTrip(fitted);

    assertThat(restored).isEqualTo(fitted);
    assertThatThrownBy(() -> restored.checkCanCompute(FakeGpus.none("no CUDA device")))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("computed on GPU NVIDIA H200")
        .hasMessageContaining("not available in this process (no CUDA device)")
        .hasMessageContaining("Refit")
        .hasMessageContaining("choose cpu");
    // never moves: still a GPU record after the failure
    assertThat(restored.kind()).isEqualTo(BackendKind.GPU);
    assertThat(restored.deviceName()).isEqualTo(FakeGpus.H200);
  }

  @Test
  void gpuRecordComputesWhereAGpuIsUsable() throws Exception {
    DeviceBinding restored = roundTrip(DeviceBinding.of(Backend.gpu(FakeGpus.H200, "requested: gpu")));
    assertThatCode(() -> restored.checkCanCompute(FakeGpus.usable())).doesNotThrowAnyException();
  }

  @Test
  void cpuRecordAlwaysComputesWithoutProbing() throws Exception {
    DeviceBinding restored = roundTrip(DeviceBinding.of(Backend.cpu("requested: cpu")));
    assertThat(restored.kind()).isEqualTo(BackendKind.CPU);
    assertThatCode(() -> restored.checkCanCompute(FakeGpus.mustNotBeCalled()))
        .doesNotThrowAnyException();
  }

  private static DeviceBinding roundTrip(DeviceBinding binding) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(binding);
    }
    try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      return (DeviceBinding) in.readObject();
    }
  }
}
