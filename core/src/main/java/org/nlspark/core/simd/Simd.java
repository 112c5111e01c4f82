package org.nlspark.core.simd;

/**
 * Whether the SIMD epilogues ({@code jdk.incubator.vector}) run in this JVM. On Java 17 the module
 * exists only with {@code --add-modules jdk.incubator.vector}; without it every kernel takes its
 * scalar path, which gives the same bits. The classes that use the module are loaded only after
 * this check passes, so a JVM without it never links them. {@code -Dnlspark.simd=false} forces
 * the scalar path (for comparisons).
 */
public final class Simd {
  private static final boolean ENABLED = detect();

  private Simd() {}

  /** True when the vector module is present, not switched off, and its vectors hold >= 4 doubles. */
  public static boolean enabled() {
    return ENABLED;
  }

  /** A word for reports: "vector (8 x float64 lanes)" or "scalar (reason)". */
  public static String describe() {
    if (ENABLED) {
      return "vector (" + VectorLanes.doubles() + " x float64 lanes)";
    }
    if (!"true".equals(System.getProperty("nlspark.simd", "true"))) {
      return "scalar (nlspark.simd=false)";
    }
    return moduleLoaded() ? "scalar (vectors narrower than 4 doubles)"
        : "scalar (start the JVM with --add-modules jdk.incubator.vector)";
  }

  private static boolean moduleLoaded() {
    return ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent();
  }

  private static boolean detect() {
    if (!"true".equals(System.getProperty("nlspark.simd", "true")) || !moduleLoaded()) {
      return false;
    }
    try {
      return VectorLanes.doubles() >= 4;
    } catch (LinkageError e) { // a module present but unusable: stay scalar
      return false;
    }
  }
}
