package org.nlspark.spark.cli;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
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
import org.nlspark.spark.Main;
import org.nlspark.spark.io.HadoopFiles;

/**
 * What the isc, timeseries-correlation and ridge-bootstrap commands share: the common options of
 * DESIGN §6, reading inputs and writing outputs through Hadoop paths, and summary.json. By default
 * they compute on the driver's CPU threads (core's block scheduler; bit-identical for any thread
 * count); isc runs its voxel blocks as Spark tasks with --partitions or a non-local master.
 */
public abstract class CoreCommand {
  static final Set<String> COMMON_VALUED = Set.of("--seed", "--output", "--backend",
      "--precision", "--memory-budget-gb", "--master", "--partitions", "--threads");
  static final Set<String> COMMON_SWITCHES = Set.of("--overwrite", "--quiet", "--verbose",
      "--help");

  protected final PrintStream out;
  protected Args args;
  private String[] raw;
  private Configuration conf;
  private final Map<String, Object> inputs = new LinkedHashMap<>();
  /** The session of this command, set before {@link #compute}. */
  protected SparkSession spark;
  /** How the blocks ran, for summary.json; {@link #compute} may replace the default. */
  protected final Map<String, Object> engine = new LinkedHashMap<>();
  /** The grid and how the work was cut, for summary.json; filled by {@link #compute}. */
  protected final Map<String, Object> tilePlan = new LinkedHashMap<>();

  CoreCommand(PrintStream out) {
    this.out = out;
  }

  abstract String name();

  abstract Set<String> valued();

  abstract Set<String> switches();

  /** Reads the inputs (through {@link #read}) and computes; options are already checked. */
  abstract Result compute(Map<String, Object> parameters);

  /** Checks every option before Spark starts; throws exit-2 errors. */
  abstract void checkOptions();

  static Set<String> union(Set<String> a, String... more) {
    Set<String> s = new TreeSet<>(a);
    s.addAll(List.of(more));
    return s;
  }

  final int run(String[] argv) {
    raw = argv;
    args = Args.parse(name(), argv, 1, valued(), switches());
    backendAndPrecision();
    checkOptions();
    String output = args.require("--output");
    boolean overwrite = args.flag("--overwrite");
    try (Main.SessionHandle session = Main.SessionHandle.open(args.get("--master"),
        "nlspark " + name())) {
      spark = session.spark;
      conf = spark.sparkContext().hadoopConfiguration();
      engine.put("name", "local threads");
      engine.put("threads", threads());
      HadoopFiles.OutputDir.checkTarget(conf, output, overwrite, args.get("--input"),
          args.get("--target"), args.get("--x-test"));
      Map<String, Object> parameters = new LinkedHashMap<>();
      long t0 = System.nanoTime();
      Result result = compute(parameters);
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
      if (!args.flag("--quiet")) {
        Map<String, Object> facts = result.facts();
        Object replicates = facts.containsKey("replicates") ? facts.get("replicates")
            : facts.get("draws");
        String where = "spark".equals(engine.get("name"))
            ? "Spark " + engine.get("master") + ", " + engine.get("partitions") + " partitions"
            : engine.get("threads") + " driver threads";
        out.printf(Locale.ROOT, "%s: %d voxels, %s replicates in %.2f s on %s; wrote %s%n",
            name(), result.voxels(), replicates, wall, where, written);
      }
      return 0;
    }
  }

  final NpyArray read(String flag, int rank) {
    NpyArray a = HadoopFiles.readNpy(conf, args.require(flag), flag, rank);
    List<Long> shape = new java.util.ArrayList<>();
    for (long d : a.shape()) {
      shape.add(d);
    }
    inputs.put(flag.substring(2), shape);
    return a;
  }

  /** --threads, default all cores of the driver. */
  final int threads() {
    Integer t = args.intValue("--threads");
    int n = t == null ? Runtime.getRuntime().availableProcessors() : t;
    if (n < 1) {
      throw new InvalidInputException("--threads must be >= 1, but was: " + n);
    }
    return n;
  }

  final long seed() {
    Long s = args.longValue("--seed");
    return s == null ? 0L : s;
  }

  final long count(String flag, long fallback) {
    Long v = args.longValue(flag);
    long n = v == null ? fallback : v;
    if (n < 1) {
      throw new InvalidInputException(flag + " must be >= 1, but was: " + n);
    }
    return n;
  }

  final double confidence() {
    Double c = args.doubleValue("--confidence");
    double v = c == null ? 0.95 : c;
    if (!(v > 0 && v < 1)) {
      throw new InvalidInputException("--confidence must be in (0, 1), but was: " + v);
    }
    return v;
  }

  final boolean fwer() {
    if (args.flag("--fwer") && args.flag("--no-fwer")) {
      throw new InvalidInputException("--fwer and --no-fwer contradict each other; pass one");
    }
    return !args.flag("--no-fwer");
  }

  /** The budget batches are sized against: --memory-budget-gb, else measured and capped. */
  final MemoryBudget budget() {
    return MemoryBudget.resolve(args.doubleValue("--memory-budget-gb"), BackendKind.CPU,
        MemoryProbe.system(GpuProbes.system()), true);
  }

  /** These kernels run on CPU in float64; anything else is refused, not silently replaced. */
  private void backendAndPrecision() {
    String b = args.get("--backend", "cpu");
    if (!List.of("cpu", "gpu", "auto").contains(b)) {
      throw new InvalidInputException("--backend must be one of [cpu, gpu, auto], but was: " + b);
    }
    if (b.equals("gpu")) {
      throw new ResourceRefusedException("Cannot run " + name() + " on a GPU: a GPU was requested"
          + " explicitly (--backend gpu), but this command has CPU kernels only; use --backend cpu"
          + " or auto");
    }
    String p = args.get("--precision", "float64");
    if (!p.equals("float64")) {
      throw new InvalidInputException("--precision must be float64 for " + name()
          + ", but was: " + p);
    }
    if (args.has("--partitions")) {
      if (!usesPartitions()) {
        throw new InvalidInputException("Cannot use --partitions with " + name() + ": it runs on"
            + " the driver's threads (--threads N); leave --partitions out");
      }
      Integer n = args.intValue("--partitions");
      if (n == null || n < 1) {
        throw new InvalidInputException("--partitions must be >= 1, but was: " + n);
      }
    }
    budget(); // an explicit --memory-budget-gb must be > 0 (DESIGN §3.5), checked before Spark
  }

  /** Whether --partitions means something for this command (Spark tasks). */
  boolean usesPartitions() {
    return false;
  }

  private Map<String, Object> summary(Map<String, Object> parameters, Result result,
      double wall) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", name());
    m.put("parameters", parameters);
    m.put("seed", seed());
    Map<String, Object> backend = new LinkedHashMap<>();
    backend.put("requested", args.get("--backend", "cpu"));
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
    m.put("command_line", Main.commandLine(raw));
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

  /** The commands this class runs, in help order. */
  public static final List<String> COMMANDS = List.of("isc", "timeseries-correlation",
      "ridge-bootstrap");

  /** Runs one of {@link #COMMANDS}; failures propagate to Main, which maps them to exit codes. */
  public static int dispatch(String command, String[] argv, PrintStream out) {
    switch (command) {
      case "isc":
        return new IscCommand(out).run(argv);
      case "timeseries-correlation":
        return new TimeSeriesCorrelationCommand(out).run(argv);
      case "ridge-bootstrap":
        return new RidgeBootstrapCommand(out).run(argv);
      default:
        throw new IllegalArgumentException("[BUG] not a core command: " + command);
    }
  }
}
