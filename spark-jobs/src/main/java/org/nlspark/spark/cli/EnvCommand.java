package org.nlspark.spark.cli;

import java.util.Map;
import org.nlspark.core.engine.DeviceReport;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.io.Json;
import org.nlspark.core.memory.MemoryProbe;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code nlspark env}: device, BLAS and memory-budget report. */
@Command(sortOptions = false, name = "env",
    description = {"Prints whether a GPU is usable, the backend 'auto' picks, the BLAS in use"
        + " and the memory budgets."},
    customSynopsis = "nlspark env [--json] [--memory-budget-gb G]")
final class EnvCommand extends NlsparkCommand {
  @Option(names = "--json", order = 1, description = "one JSON object instead of a table")
  boolean json;

  @Option(names = "--memory-budget-gb", paramLabel = "G", order = 2,
      description = "report the budget as if this were given to a command")
  Double memoryBudgetGb;

  @Option(names = "--quiet", order = 3, description = "accepted for symmetry; prints the same")
  boolean quiet;

  @Option(names = "--verbose", order = 4, description = "stack traces on errors")
  boolean verbose;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = 5, description = "this help")
  boolean help;

  @Override
  public String name() {
    return "env";
  }

  @Override
  public void validate() {
    // nothing to check before collecting: the report itself refuses a bad --memory-budget-gb
  }

  @Override
  protected int run() {
    DeviceReport report = DeviceReport.collect(GpuProbes.system(),
        MemoryProbe.system(GpuProbes.system()), memoryBudgetGb);
    Map<String, Object> m = report.toMap();
    if (json) {
      out.println(Json.write(m));
    } else {
      for (Map.Entry<String, Object> e : m.entrySet()) {
        out.printf("%-24s %s%n", e.getKey(), e.getValue());
      }
    }
    return 0;
  }
}
