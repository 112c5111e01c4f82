package org.nlspark.core.glm;

/**
 * t contrasts (rows of length k, one per t-test), their names, and F contrasts as sets of
 * 0-based t-contrast indices; the sources name the files for messages.
 */
public record GlmContrasts(double[][] t, String[] tNames, int[][] f, String source,
    String fSource) {
  public GlmContrasts {
    f = f == null ? new int[0][] : f;
  }

  public static GlmContrasts of(double[][] t, int[][] f) {
    String[] names = new String[t.length];
    for (int i = 0; i < t.length; i++) {
      names[i] = "C" + (i + 1);
    }
    return new GlmContrasts(t, names, f, "contrasts", "f-contrasts");
  }
}
