package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.MissingParameterException;
import picocli.CommandLine.OverwrittenOptionException;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.TypeConversionException;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * picocli's parse errors as nlspark's usage errors (exit 2): one sentence naming the flag and the
 * value, a "did you mean" where picocli finds a close name, and where to read the options.
 */
public final class UsageErrors {
  private UsageErrors() {}

  public static InvalidInputException of(ParameterException e) {
    return new InvalidInputException(message(e), e);
  }

  static String message(ParameterException e) {
    CommandLine where = e.getCommandLine();
    boolean top = where == null || where.getParent() == null;
    String command = top ? null : where.getCommandName();
    String see = top ? " (see nlspark --help)" : " (see nlspark " + command + " --help)";
    if (e instanceof UnmatchedArgumentException) {
      UnmatchedArgumentException u = (UnmatchedArgumentException) e;
      List<String> unmatched = u.getUnmatched();
      String first = unmatched.isEmpty() ? "" : unmatched.get(0);
      String typed = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
      String guess = didYouMean(typed, candidates(where, first.startsWith("-")));
      if (top && !first.startsWith("-")) {
        return "Unknown command '" + first + "'; the commands are " + Commands.names() + guess
            + see;
      }
      if (first.startsWith("-")) {
        return "Unknown option " + typed + (top ? "" : " for " + command) + guess + see;
      }
      return "Cannot parse '" + first + "'" + (top ? "" : " for " + command)
          + ": every option is a --flag" + see;
    }
    if (e instanceof MissingParameterException) {
      List<String> names = new ArrayList<>();
      for (ArgSpec a : ((MissingParameterException) e).getMissing()) {
        names.add(a.isOption() ? ((OptionSpec) a).longestName() : a.paramLabel());
      }
      if (String.valueOf(e.getMessage()).startsWith("Missing required option")) {
        return "Cannot run " + command + ": " + String.join(" and ", names)
            + (names.size() == 1 ? " is" : " are") + " required";
      }
      return String.join(", ", names) + " needs a value" + see;
    }
    if (e instanceof OverwrittenOptionException) {
      ArgSpec a = ((OverwrittenOptionException) e).getOverwritten();
      String name = a.isOption() ? ((OptionSpec) a).longestName() : a.paramLabel();
      return name + " was given twice; give it once";
    }
    if (e.getCause() instanceof TypeConversionException && e.getArgSpec() != null
        && e.getArgSpec().isOption()) {
      return ((OptionSpec) e.getArgSpec()).longestName() + " " + e.getCause().getMessage()
          + ", but was: " + e.getValue();
    }
    return e.getMessage() + see;
  }

  /** The option names (or command names) that {@code where} accepts. */
  private static List<String> candidates(CommandLine where, boolean options) {
    List<String> names = new ArrayList<>();
    if (where == null) {
      return names;
    }
    if (options) {
      for (OptionSpec o : where.getCommandSpec().options()) {
        names.addAll(List.of(o.names()));
      }
    } else {
      names.addAll(where.getSubcommands().keySet());
    }
    return names;
  }

  /**
   * The names within a few edits of what was typed, closest first. picocli's own suggestions
   * rank by shared letter pairs, which also proposes unrelated names ("permute" gave
   * "timeseries-correlation"); a typo is a few insertions, deletions or swaps.
   */
  static String didYouMean(String typed, List<String> names) {
    int limit = Math.max(2, typed.replaceFirst("^-+", "").length() / 4);
    List<String> close = new ArrayList<>();
    int best = Integer.MAX_VALUE;
    for (String n : names) {
      int d = editDistance(typed, n);
      if (d > limit || d == 0) {
        continue;
      }
      if (d < best) {
        close.clear();
        best = d;
      }
      if (d == best) {
        close.add(n);
      }
    }
    return close.isEmpty() ? "" : "; did you mean " + String.join(" or ", close) + "?";
  }

  /** Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps. */
  static int editDistance(String a, String b) {
    int[][] d = new int[a.length() + 1][b.length() + 1];
    for (int i = 0; i <= a.length(); i++) {
      d[i][0] = i;
    }
    for (int j = 0; j <= b.length(); j++) {
      d[0][j] = j;
    }
    for (int i = 1; i <= a.length(); i++) {
      for (int j = 1; j <= b.length(); j++) {
        int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
        d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
        if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2)
            && a.charAt(i - 2) == b.charAt(j - 1)) {
          d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
        }
      }
    }
    return d[a.length()][b.length()];
  }
}
