package org.nlspark.spark.cli;

import java.util.Map;

/**
 * The Python call a run came from, set by the Python package's entry point around one command
 * ({@code CommandRunner}). The command line the package builds names staged copies of in-memory
 * inputs and a temporary output, gone once the call returns; summary.json records this instead
 * ({@code python}: the call and each input as the user gave it, paths as paths, arrays and
 * tables by shape and content hash), and the report's "To reproduce" shows the call.
 */
public final class PythonCall {
  private static final ThreadLocal<Map<String, Object>> CURRENT = new ThreadLocal<>();

  private PythonCall() {}

  /** Sets the call for the command run next on this thread; null clears it. */
  public static void set(Map<String, Object> call) {
    if (call == null) {
      CURRENT.remove();
    } else {
      CURRENT.set(call);
    }
  }

  /** The call of the command running on this thread, or null (a command line). */
  static Map<String, Object> current() {
    return CURRENT.get();
  }
}
