package org.nlspark.spark.io;

import java.util.ArrayList;
import java.util.List;

/** The names nlspark uses inside an output directory. */
final class OutputDirNames {
  private OutputDirNames() {}

  /** Every file of nlspark's own bookkeeping starts with this; nothing else is. */
  static final String OWN_PREFIX = ".nlspark-";
  /** A file being written: {@code .nlspark-tmp-RUN-N}. */
  static final String TEMP_PREFIX = ".nlspark-tmp-";
  /** An old result moved aside while new ones are put in place. */
  static final String OLD_PREFIX = ".nlspark-old-";

  /** Outputs of DESIGN §6 (and the core commands), for a summary.json without a list. */
  static final List<String> KNOWN_OUTPUTS = List.of("observed.npy", "mean.npy", "std.npy",
      "ci_lower.npy", "ci_upper.npy", "z.npy", "p.npy", "samples.npy", "p_fwer.npy",
      "null_max.npy", "isc.npy", "summary.json");

  /** What an earlier run may have written: the known outputs, also in the demo's layout. */
  static List<String> fallbackOutputs() {
    List<String> all = new ArrayList<>(KNOWN_OUTPUTS);
    for (String sub : List.of("bootstrap/", "one-sample/")) {
      for (String name : KNOWN_OUTPUTS) {
        all.add(sub + name);
      }
    }
    all.add("data/X.npy");
    return all;
  }

  /**
   * A relative name that stays inside the directory: no absolute path, no {@code ..} or
   * {@code .} component, no empty component, no control character. Names read back from a
   * summary.json or journal are checked with this before anything is deleted.
   */
  static boolean isSafeRelative(String name) {
    if (name == null || name.isEmpty() || name.startsWith("/") || name.contains("\\")) {
      return false;
    }
    for (int i = 0; i < name.length(); i++) {
      if (name.charAt(i) < 0x20 || name.charAt(i) == 0x7f) {
        return false;
      }
    }
    for (String part : name.split("/", -1)) {
      if (part.isEmpty() || part.equals(".") || part.equals("..") || part.contains(":")) {
        return false;
      }
    }
    return true;
  }
}
