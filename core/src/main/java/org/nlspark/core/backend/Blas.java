package org.nlspark.core.backend;

import dev.ludovic.netlib.blas.BLAS;
import java.io.File;
import java.util.Map;
import java.util.logging.Logger;
import org.bytedeco.javacpp.Loader;
import org.bytedeco.openblas.global.openblas_nolapack;

/**
 * The one place that chooses the CPU BLAS. Kernels call {@link #get()} and nothing else.
 *
 * <p>Preference: the OpenBLAS shipped inside the jar ({@code org.bytedeco:openblas}), loaded by
 * {@code dev.ludovic.netlib}'s JNI binding through {@code dev.ludovic.netlib.blas.nativeLibPath},
 * so a fresh machine gets native speed without a system package. If that fails, netlib picks
 * its own fallback (system BLAS, then Java); the reason is kept and shown by {@link #describe()},
 * never swallowed silently.
 *
 * <p>Threads: DESIGN §5 requires single-threaded GEMMs inside a task so results never depend on
 * the thread count; {@link #setThreads(int)} exists for the benchmark's peak measurement.
 */
public final class Blas {
  private static final Logger LOG = Logger.getLogger(Blas.class.getName());

  private static final class Holder {
    static final Blas INSTANCE = load();
  }

  private final BLAS blas;
  private final boolean nativeOpenBlas;
  private final String description;

  private Blas(BLAS blas, boolean nativeOpenBlas, String description) {
    this.blas = blas;
    this.nativeOpenBlas = nativeOpenBlas;
    this.description = description;
  }

  /** The BLAS all CPU kernels use. */
  public static BLAS get() {
    return Holder.INSTANCE.blas;
  }

  /** True when the bundled native OpenBLAS is active (not a system BLAS or a Java fallback). */
  public static boolean isNativeOpenBlas() {
    return Holder.INSTANCE.nativeOpenBlas;
  }

  /** One line for {@code env} and {@code summary.json}: which BLAS runs and why. */
  public static String describe() {
    return Holder.INSTANCE.description;
  }

  /** Sets OpenBLAS's global thread count (no-op without the bundled OpenBLAS). */
  public static void setThreads(int threads) {
    if (isNativeOpenBlas()) {
      openblas_nolapack.blas_set_num_threads(Math.max(1, threads));
    }
  }

  private static Blas load() {
    String reason;
    boolean tried = false;
    try {
      String explicit = System.getProperty("dev.ludovic.netlib.blas.nativeLibPath");
      if (explicit == null) {
        Loader.load(openblas_nolapack.class);
        String path = findLoaded("openblas");
        if (path == null) {
          throw new IllegalStateException("bundled libopenblas was loaded but its path is unknown");
        }
        System.setProperty("dev.ludovic.netlib.blas.nativeLibPath", path);
        tried = true;
      }
      // DESIGN §5: one thread per GEMM inside a task; callers parallelise over cells.
      openblas_nolapack.blas_set_num_threads(1);
      reason = null;
    } catch (Throwable t) {
      reason = "cannot load the bundled OpenBLAS: " + t;
    }
    BLAS instance = BLAS.getInstance();
    String impl = instance.getClass().getSimpleName();
    boolean jni = impl.contains("JNI");
    String description;
    if (jni && tried) {
      description = "native " + openblasVersion() + " (bundled, " + openblasThreads()
          + ") via dev.ludovic.netlib " + impl;
    } else if (jni) {
      String path = System.getProperty("dev.ludovic.netlib.blas.nativeLibPath");
      description = "native BLAS from " + (path != null ? path : "the system (netlib's choice)")
          + " via dev.ludovic.netlib " + impl + (reason != null ? ": " + reason : "");
    } else {
      description = "Java fallback BLAS (dev.ludovic.netlib " + impl + ")"
          + (reason != null ? ": " + reason : ": native BLAS did not load");
    }
    LOG.info("nlspark BLAS: " + description);
    return new Blas(instance, jni && tried, description);
  }

  private static String findLoaded(String fragment) {
    for (Map.Entry<String, String> e : Loader.getLoadedLibraries().entrySet()) {
      String p = e.getValue();
      if (p != null && new File(p).getName().startsWith("lib" + fragment) && p.contains(".so")) {
        return p;
      }
    }
    return null;
  }

  private static String openblasVersion() {
    try {
      return openblas_nolapack.OPENBLAS_VERSION.trim();
    } catch (Throwable t) {
      return "?";
    }
  }

  private static String openblasThreads() {
    try {
      return "threads " + openblas_nolapack.blas_get_num_threads();
    } catch (Throwable t) {
      return "core ?";
    }
  }
}
