package org.nlspark.core.io;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The mark by which nlspark knows a {@code summary.json} as its own (DESIGN §6): the first key,
 * {@code "nlspark_output_format": 1}. Only a directory whose summary carries it is treated as
 * an earlier nlspark run: {@code --overwrite} replaces the files such a summary lists (and the
 * report.html beside it), and {@code nlspark report} writes only there. A summary.json without
 * the mark (another tool's, or one written before the mark existed: nothing in those can be
 * told from a hand-written file) belongs to the user, and nothing it lists is replaced.
 *
 * <p>Versions: any positive integer is recognised as nlspark's; it is raised when the layout of
 * an output directory changes in a way an older reader would misread.
 */
public final class OutputFormat {
  /** The key, first in every summary.json nlspark writes. */
  public static final String KEY = "nlspark_output_format";
  /** What it holds for this layout. */
  public static final long CURRENT = 1;

  private OutputFormat() {}

  /** Whether a parsed summary.json carries nlspark's mark (any version). */
  public static boolean isNlsparks(Object parsedSummary) {
    if (!(parsedSummary instanceof Map)) {
      return false;
    }
    Object v = ((Map<?, ?>) parsedSummary).get(KEY);
    return v instanceof Long && (Long) v >= 1;
  }

  /** {@code summary} with the mark as its first key (an existing mark is replaced). */
  public static Map<String, Object> marked(Map<String, Object> summary) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(KEY, CURRENT);
    for (Map.Entry<String, Object> e : summary.entrySet()) {
      if (!e.getKey().equals(KEY)) {
        m.put(e.getKey(), e.getValue());
      }
    }
    return m;
  }
}
