package org.nlspark.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.Json;
import org.nlspark.spark.api.CommandDefaults;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The defaults are the same from every front end: a command line that names only the required
 * inputs runs with the settings of the Java API's {@link NlsparkOptions#defaults()}, every
 * setting of {@link CommandDefaults#table()} is an option of that command, and a default its
 * help states is the table's. (Python's keywords are checked against the same table in
 * python/tests/test_defaults.py.)
 */
class CommandDefaultsTest {
  /** The required inputs of each command, nothing else (no file is opened by validate). */
  private static List<String> required(String command) {
    List<String> args = new ArrayList<>(List.of(command, "--input", "x.npy", "--output", "out"));
    switch (command) {
      case "two-sample" -> args.addAll(List.of("--input2", "y.npy"));
      case "correlation", "timeseries-correlation", "ridge-bootstrap" ->
          args.addAll(List.of("--target", "t.npy"));
      case "glm" -> args.addAll(List.of("--design", "d.csv", "--contrasts", "c.csv"));
      default -> { }
    }
    return args;
  }

  private static AnalysisCommand parsed(List<String> args) {
    CommandLine.ParseResult p = Commands.commandLine().parseArgs(args.toArray(new String[0]));
    AnalysisCommand c = p.subcommand().commandSpec().commandLine().getCommand();
    c.validate();
    return c;
  }

  @Test
  void theCommandLineRunsWithTheJavaApisDefaults() {
    Map<String, Map<String, Object>> table = CommandDefaults.table();
    assertThat(table.keySet()).containsExactlyElementsOf(CommandDefaults.COMMANDS);
    for (String command : CommandDefaults.COMMANDS) {
      AnalysisCommand c = parsed(required(command));
      assertThat(CommandDefaults.resolved(command, c.settings())).as(command)
          .isEqualTo(table.get(command));
    }
  }

  @Test
  void everySettingIsAnOptionOfItsCommandAndItsHelpStatesTheSameDefault() {
    Pattern stated = Pattern.compile("\\(default ([^,;)]+)");
    CommandLine cl = Commands.commandLine();
    int checked = 0;
    for (Map.Entry<String, Map<String, Object>> e : CommandDefaults.table().entrySet()) {
      CommandLine.Model.CommandSpec spec = cl.getSubcommands().get(e.getKey()).getCommandSpec();
      for (Map.Entry<String, Object> setting : e.getValue().entrySet()) {
        OptionSpec option = spec.findOption("--" + setting.getKey());
        assertThat(option).as(e.getKey() + " --" + setting.getKey()).isNotNull();
        Matcher m = stated.matcher(String.join(" ", option.description()));
        if (m.find() && setting.getValue() != null) {
          assertThat(m.group(1).trim()).as(e.getKey() + " --" + setting.getKey())
              .isEqualTo(String.valueOf(setting.getValue()));
          checked++;
        }
      }
    }
    assertThat(checked).as("defaults stated in the help").isGreaterThanOrEqualTo(20);
  }

  @Test
  void aSettingChangedOnTheCommandLineIsChangedInTheResolvedSettings() {
    // the comparison above can fail: a changed option shows in the resolved settings
    List<String> args = new ArrayList<>(required("one-sample"));
    args.addAll(List.of("--permutations", "99", "--tail", "upper", "--no-fwer"));
    Map<String, Object> s = CommandDefaults.resolved("one-sample", parsed(args).settings());
    assertThat(s).containsEntry("permutations", 99L).containsEntry("tail", "upper")
        .containsEntry("fwer", false);
    assertThat(s).isNotEqualTo(CommandDefaults.table().get("one-sample"));
  }

  @Test
  void theTableIsJsonAndNamesTheUsualDefaults() {
    @SuppressWarnings("unchecked")
    Map<String, Map<String, Object>> t = (Map<String, Map<String, Object>>)
        Json.parse(CommandDefaults.json());
    assertThat(t.get("one-sample")).containsEntry("permutations", 5000L)
        .containsEntry("tail", "two").containsEntry("stat", "t").containsEntry("seed", 0L);
    assertThat(t.get("glm")).containsEntry("tail", "upper").containsEntry("errors", null);
    assertThat(t.get("bootstrap")).containsEntry("confidence", 0.95)
        .containsEntry("precision", null);
    assertThatThrownBy(() -> CommandDefaults.resolved("one-smaple", NlsparkOptions.defaults()))
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("one-sample");
  }
}
