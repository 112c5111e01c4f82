package org.nlspark.spark.cli;

import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.Precision;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Option;

/** The options every computing command takes (DESIGN §6), declared once. */
public final class CommonOptions {
  @Option(names = "--output", paramLabel = "DIR", order = 100,
      description = "(required, but for demo) output directory (Hadoop URI); refused if it"
          + " exists and is not empty, unless --overwrite")
  String output;

  @Option(names = "--seed", paramLabel = "S", order = 101,
      description = "random seed (default 0); same seed, same bits")
  Long seed;

  @Option(names = "--backend", paramLabel = "cpu|gpu|auto", order = 102,
      description = "compute backend (default cpu)")
  String backend;

  @Option(names = "--precision", paramLabel = "float64|float32", order = 103,
      description = "GEMM precision (default float64)")
  String precision;

  @Option(names = "--memory-budget-gb", paramLabel = "G", order = 104,
      description = "memory budget in GB per executor for tiles and the preflight (default:"
          + " measured from the Spark executor memory)")
  Double memoryBudgetGb;

  @Option(names = "--master", paramLabel = "URL", order = 105,
      description = "Spark master: local[N], spark://HOST:PORT, yarn (needs HADOOP_CONF_DIR),"
          + " k8s://URL (default local[*], or spark-submit's)")
  String master;

  @Option(names = "--overwrite", order = 106,
      description = "replace the results of an earlier run in DIR")
  boolean overwrite;

  @Option(names = "--quiet", order = 107, description = "no progress line and no result line")
  boolean quiet;

  @Option(names = "--verbose", order = 108, description = "stack traces on errors")
  boolean verbose;

  @Option(names = {"-h", "--help"}, usageHelp = true, order = 109, description = "this help")
  boolean help;

  public String output(String command) {
    if (output == null || output.isEmpty()) {
      throw new InvalidInputException("Cannot run " + command + ": --output is required");
    }
    return output;
  }

  public long seed() {
    return seed == null ? 0L : seed;
  }

  public String backend() {
    String b = backend == null ? "cpu" : backend;
    if (!List.of("cpu", "gpu", "auto").contains(b)) {
      throw new InvalidInputException("--backend must be one of [cpu, gpu, auto], but was: " + b);
    }
    return b;
  }

  public String precision() {
    return precision == null ? "float64" : precision;
  }

  /** The settings shared by the tile commands, on a builder of API options. */
  NlsparkOptions.Builder optionsBuilder() {
    NlsparkOptions.Builder o = NlsparkOptions.builder();
    if (seed != null) {
      o.seed(seed);
    }
    if (precision != null) {
      o.precision(Precision.parse(precision));
    }
    if (backend != null) {
      o.backend(backend());
    }
    o.memoryBudgetGb(memoryBudgetGb);
    return o;
  }
}
