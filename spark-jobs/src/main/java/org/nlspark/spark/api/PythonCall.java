package org.nlspark.spark.api;

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

  /**
   * The call of the command running on this thread (without its {@code staged} table), or
   * null (a command line).
   */
  public static Map<String, Object> current() {
    Map<String, Object> call = CURRENT.get();
    if (call == null) {
      return null;
    }
    Map<String, Object> shown = new java.util.LinkedHashMap<>(call);
    shown.remove("staged");
    return shown;
  }

  /**
   * Whether the run's mask is a file the Python package staged (an in-memory image): gone once
   * the call returns, so it is written beside the outputs as a computed mask is, for the report
   * and for later reading.
   */
  public static boolean stagedMask(org.nlspark.core.engine.RunReport report) {
    Map<String, Object> call = CURRENT.get();
    return report.mask() != null && report.maskSource() != null && call != null
        && call.get("staged") instanceof Map<?, ?> staged
        && staged.containsKey(report.maskSource())
        && !org.nlspark.spark.output.NiftiOutputs.writesMask(report);
  }

  /** The mesh a Python call staged (a nilearn SurfaceImage's), written beside the outputs. */
  public static final String MESH_FILE = "surface.surf.gii";
  /** The vertex mask a Python call staged (a SurfaceImage), written beside the outputs. */
  public static final String VERTEX_MASK_FILE = "mask.func.gii";

  /**
   * The surface files a Python call staged (its mesh, its vertex mask) as the files written
   * beside the outputs in their place, by role ({@code surface}, {@code mask}): gone once the
   * call returns, they are kept for the report and later reading, as a staged NIfTI mask is.
   * Empty for a command line or a run not on a surface.
   */
  public static Map<String, String> stagedSurfaceFiles(org.nlspark.core.engine.RunReport report) {
    Map<String, Object> call = CURRENT.get();
    Map<String, String> files = new java.util.LinkedHashMap<>();
    if (report.surface() == null || call == null
        || !(call.get("staged") instanceof Map<?, ?> staged)) {
      return files;
    }
    if (staged.containsKey(report.surface().meshName())) {
      files.put("surface", MESH_FILE);
    }
    if (report.summary().get("inputs") instanceof Map<?, ?> inputs
        && inputs.get("mask") instanceof String mask && staged.containsKey(mask)) {
      files.put("mask", VERTEX_MASK_FILE);
    }
    return files;
  }

  /**
   * {@code value} (summary.json's maps, lists and strings) with every staged file named by the
   * argument it came from ("design="), as the call's {@code staged} table says: the files are
   * gone when the call returns.
   */
  public static Object relabel(Object value) {
    Map<String, Object> call = CURRENT.get();
    if (call == null || !(call.get("staged") instanceof Map)) {
      return value;
    }
    Map<?, ?> staged = (Map<?, ?>) call.get("staged");
    java.util.List<String> paths = new java.util.ArrayList<>();
    for (Object k : staged.keySet()) {
      paths.add(String.valueOf(k));
    }
    paths.sort((a, b) -> b.length() - a.length()); // a list's items before the list's folder
    return relabel(value, staged, paths);
  }

  private static Object relabel(Object value, Map<?, ?> staged, java.util.List<String> paths) {
    if (value instanceof String) {
      String s = (String) value;
      for (String p : paths) {
        s = s.replace("file:" + p, String.valueOf(staged.get(p)))
            .replace(p, String.valueOf(staged.get(p)));
      }
      return s;
    }
    if (value instanceof Map) {
      Map<Object, Object> out = new java.util.LinkedHashMap<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) value).entrySet()) {
        out.put(e.getKey(), relabel(e.getValue(), staged, paths));
      }
      return out;
    }
    if (value instanceof java.util.List) {
      java.util.List<Object> out = new java.util.ArrayList<>();
      for (Object o : (java.util.List<?>) value) {
        out.add(relabel(o, staged, paths));
      }
      return out;
    }
    return value;
  }
}
