package org.nlspark.spark.cli;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.spark.io.HadoopFiles;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * What the isc, timeseries-correlation and ridge-bootstrap commands share: the common options of
 * DESIGN §6, reading inputs and writing outputs through Hadoop paths, and summary.json. By default
 * they compute on the driver's CPU threads (core's block scheduler; bit-identical for any thread
 * count); isc runs its voxel blocks as Spark tasks with --partitions or a non-local master. Each
 * subclass computes in one method, {@link #execute}.
 */
abstract class CoreCommand extends NlsparkCommand {
  static final String CPU_ONLY = "Runs CPU kernels in float64: --backend gpu and --precision"
      + " float32 are refused.";

  @Mixin CommonOptions common;

  @Option(names = "--threads", paramLabel = "N", order = 90,
      description = "driver threads (default: all cores; results do not change)")
  Integer threads;

  private Configuration conf;
  private final Map<String, Object> inputs = new LinkedHashMap<>();
  /** How the blocks ran, for summary.json; {@link #execute} may replace the default. */
  protected final Map<String, Object> engine = new LinkedHashMap<>();
  /** The grid and how the work was cut, for summary.json; filled by {@link #execute}. */
  protected final Map<String, Object> tilePlan = new LinkedHashMap<>();

  /** Checks every option before Spark starts; throws exit-2 errors. */
  abstract void checkOptions();

  /**
   * Reads the inputs (through {@link #read}) and computes: the one place this command computes.
   * Options are already checked; {@code parameters} receives what summary.json reports.
   */
  abstract Result execute(SparkSession spark, Map<String, Object> parameters);

  /** The inputs named on the command line (for the check that --overwrite never replaces them). */
  abstract String[] inputPaths();

  /** --partitions of the commands that run Spark tasks; null when not given or not taken. */
  Integer partitions() {
    return null;
  }

  @Override
  public final void validate() {
    backendAndPrecision();
    checkOptions();
    common.output(name());
  }

  @Override
  protected final int run() {
    validate();
    String output = common.output(name());
    boolean overwrite = common.overwrite;
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark " + name())) {
      SparkSession spark = session.spark;
      conf = spark.sparkContext().hadoopConfiguration();
      engine.put("name", "local threads");
      engine.put("threads", threads());
      HadoopFiles.OutputDir.checkTarget(conf, output, overwrite, inputPaths());
      Map<String, Object> parameters = new LinkedHashMap<>();
      long t0 = System.nanoTime();
      Result result = execute(spark, parameters);
      double wall = (System.nanoTime() - t0) * 1e-9;
      Map<String, Object> summary = summary(parameters, result, wall);
      String written;
      try (HadoopFiles.OutputDir dir = HadoopFiles.OutputDir.open(conf, output, overwrite)) {
        for (Output o : result.outputs()) {
          dir.writeNpy(o);
        }
        dir.writeJson("summary.json", summary);
        written = dir.commit();
      }
      if (!common.quiet) {
        Map<String, Object> facts = result.facts();
        Object replicates = facts.containsKey("replicates") ? facts.get("replicates")
            : facts.get("draws");
        String where = "spark".equals(engine.get("name"))
            ? "Spark " + engine.get("master") + ", " + engine.get("partitions") + " partitions"
            : engine.get("threads") + " driver threads";
        out.printf(Locale.ROOT, "%s: %d voxels, %s replicates in %.2f s on %s; wrote %s%n",
            name(), result.voxels(), replicates, wall, where, Untrusted.escape(written));
      }
      return 0;
    }
  }

  final NpyArray read(String flag, String uri, int rank) {
    NpyArray a = HadoopFiles.readNpy(conf, uri, flag, rank);
    List<Long> shape = new java.util.ArrayList<>();
    for (long d : a.shape()) {
      shape.add(d);
    }
    inputs.put(flag.substring(2), shape);
    return a;
  }

  /** --threads, default all cores of the driver. */
  final int threads() {
    int n = threads == null ? Runtime.getRuntime().availableProcessors() : threads;
    if (n < 1) {
      throw new InvalidInputException("--threads must be >= 1, but was: " + n);
    }
    return n;
  }

  final long seed() {
    return common.seed();
  }

  static long count(String flag, Long value, long fallback) {
    long n = value == null ? fallback : value;
    if (n < 1) {
      throw new InvalidInputException(flag + " must be >= 1, but was: " + n);
    }
    return n;
  }

  static double confidence(Double value) {
    double v = value == null ? 0.95 : value;
    if (!(v > 0 && v < 1)) {
      throw new InvalidInputException("--confidence must be in (0, 1), but was: " + v);
    }
    return v;
  }

  /** The budget batches are sized against: --memory-budget-gb, else measured and capped. */
  final MemoryBudget budget() {
    return MemoryBudget.resolve(common.memoryBudgetGb, BackendKind.CPU,
        MemoryProbe.system(GpuProbes.system()), true);
  }

  /** These kernels run on CPU in float64; anything else is refused, not silently replaced. */
  private void backendAndPrecision() {
    if (common.backend().equals("gpu")) {
      throw new ResourceRefusedException("Cannot run " + name() + " on a GPU: a GPU was requested"
          + " explicitly (--backend gpu), but this command has CPU kernels only; use --backend cpu"
          + " or auto");
    }
    if (!common.precision().equals("float64")) {
      throw new InvalidInputException("--precision must be float64 for " + name()
          + ", but was: " + common.precision());
    }
    Integer n = partitions();
    if (n != null && n < 1) {
      throw new InvalidInputException("--partitions must be >= 1, but was: " + n);
    }
    budget(); // an explicit --memory-budget-gb must be > 0 (DESIGN §3.5), checked before Spark
  }

  private Map<String, Object> summary(Map<String, Object> parameters, Result result,
      double wall) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", name());
    m.put("parameters", parameters);
    m.put("seed", seed());
    Map<String, Object> backend = new LinkedHashMap<>();
    backend.put("requested", common.backend());
    backend.put("used", "cpu");
    backend.put("device", "cpu");
    backend.put("reason", "CPU kernels (driver threads)");
    m.put("backend", backend);
    m.put("blas", Blas.describe());
    m.put("precision", "float64");
    m.put("input", inputs);
    m.put("tile_plan", tilePlan);
    m.put("result", result.facts());
    Map<String, Object> timing = new LinkedHashMap<>();
    timing.put("wall_seconds", wall);
    m.put("timings", timing);
    m.put("engine", engine);
    m.put("command_line", Summaries.commandLine(argv));
    List<String> files = new java.util.ArrayList<>();
    for (Output o : result.outputs()) {
      files.add(o.name() + ".npy");
    }
    files.add("summary.json");
    m.put("files", files);
    Map<String, Object> versions = new LinkedHashMap<>();
    versions.put("nlspark", org.nlspark.core.engine.RunReport.VERSION);
    versions.put("java", System.getProperty("java.version"));
    m.put("versions", versions);
    return m;
  }
}
