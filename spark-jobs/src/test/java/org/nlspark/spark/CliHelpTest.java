package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nlspark.spark.cli.Commands;
import org.nlspark.spark.cli.NlsparkCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.UnmatchedArgumentException;

/**
 * Every command's --help lists exactly the options it accepts: each listed option, given a
 * plausible value, parses and passes the command's checks; every option that another command
 * has and this help does not list is refused.
 */
class CliHelpTest {
  /** An option line of the generated help: "  -h, --help" or "      --samples=B   text". */
  private static final Pattern OPTION_LINE =
      Pattern.compile("(?m)^\\s+(?:-\\w, )?(--[a-z0-9-]+)(?:=(\\S+))?(?:\\s+(.*))?$");

  /** Options that only apply together with another (isc: --permutations needs a surrogate null). */
  private static final Map<String, List<String>> COMPANIONS = companions();

  /** Options that are refused alone (exit 2, with a pointer) and the flag they need. */
  private static Map<String, List<String>> companions() {
    Map<String, List<String>> m = new java.util.HashMap<>();
    m.put("isc --permutations", List.of("--null", "circle-shift"));
    m.put("glm --whole-blocks", List.of("--exchangeability-blocks", "blocks.csv"));
    for (String c : List.of("one-sample", "two-sample", "correlation", "glm")) {
      m.put(c + " --connectivity", List.of("--cluster-threshold", "3"));
      m.put(c + " --cluster-rule", List.of("--cluster-threshold", "3"));
      for (String tfce : List.of("--tfce-e", "--tfce-h", "--tfce-connectivity")) {
        m.put(c + " " + tfce, List.of("--tfce"));
      }
    }
    return m;
  }

  record Listed(String name, String label, boolean required) {}

  private static List<Listed> listedOptions(String command) {
    CliRun help = CliRun.of(command, "--help");
    assertThat(help.code()).as(command + " " + help.err()).isZero();
    assertThat(help.out()).as(command).startsWith("Usage: nlspark " + command);
    List<Listed> out = new ArrayList<>();
    Matcher m = OPTION_LINE.matcher(help.out());
    while (m.find()) {
      String text = m.group(3) == null ? "" : m.group(3);
      boolean required = text.startsWith("(required)")
          || text.startsWith("(required, but for demo)") && !command.equals("demo");
      out.add(new Listed(m.group(1), m.group(2), required));
    }
    return out;
  }

  /** A value a user would plausibly give for a parameter label. */
  private static String plausible(String label) {
    if (label == null) {
      return null;
    }
    if (label.contains("|")) {
      return label.substring(0, label.indexOf('|'));
    }
    if (label.endsWith(".npy")) {
      return "data/" + label;
    }
    switch (label) {
      case "DIR":
        return "results/out";
      case "URL":
        return "local[2]";
      case "C":
        return "0.9";
      case "G":
        return "1.5";
      case "A":
        return "0.5";
      default:
        return "10";
    }
  }

  private static void add(List<String> argv, String name, String label) {
    argv.add(name);
    String v = plausible(label);
    if (v != null) {
      argv.add(v);
    }
  }

  private static NlsparkCommand parse(List<String> argv) {
    CommandLine cl = Commands.commandLine();
    CommandLine.ParseResult parsed = cl.parseArgs(argv.toArray(String[]::new));
    return parsed.subcommand().commandSpec().commandLine().getCommand();
  }

  @Test
  void everyListedOptionIsAcceptedWithAPlausibleValue() {
    List<String> commands = Commands.names();
    assertThat(commands).containsExactly("bootstrap", "one-sample", "two-sample", "correlation",
        "isc", "timeseries-correlation", "ridge-bootstrap", "glm", "env", "demo", "report");
    int checked = 0;
    for (String command : commands) {
      List<Listed> listed = listedOptions(command);
      assertThat(listed).as(command).extracting(Listed::name).contains("--help");
      List<String> base = new ArrayList<>(List.of(command));
      for (Listed o : listed) {
        if (o.required()) {
          add(base, o.name(), o.label());
        }
      }
      assertThatCode(() -> parse(base).validate()).as(command + " with its required options")
          .doesNotThrowAnyException();
      for (Listed o : listed) {
        if (o.required() || o.name().equals("--help")) {
          continue;
        }
        List<String> argv = new ArrayList<>(base);
        add(argv, o.name(), o.label());
        argv.addAll(COMPANIONS.getOrDefault(command + " " + o.name(), List.of()));
        assertThatCode(() -> parse(argv).validate()).as(String.join(" ", argv))
            .doesNotThrowAnyException();
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(100);
  }

  @Test
  void helpListsEveryDeclaredOptionAndNoOther() {
    CommandLine cl = Commands.commandLine();
    Map<String, Set<String>> declared = new LinkedHashMap<>();
    for (String command : Commands.names()) {
      Set<String> names = new TreeSet<>();
      for (OptionSpec o : cl.getSubcommands().get(command).getCommandSpec().options()) {
        assertThat(o.hidden()).as(command + " " + o.longestName()).isFalse();
        names.add(o.longestName());
      }
      declared.put(command, names);
      Set<String> listed = new TreeSet<>();
      listedOptions(command).forEach(l -> listed.add(l.name()));
      assertThat(listed).as(command).isEqualTo(names);
    }
    // An option of any command that this command does not list is refused by name.
    Set<String> all = new LinkedHashSet<>();
    declared.values().forEach(all::addAll);
    for (String command : Commands.names()) {
      for (String option : all) {
        if (declared.get(command).contains(option)) {
          continue;
        }
        assertThatThrownBy(() -> Commands.commandLine().parseArgs(command, option, "1"))
            .as(command + " " + option).isInstanceOf(UnmatchedArgumentException.class);
        CliRun r = CliRun.of(command, option, "1");
        assertThat(r.code()).as(command + " " + option).isEqualTo(2);
        assertThat(r.err()).contains("Unknown option " + option + " for " + command);
      }
    }
  }

  @Test
  void everyAnalysisCommandRunsSparkTasksAndTakesPartitions() {
    CommandLine cl = Commands.commandLine();
    List<String> with = new ArrayList<>();
    for (String command : Commands.names()) {
      if (cl.getSubcommands().get(command).getCommandSpec().findOption("--partitions") != null) {
        with.add(command);
      }
    }
    assertThat(with).containsExactly("bootstrap", "one-sample", "two-sample", "correlation",
        "isc", "timeseries-correlation", "ridge-bootstrap", "glm", "demo");
  }
}
