package org.nlspark.spark.cli;

/**
 * Text that came from outside (file names, header strings from files, arguments) made safe for a
 * terminal: control characters, terminal escapes and bidirectional overrides are shown as
 * {@code \xNN} / {@code \}{@code uNNNN} instead of acting on the terminal or forging lines.
 */
public final class Untrusted {
  private Untrusted() {}

  public static String escape(String s) {
    if (s == null) {
      return null;
    }
    StringBuilder b = null;
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      String replacement = replacement(c);
      if (replacement != null && b == null) {
        b = new StringBuilder(s.length() + 16).append(s, 0, i);
      }
      if (b != null) {
        b.append(replacement != null ? replacement : String.valueOf(c));
      }
    }
    return b == null ? s : b.toString();
  }

  private static String replacement(char c) {
    switch (c) {
      case '\n':
        return "\\n";
      case '\r':
        return "\\r";
      case '\t':
        return "\\t";
      default:
        break;
    }
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) {
      return String.format("\\x%02x", (int) c);
    }
    // Bidirectional overrides and isolates reorder what the reader sees.
    if ((c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e
        || c == 0x200f || c == 0x061c || c == 0xfeff) {
      return String.format("\\u%04x", (int) c);
    }
    return null;
  }
}
