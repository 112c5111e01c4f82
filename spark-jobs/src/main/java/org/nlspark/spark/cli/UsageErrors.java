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
      String guess = didYouMean(u.getSuggestions());
      if (top && !first.startsWith("-")) {
        return "Unknown command '" + first + "'; the commands are " + Commands.names() + guess
            + see;
      }
      if (first.startsWith("-")) {
        String name = first.contains("=") ? first.substring(0, first.indexOf('=')) : first;
        return "Unknown option " + name + (top ? "" : " for " + command) + guess + see;
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

  private static String didYouMean(List<String> suggestions) {
    if (suggestions == null || suggestions.isEmpty()) {
      return "";
    }
    List<String> few = suggestions.subList(0, Math.min(3, suggestions.size()));
    return "; did you mean " + String.join(" or ", few) + "?";
  }
}
