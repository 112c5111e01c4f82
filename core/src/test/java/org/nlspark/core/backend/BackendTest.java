package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The backend section of summary.json, one shape for every command. */
class BackendTest {
  @Test
  void theSummarySectionSaysWhatWasAskedWhatRunsWhereAndWhy() {
    Map<String, Object> cpu = Backend.cpu("isc runs on the CPU").toMap("auto");
    assertThat(List.copyOf(cpu.keySet())).containsExactly("requested", "used", "device",
        "reason");
    assertThat(cpu).containsEntry("requested", "auto").containsEntry("used", "cpu")
        .containsEntry("device", Backend.CPU_DEVICE_NAME)
        .containsEntry("reason", "isc runs on the CPU");
    assertThat(Backend.gpu("H200", "requested").toMap("gpu")).containsEntry("used", "gpu")
        .containsEntry("device", "H200");
  }
}
