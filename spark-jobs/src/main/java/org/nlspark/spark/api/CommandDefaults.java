package org.nlspark.spark.api;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.glm.GlmRun;
import org.nlspark.core.io.Json;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;

/**
 * Every command's settings as a run resolves them, named as the command line names its options
 * (without the dashes; Python's keywords are the same names with '_'). The defaults are not
 * written here: {@link #table()} is what the run makes of {@link NlsparkOptions#defaults()},
 * through the same conversions a run uses ({@link NlsparkOptions#toSpec}, {@code toGlmOptions},
 * {@code toIscOptions}, ...), so the command line, the Java API and the Python package can be
 * checked against one table. A null value is left to the run (the memory budget, the partitions,
 * a GPU run's precision, glm's errors), or does not apply (isc's permutations under the
 * bootstrap null).
 */
public final class CommandDefaults {
  /** The analysis commands, in the order of the command line's help. */
  public static final List<String> COMMANDS = List.of("bootstrap", "one-sample", "two-sample",
      "correlation", "glm", "isc", "timeseries-correlation", "ridge-bootstrap");

  private CommandDefaults() {}

  /** Every command's settings under {@link NlsparkOptions#defaults()}. */
  public static Map<String, Map<String, Object>> table() {
    Map<String, Map<String, Object>> table = new LinkedHashMap<>();
    for (String command : COMMANDS) {
      table.put(command, resolved(command, NlsparkOptions.defaults()));
    }
    return table;
  }

  /** {@link #table()} as JSON (what {@code nlspark defaults} prints, and Python reads). */
  public static String json() {
    return Json.write(table());
  }

  /** The settings a run of {@code command} takes from {@code o}. */
  public static Map<String, Object> resolved(String command, NlsparkOptions o) {
    Map<String, Object> m = new LinkedHashMap<>();
    switch (command) {
      case "bootstrap" -> {
        JobSpec s = o.toSpec(Analysis.BOOTSTRAP);
        m.put("stat", s.statistic());
        m.put("samples", s.replicates());
        m.put("confidence", s.confidence());
        m.put("ci", s.ci().label());
        m.put("save-samples", s.saveSamples());
        spec(m, s);
      }
      case "one-sample", "two-sample", "correlation" -> {
        JobSpec s = o.toSpec(analysis(command));
        m.put(command.equals("correlation") ? "method" : "stat", s.statistic());
        m.put("permutations", s.replicates());
        m.put("tail", s.tail().cliName());
        m.put("fwer", s.fwer());
        wholeMaps(m, o);
        spec(m, s);
      }
      case "glm" -> {
        GlmRun.Options g = o.toGlmOptions(null, null);
        m.put("errors", g.errors() == null ? null : lower(g.errors().name()));
        m.put("whole-blocks", g.wholeBlocks());
        m.put("permutations", g.permutations());
        m.put("tail", g.tTail().cliName());
        m.put("fwer", g.fwer());
        m.put("fwer-across-contrasts", g.fwerAcrossContrasts());
        wholeMaps(m, o);
        m.put("variance-smoothing", o.varianceSmoothing());
        m.put("seed", g.seed());
        m.put("backend", backend(o));
        m.put("precision", lower(g.precision().name()));
      }
      case "isc" -> {
        Isc.Options i = o.toIscOptions();
        boolean bootstrap = i.nullMethod() == IscNull.BOOTSTRAP;
        m.put("summary", i.summary().cliName());
        m.put("metric", i.metric().cliName());
        m.put("null", i.nullMethod().cliName());
        m.put("samples", bootstrap ? i.samples() : null);
        m.put("permutations", bootstrap ? null : i.samples());
        m.put("confidence", i.confidence());
        m.put("tail", i.tail().cliName());
        m.put("fwer", i.fwer());
        m.put("save-samples", i.saveSamples());
        m.put("seed", i.seed());
        m.put("backend", backend(o));
      }
      case "timeseries-correlation" -> {
        TimeSeriesCorrelation.Options t = o.toTimeSeriesOptions();
        m.put("null", t.method().cliName());
        m.put("permutations", t.permutations());
        m.put("tail", t.tail().cliName());
        m.put("fwer", t.fwer());
        m.put("seed", t.seed());
        m.put("backend", backend(o));
      }
      case "ridge-bootstrap" -> {
        RidgeBootstrap.Options r = o.toRidgeOptions();
        m.put("alpha", r.alpha());
        m.put("samples", r.samples());
        m.put("confidence", r.confidence());
        m.put("save-samples", r.saveSamples());
        m.put("seed", r.seed());
        m.put("backend", backend(o));
      }
      default -> throw new InvalidInputException("Unknown command '" + command
          + "'; the analysis commands are " + String.join(", ", COMMANDS));
    }
    m.put("memory-budget-gb", o.memoryBudgetGb());
    m.put("partitions", o.partitions());
    return m;
  }

  /** TFCE and cluster extent, which only whole-map commands take. */
  private static void wholeMaps(Map<String, Object> m, NlsparkOptions o) {
    m.put("tfce", o.tfce());
    m.put("cluster-threshold", o.clusterThreshold());
    m.put("cluster-mass", o.clusterMass());
    m.put("connectivity", o.wholeMapSettings().clusterConnectivity());
    m.put("cluster-rule", o.clusterRule().name().toLowerCase(java.util.Locale.ROOT));
  }

  /** What every tile command's spec holds; precision null when left to the backend. */
  private static void spec(Map<String, Object> m, JobSpec s) {
    m.put("seed", s.seed());
    m.put("backend", s.backend());
    m.put("precision", s.precisionExplicit() ? lower(s.precision().name()) : null);
  }

  private static Analysis analysis(String command) {
    for (Analysis a : Analysis.values()) {
      if (a.command().equals(command)) {
        return a;
      }
    }
    throw new IllegalArgumentException("[BUG] no analysis is named " + command);
  }

  /** The backend as a spec resolves it (the default is JobSpec's), for the commands without one. */
  private static String backend(NlsparkOptions o) {
    return o.toSpec(Analysis.ONE_SAMPLE).backend();
  }

  private static String lower(String name) {
    return name.toLowerCase(Locale.ROOT);
  }
}
