package org.nlspark.core.glm;

/**
 * A design matrix as read from its file: {@code values[sample][column]}, column names (from the
 * header, or C1..Ck for VEST files) and where it came from, for messages.
 */
public record GlmDesign(double[][] values, String[] names, String source) {
  public int rows() {
    return values.length;
  }

  public int columns() {
    return values.length == 0 ? names.length : values[0].length;
  }
}
