package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.util.List;
import org.junit.jupiter.api.Test;

class NativeShimTest {
  private static boolean onPath(String tool) {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      if (new File(dir, tool).canExecute()) {
        return true;
      }
    }
    return false;
  }

  private static boolean linuxX64() {
    return System.getProperty("os.name").toLowerCase().contains("linux")
        && System.getProperty("os.arch").equals("amd64");
  }

  @Test
  void theBuildPutsTheShimOnTheClassPathWhenGccExists() {
    assumeTrue(onPath("gcc") && linuxX64(), "gcc is not installed: the shim is skipped by design");
    assertThat(NativeShim.class.getResource(NativeShim.RESOURCE))
        .as("the Maven build compiles nlspark_cuda.c into target/classes")
        .isNotNull();
  }

  @Test
  void aMissingShimIsReportedAsNotBuilt() {
    String reason = NativeShim.attempt("/native/linux-x86_64/libnlspark_missing.so",
        NativeShim.DRIVER, NativeShim.CUBLAS, NativeShim.NVRTC);
    assumeTrue(linuxX64());
    // Once the real shim is loaded in this JVM, the resource is not read again.
    assertThat(reason).satisfiesAnyOf(
        r -> assertThat(r).startsWith("shim not built (native/linux-x86_64/libnlspark_missing.so"
            + " is not in the jar"),
        r -> assertThat(r).doesNotContain("shim not built"));
  }

  @Test
  void aMissingDriverIsAReasonNotACrash() {
    assumeTrue(onPath("gcc") && linuxX64());
    String reason = NativeShim.attempt(NativeShim.RESOURCE, "libcuda-nlspark-missing.so.1",
        NativeShim.CUBLAS, NativeShim.NVRTC);
    if (reason == null) {
      return; // a driver was opened earlier in this JVM (a GPU machine): open() keeps it
    }
    assertThat(reason).startsWith("libcuda-nlspark-missing.so.1 not found (no NVIDIA driver on"
        + " this machine: ");
  }

  @Test
  void withoutAGpuTheRealLoadSaysWhy() {
    assumeTrue(onPath("gcc") && linuxX64());
    assumeFalse(new File("/dev/nvidia0").exists(), "this machine has an NVIDIA device");
    String reason = NativeShim.attempt(NativeShim.RESOURCE, NativeShim.DRIVER, NativeShim.CUBLAS,
        NativeShim.NVRTC);
    assertThat(reason).isNotNull();
    assertThat(reason).satisfiesAnyOf(
        r -> assertThat(r).startsWith("libcuda.so.1 not found"),
        r -> assertThat(r).startsWith("no CUDA device"),
        r -> assertThat(r).startsWith("the CUDA driver failed to initialise"));
  }

  @Test
  void cublasAndNvrtcAreTriedNewestMajorFirst() {
    assertThat(NativeShim.CUBLAS).containsExactly("libcublas.so.13", "libcublas.so.12",
        "libcublas.so.11");
    // CUDA 11's NVRTC carries its minor version in the soname.
    assertThat(NativeShim.NVRTC).containsExactly("libnvrtc.so.13", "libnvrtc.so.12",
        "libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0");
    assertThat(List.of(NativeShim.DRIVER)).containsExactly("libcuda.so.1");
  }
}
