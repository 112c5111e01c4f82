package org.nlspark.spark.output;

/** The names nlspark uses inside an output directory. */
final class OutputDirNames {
  private OutputDirNames() {}

  /** Every file of nlspark's own bookkeeping starts with this; nothing else is. */
  static final String OWN_PREFIX = ".nlspark-";
  /** A file being written: {@code .nlspark-tmp-RUN-N}. */
  static final String TEMP_PREFIX = ".nlspark-tmp-";
  /** An old result moved aside while new ones are put in place. */
  static final String OLD_PREFIX = ".nlspark-old-";

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
