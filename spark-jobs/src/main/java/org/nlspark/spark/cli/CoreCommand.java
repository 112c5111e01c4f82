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
import org.nlspark.core.engine.RunReport;
import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.Main;
import org.nlspark.spark.io.HadoopFiles;

/**
 * What the isc, timeseries-correlation and ridge-bootstrap commands share: the common options of
 * DESIGN §6, writing outputs through Hadoop paths, and summary.json. They run through the
 * {@link org.nlspark.spark.Nlspark} API as Spark tasks, like every command.
 */
public abstract class CoreCommand {
  static final Set<String> COMMON_VALUED = Set.of("--seed", "--output", "--backend",
      "--precision", "--memory-budget-gb", "--master", "--partitions");
  static final Set<String> COMMON_SWITCHES = Set.of("--overwrite", "--quiet", "--verbose",
      "--help");

  protected final PrintStream out;
  protected Args args;
  private String[] raw;
  private Configuration conf;
  /** The session of this command, set before {@link #compute}. */
  protected SparkSession spark;

  CoreCommand(PrintStream out) {
    this.out = out;
  }

  abstract String name();

  abstract Set<String> valued();

  abstract Set<String> switches();

  /** Runs the command through the API on {@link #spark}; options are already checked. */
  abstract RunReport compute();

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
      HadoopFiles.OutputDir.checkTarget(conf, output, overwrite, args.get("--input"),
          args.get("--target"), args.get("--x-test"));
      RunReport report = compute();
      long writeStart = System.nanoTime();
      String written;
      try (HadoopFiles.OutputDir dir = HadoopFiles.OutputDir.open(conf, output, overwrite)) {
        for (Output o : report.result.outputs()) {
          dir.writeNpy(o);
        }
        Map<String, Object> summary = new LinkedHashMap<>(
            report.summary((System.nanoTime() - writeStart) / 1e9));
        summary.put("command_line", Main.commandLine(raw));
        List<String> files = new java.util.ArrayList<>();
        for (Output o : report.result.outputs()) {
          files.add(o.name() + ".npy");
        }
        files.add("summary.json");
        summary.put("files", files);
        dir.writeJson("summary.json", summary);
        written = dir.commit();
      }
      if (!args.flag("--quiet")) {
        out.printf(Locale.ROOT, "%s: %d voxels, %d replicates, %d tiles on %s in %.2f s; wrote %s%n",
            name(), report.result.voxels(), report.analysis.replicates(),
            report.plan.tileCount(), report.engineFacts.get("master"), report.wallSeconds(),
            written);
      }
      return 0;
    }
  }

  /** The common options as API options. */
  final NlsparkOptions apiOptions() {
    return NlsparkOptions.defaults().seed(seed()).backend(args.get("--backend", "cpu"))
        .memoryBudgetGb(args.doubleValue("--memory-budget-gb"))
        .partitions(args.intValue("--partitions"));
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
      Integer n = args.intValue("--partitions");
      if (n == null || n < 1) {
        throw new InvalidInputException("--partitions must be >= 1, but was: " + n);
      }
    }
    budget(); // an explicit --memory-budget-gb must be > 0 (DESIGN §3.5), checked before Spark
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
