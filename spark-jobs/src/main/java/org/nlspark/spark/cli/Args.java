package org.nlspark.spark.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.nlspark.core.InvalidInputException;

/**
 * Parsed flags of one command: {@code --name value}, {@code --name=value} and bare switches.
 * Unknown flags, a missing value and non-numeric numbers are bad usage (exit 2) with a message
 * naming the flag.
 */
public final class Args {
  private final String command;
  private final Map<String, String> values = new LinkedHashMap<>();

  private Args(String command) {
    this.command = command;
  }

  /**
   * @param valued flags that take a value
   * @param switches flags without a value
   */
  public static Args parse(String command, String[] args, int from, Set<String> valued,
      Set<String> switches) {
    Args a = new Args(command);
    for (int i = from; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new InvalidInputException("Cannot parse '" + arg + "' for " + command
            + ": every option is a --flag (see nlspark " + command + " --help)");
      }
      String name = arg;
      String value = null;
      int eq = arg.indexOf('=');
      if (eq > 0) {
        name = arg.substring(0, eq);
        value = arg.substring(eq + 1);
      }
      if (switches.contains(name)) {
        if (value != null) {
          throw new InvalidInputException(name + " takes no value, but was given: " + value);
        }
        a.values.put(name, "true");
      } else if (valued.contains(name)) {
        if (value == null) {
          if (i + 1 >= args.length || (args[i + 1].startsWith("--") && !isNumber(args[i + 1]))) {
            throw new InvalidInputException(name + " needs a value (see nlspark " + command
                + " --help)");
          }
          value = args[++i];
        }
        if (a.values.containsKey(name)) {
          throw new InvalidInputException(name + " was given twice (" + a.values.get(name)
              + " and " + value + "); give it once");
        }
        a.values.put(name, value);
      } else {
        throw new InvalidInputException("Unknown option " + name + " for " + command
            + " (see nlspark " + command + " --help)");
      }
    }
    return a;
  }

  private static boolean isNumber(String s) {
    try {
      Double.parseDouble(s);
      return true;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  public String command() {
    return command;
  }

  public boolean has(String flag) {
    return values.containsKey(flag);
  }

  public String get(String flag) {
    return values.get(flag);
  }

  public String get(String flag, String fallback) {
    return values.getOrDefault(flag, fallback);
  }

  public String require(String flag) {
    String v = values.get(flag);
    if (v == null || v.isEmpty()) {
      throw new InvalidInputException("Cannot run " + command + ": " + flag + " is required");
    }
    return v;
  }

  public boolean flag(String name) {
    return values.containsKey(name);
  }

  public Long longValue(String flag) {
    String v = values.get(flag);
    if (v == null) {
      return null;
    }
    try {
      return Long.parseLong(v.trim().replace("_", ""));
    } catch (NumberFormatException e) {
      throw new InvalidInputException(flag + " must be a whole number, but was: " + v);
    }
  }

  public Integer intValue(String flag) {
    Long v = longValue(flag);
    if (v == null) {
      return null;
    }
    if (v > Integer.MAX_VALUE || v < Integer.MIN_VALUE) {
      throw new InvalidInputException(flag + " must be at most " + Integer.MAX_VALUE
          + ", but was: " + v);
    }
    return v.intValue();
  }

  public Double doubleValue(String flag) {
    String v = values.get(flag);
    if (v == null) {
      return null;
    }
    try {
      double d = Double.parseDouble(v.trim());
      if (!Double.isFinite(d)) {
        throw new NumberFormatException();
      }
      return d;
    } catch (NumberFormatException e) {
      throw new InvalidInputException(flag + " must be a finite number, but was: " + v);
    }
  }
}
