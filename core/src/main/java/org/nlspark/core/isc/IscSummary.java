package org.nlspark.core.isc;

import java.util.Locale;
import org.nlspark.core.InvalidInputException;

/** Which correlations an ISC summarises: all subject pairs, or each subject with the others' mean. */
public enum IscSummary {
  PAIRWISE,
  LEAVE_ONE_OUT;

  public static IscSummary parse(String s) {
    if (s != null) {
      switch (s.trim().toLowerCase(Locale.ROOT).replace('_', '-')) {
        case "pairwise":
          return PAIRWISE;
        case "leave-one-out":
          return LEAVE_ONE_OUT;
        default:
          break;
      }
    }
    throw new InvalidInputException("--summary must be one of pairwise, leave-one-out, but was: "
        + (s == null ? "null" : "'" + s + "'"));
  }

  public String cliName() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
