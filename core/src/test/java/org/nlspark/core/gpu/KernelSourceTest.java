package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Compiles the kernel source with nvcc (when this machine has the CUDA compiler, even without a
 * GPU) with the options NVRTC gets, so syntax errors are caught before any device run; and checks
 * that every kernel the executor launches is defined.
 */
class KernelSourceTest {
  static final List<String> LAUNCHED = List.of("sign_flip_f32", "sign_flip_f64",
      "flip_fold_keys_f32", "flip_fold_keys_f64", "flip_count_f32", "flip_count_f64",
      "flip_thresholds_f32", "flip_thresholds_f64", "flip_row_max", "two_sample_f32",
      "two_sample_f64", "correlation_f32", "correlation_f64", "bootstrap_linear_f32",
      "bootstrap_linear_f64", "set_columns", "tail_keys", "count_exceedances", "row_maxima",
      "window_moments", "bootstrap_order");

  private static String nvcc() {
    for (String dir : System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)) {
      File f = new File(dir, "nvcc");
      if (f.canExecute()) {
        return f.getPath();
      }
    }
    return null;
  }

  @Test
  void nvccCompilesTheKernelsWithTheRuntimeOptions(@TempDir Path dir) throws Exception {
    String nvcc = nvcc();
    assumeTrue(nvcc != null, "nvcc is not installed here");
    Path src = dir.resolve("nlspark_kernels.cu");
    Files.writeString(src, CudaContext.kernelSource());
    Path ptx = dir.resolve("nlspark_kernels.ptx");
    List<String> cmd = new ArrayList<>(List.of(nvcc, "-ptx", "-arch=compute_90"));
    for (String o : CudaContext.compileOptions(9, 0)) {
      if (!o.startsWith("--gpu-architecture")) {
        cmd.add(o);
      }
    }
    cmd.addAll(List.of("-o", ptx.toString(), src.toString()));
    // The PTX must keep every multiply and add separate (no fma), as the host build and Java do.
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String log = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
    assertThat(p.exitValue()).as("nvcc output:\n" + log).isZero();
    String text = Files.readString(ptx);
    for (String kernel : LAUNCHED) {
      assertThat(text).as("kernel " + kernel).contains(".entry " + kernel + "(");
    }
    assertThat(text).as("fused multiply-adds in the PTX").doesNotContain("fma.");
  }

  @Test
  void theHostBuildHasEveryLaunchedKernel() {
    String reason = HostKernels.load();
    assumeTrue(reason == null, "no host build of the kernels: " + reason);
    for (String kernel : LAUNCHED) {
      HostKernels.launch(kernel, 0, 1, new long[0]); // an empty grid: only the name is looked up
    }
    assertThatThrownBy(() -> HostKernels.launch("no_such_kernel", 0, 1, new long[0]))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("no_such_kernel");
  }

  @Test
  void theMathHeaderIsPastedInOnceAndNoIncludeIsLeft() {
    String src = CudaContext.kernelSource();
    assertThat(src).doesNotContain("#include \"");
    assertThat(src.split("#define NLSPARK_MATH_CUH", -1)).hasSize(2);
  }

  @Test
  void theSourceDefinesEveryLaunchedKernelUnmangled() {
    String src = CudaContext.kernelSource();
    for (String kernel : List.of("set_columns", "tail_keys", "count_exceedances", "row_maxima",
        "window_moments", "bootstrap_order", "flip_row_max")) {
      assertThat(src).contains("extern \"C\" __global__ void " + kernel + "(");
    }
    assertThat(CudaContext.compileOptions(9, 0)).contains("--gpu-architecture=sm_90",
        "--fmad=false");
  }
}
