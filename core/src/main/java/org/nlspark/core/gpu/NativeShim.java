package org.nlspark.core.gpu;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.List;
import java.util.Locale;
import java.util.logging.Logger;

/**
 * Loads the CUDA shim once per process: extracts {@code native/linux-x86_64/libnlspark_cuda.so}
 * from the jar (or classes directory) into a temporary directory, {@code System.load}s it, then
 * opens the CUDA driver, cuBLAS and NVRTC through it. The outcome — usable, or the reason not — is
 * kept for the process: probing is then cheap, and a machine does not grow a GPU mid-run.
 */
final class NativeShim {
  static final String RESOURCE = "/native/linux-x86_64/libnlspark_cuda.so";
  static final String DRIVER = "libcuda.so.1";
  /**
   * Newest first; the shim skips any whose CUDA major version (the number after ".so.") is newer
   * than the driver's (cuDriverGetVersion), since the driver could not run it. CUDA 11's NVRTC is
   * versioned by minor (libnvrtc.so.11.2 from 11.2 on).
   */
  static final List<String> CUBLAS = List.of("libcublas.so.13", "libcublas.so.12",
      "libcublas.so.11");
  static final List<String> NVRTC = List.of("libnvrtc.so.13", "libnvrtc.so.12",
      "libnvrtc.so.11.2", "libnvrtc.so.11.1", "libnvrtc.so.11.0");

  private static final Logger LOG = Logger.getLogger(NativeShim.class.getName());
  private static String outcome;
  private static boolean attempted;

  private NativeShim() {}

  /** Null when the shim and the CUDA libraries are usable, else the reason (never throws). */
  static synchronized String load() {
    if (!attempted) {
      attempted = true;
      outcome = attempt(RESOURCE, DRIVER, CUBLAS, NVRTC);
      LOG.info(outcome == null ? "nlspark CUDA shim loaded: " + CudaNative.versions()
          : "nlspark GPU backend unavailable: " + outcome);
    }
    return outcome;
  }

  /**
   * One load attempt with explicit names (tests pass missing names to pin each reason). The shim
   * itself is loaded at most once per class loader; opening the libraries may be retried with
   * other names until one succeeds.
   */
  static synchronized String attempt(String resource, String driver, List<String> cublas,
      List<String> nvrtc) {
    try {
      String shim = loadShim(resource);
      if (shim != null) {
        return shim;
      }
      return CudaNative.open(driver, cublas.toArray(new String[0]), nvrtc.toArray(new String[0]));
    } catch (RuntimeException | LinkageError e) {
      return "cannot load the CUDA shim: " + e;
    }
  }

  private static Path loadedShim;

  /** Loads the shim library alone (no CUDA library): null when loaded, else why not. */
  static synchronized String loadLibrary() {
    return loadShim(RESOURCE);
  }

  private static String loadShim(String resource) {
    if (loadedShim != null) {
      return null;
    }
    String os = System.getProperty("os.name", "").toLowerCase(Locale.ROOT);
    String arch = System.getProperty("os.arch", "");
    if (!os.contains("linux") || !(arch.equals("amd64") || arch.equals("x86_64"))) {
      return "shim not built for " + os + "-" + arch + " (the GPU backend ships for linux-x86_64)";
    }
    try (InputStream in = NativeShim.class.getResourceAsStream(resource)) {
      if (in == null) {
        return "shim not built (" + resource.substring(1) + " is not in the jar: gcc was missing"
            + " when it was built)";
      }
      Path dir = Files.createTempDirectory("nlspark-cuda");
      Path lib = dir.resolve("libnlspark_cuda.so");
      try {
        Files.copy(in, lib, StandardCopyOption.REPLACE_EXISTING);
        System.load(lib.toAbsolutePath().toString());
      } finally {
        // once loaded the mapping outlives the file: nothing is left in the temporary
        // directory, not even after a kill -9 or a failed load
        Files.deleteIfExists(lib);
        Files.deleteIfExists(dir);
      }
      loadedShim = lib;
      return null;
    } catch (IOException e) {
      return "cannot extract the CUDA shim: " + e.getMessage();
    } catch (UnsatisfiedLinkError e) {
      return "cannot load the CUDA shim: " + e.getMessage();
    }
  }
}
