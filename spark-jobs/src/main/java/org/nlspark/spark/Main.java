package org.nlspark.spark;

import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.engine.DeviceReport;
import org.nlspark.core.backend.GpuProbes;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.Json;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.CiMethod;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Precision;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.result.Output;
import org.nlspark.core.job.Tail;
import org.nlspark.spark.cli.Args;
import org.nlspark.spark.cli.CoreCommand;
import org.nlspark.spark.cli.Demo;
import org.nlspark.spark.cli.Help;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopFiles;

/**
 * The command line of DESIGN §6, a thin layer over {@link Nlspark}. {@link #run} returns the exit
 * code: 0 done, 2 bad usage or input, 3 resources refused, 1 internal error. A failure prints one
 * or two sentences on stderr (the stack trace only with {@code --verbose}) and leaves no output
 * directory behind.
 */
public final class Main {
  /** Set to 1 by bin/nlspark when stderr is a terminal: enables the progress line. */
  public static final String STDERR_TTY_ENV = "NLSPARK_STDERR_TTY";

  static final Set<String> COMMON_VALUED = Set.of("--seed", "--output", "--backend",
      "--precision", "--memory-budget-gb", "--master", "--partitions");
  static final Set<String> COMMON_SWITCHES = Set.of("--overwrite", "--quiet", "--verbose",
      "--help");

  private final PrintStream out;
  private final PrintStream err;

  Main(PrintStream out, PrintStream err) {
    this.out = out;
    this.err = err;
  }

  /** Held so the configured java.util.logging levels are not garbage-collected away. */
  private static final java.util.logging.Logger[] QUIET_LOGGERS = {
    java.util.logging.Logger.getLogger("org.nlspark"),
    java.util.logging.Logger.getLogger("dev.ludovic.netlib"),
  };

  public static void main(String[] args) {
    if (System.getProperty("log4j2.configurationFile") == null) {
      System.setProperty("log4j2.configurationFile", "nlspark-log4j2.properties");
    }
    // The command line speaks through its own output: the libraries' java.util.logging notes
    // (which BLAS loaded, why no GPU) go to summary.json and `env`, not to stderr.
    if (!java.util.List.of(args).contains("--verbose")) {
      QUIET_LOGGERS[0].setLevel(java.util.logging.Level.WARNING);
      QUIET_LOGGERS[1].setLevel(java.util.logging.Level.SEVERE);
    }
    System.exit(run(args));
  }

  public static int run(String[] args) {
    return run(args, System.out, System.err);
  }

  public static int run(String[] args, PrintStream out, PrintStream err) {
    return new Main(out, err).execute(args);
  }

  private int execute(String[] args) {
    boolean verbose = List.of(args).contains("--verbose");
    String command = args.length == 0 ? null : args[0];
    try {
      if (command == null) {
        err.println("nlspark: a command is required.");
        err.print(Help.tool());
        return 2;
      }
      if (command.equals("--help") || command.equals("-h") || command.equals("help")) {
        out.print(Help.tool());
        return 0;
      }
      if (List.of(args).contains("--help")) {
        String text = Help.command(command);
        if (text == null) {
          throw new InvalidInputException("Unknown command '" + command + "'; the commands are "
              + Help.COMMANDS);
        }
        out.print(text);
        return 0;
      }
      switch (command) {
        case "bootstrap":
        case "one-sample":
        case "two-sample":
        case "correlation":
          return compute(command, args);
        case "isc":
        case "timeseries-correlation":
        case "ridge-bootstrap":
          return CoreCommand.dispatch(command, args, out);
        case "env":
          return env(args);
        case "demo":
          return demo(args);
        default:
          throw new InvalidInputException("Unknown command '" + command + "'; the commands are "
              + Help.COMMANDS + " (see nlspark --help)");
      }
    } catch (Throwable t) {
      return fail(command, t, verbose);
    }
  }

  private int fail(String command, Throwable thrown, boolean verbose) {
    Throwable t = thrown instanceof RuntimeException
        ? SparkEngine.unwrap((RuntimeException) thrown) : thrown;
    String who = command == null ? "nlspark" : "nlspark " + command;
    int code;
    if (t instanceof InvalidInputException) {
      code = 2;
      err.println(who + ": " + t.getMessage());
    } else if (t instanceof ResourceRefusedException) {
      code = 3;
      err.println(who + ": " + t.getMessage());
    } else {
      code = 1;
      err.println(who + " failed with an internal error: " + t + ".");
      if (!verbose) {
        err.println("Run again with --verbose for the stack trace, and report it.");
      }
    }
    if (verbose) {
      thrown.printStackTrace(err);
    }
    return code;
  }

  private static Set<String> union(Set<String> a, String... more) {
    Set<String> s = new TreeSet<>(a);
    s.addAll(List.of(more));
    return s;
  }

  private int compute(String command, String[] args) {
    Analysis analysis;
    Set<String> valued;
    Set<String> switches = COMMON_SWITCHES;
    switch (command) {
      case "bootstrap":
        analysis = Analysis.BOOTSTRAP;
        valued = union(COMMON_VALUED, "--input", "--stat", "--samples", "--confidence", "--ci");
        switches = union(COMMON_SWITCHES, "--save-samples");
        break;
      case "one-sample":
        analysis = Analysis.ONE_SAMPLE;
        valued = union(COMMON_VALUED, "--input", "--stat", "--permutations", "--tail");
        break;
      case "two-sample":
        analysis = Analysis.TWO_SAMPLE;
        valued = union(COMMON_VALUED, "--input", "--input2", "--stat", "--permutations",
            "--tail");
        break;
      default:
        analysis = Analysis.CORRELATION;
        valued = union(COMMON_VALUED, "--input", "--target", "--method", "--permutations",
            "--tail");
        break;
    }
    if (analysis.isPermutation()) {
      switches = union(switches, "--fwer", "--no-fwer");
    }
    Args a = Args.parse(command, args, 1, valued, switches);
    NlsparkOptions options = options(a, analysis);
    options.toSpec(analysis); // every setting checked before Spark starts
    String input = a.require("--input");
    String input2 = analysis == Analysis.TWO_SAMPLE ? a.require("--input2") : null;
    String target = analysis == Analysis.CORRELATION ? a.require("--target") : null;
    String output = a.require("--output");
    boolean overwrite = a.flag("--overwrite");
    boolean quiet = a.flag("--quiet");

    SessionHandle session = SessionHandle.open(a.get("--master"), "nlspark " + command);
    try {
      SparkSession spark = session.spark;
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      HadoopFiles.OutputDir.checkTarget(conf, output, overwrite, input, input2, target);
      DataMatrix x = HadoopFiles.readMatrix(conf, input, "--input");
      JobInputs inputs;
      if (analysis == Analysis.TWO_SAMPLE) {
        inputs = JobInputs.twoGroups(x, HadoopFiles.readMatrix(conf, input2, "--input2"));
      } else if (analysis == Analysis.CORRELATION) {
        inputs = JobInputs.withTarget(x, HadoopFiles.readVector(conf, target, "--target"));
      } else {
        inputs = JobInputs.of(x);
      }
      RunReport report = Nlspark.run(spark, analysis, inputs, options, progressWanted(quiet));
      Map<String, Object> summary = summary(report, command, args);
      String written = Nlspark.write(conf, report, summary, output, overwrite);
      if (!quiet) {
        out.println(describe(report, written));
      }
      return 0;
    } finally {
      session.close();
    }
  }

  /** summary.json: core's summary plus the command line that produced it. */
  public static Map<String, Object> summary(RunReport report, String command, String[] args) {
    Map<String, Object> m = new LinkedHashMap<>(report.summary());
    m.put("command_line", commandLine(args));
    List<String> files = new java.util.ArrayList<>();
    for (Output o : report.result.outputs()) {
      files.add(o.name() + ".npy");
    }
    files.add("summary.json");
    m.put("files", files);
    return m;
  }

  static String describe(RunReport report, String dir) {
    String line = String.format("%s: %d voxels, %d replicates, %d tiles on %s in %.2f s; wrote %s",
        report.command(), report.result.voxels(),
        report.analysis.replicates(), report.plan.tileCount(),
        report.engineFacts.get("master"), report.wallSeconds(), dir);
    Object undefined = report.result.facts().getOrDefault("undefined_voxels",
        report.result.facts().get("zero_variance_voxels"));
    if (undefined instanceof Number && ((Number) undefined).longValue() > 0) {
      line += String.format("%n%s of %d voxels have zero variance: their z/p (or statistic and p)"
          + " are NaN", undefined, report.result.voxels());
    }
    return line;
  }

  /** The command as a shell would take it back (each argument quoted where needed). */
  public static String commandLine(String[] args) {
    StringBuilder b = new StringBuilder("nlspark");
    for (String a : args) {
      b.append(' ');
      if (a.matches("[A-Za-z0-9_./:=@%+,-]+")) {
        b.append(a);
      } else {
        b.append('\'').append(a.replace("'", "'\\''")).append('\'');
      }
    }
    return b.toString();
  }

  public static boolean progressWanted(boolean quiet) {
    return !quiet && "1".equals(System.getenv(STDERR_TTY_ENV));
  }

  public static NlsparkOptions options(Args a, Analysis analysis) {
    NlsparkOptions o = NlsparkOptions.defaults();
    String stat = analysis == Analysis.CORRELATION ? a.get("--method") : a.get("--stat");
    if (stat != null) {
      if (!analysis.statistics().contains(stat)) {
        String flag = analysis == Analysis.CORRELATION ? "--method" : "--stat";
        throw new InvalidInputException(flag + " must be one of " + analysis.statistics()
            + " for " + analysis.command() + ", but was: " + stat);
      }
      o.statistic(stat);
    }
    Long replicates = a.longValue(analysis == Analysis.BOOTSTRAP ? "--samples" : "--permutations");
    if (replicates != null) {
      o.replicates(replicates);
    }
    Long seed = a.longValue("--seed");
    if (seed != null) {
      o.seed(seed);
    }
    if (a.has("--tail")) {
      o.tail(Tail.parse(a.get("--tail")));
    }
    if (a.flag("--fwer") && a.flag("--no-fwer")) {
      throw new InvalidInputException("--fwer and --no-fwer contradict each other; pass one");
    }
    if (a.flag("--no-fwer")) {
      o.fwer(false);
    }
    Double confidence = a.doubleValue("--confidence");
    if (confidence != null) {
      o.confidence(confidence);
    }
    if (a.has("--ci")) {
      o.ci(CiMethod.parse(a.get("--ci")));
    }
    if (a.flag("--save-samples")) {
      o.saveSamples(true);
    }
    if (a.has("--precision")) {
      o.precision(Precision.parse(a.get("--precision")));
    }
    if (a.has("--backend")) {
      String b = a.get("--backend");
      if (!List.of("cpu", "gpu", "auto").contains(b)) {
        throw new InvalidInputException("--backend must be one of [cpu, gpu, auto], but was: "
            + b);
      }
      o.backend(b);
    }
    o.memoryBudgetGb(a.doubleValue("--memory-budget-gb"));
    o.partitions(a.intValue("--partitions"));
    return o;
  }

  private int env(String[] args) {
    Args a = Args.parse("env", args, 1, Set.of("--memory-budget-gb"),
        Set.of("--json", "--verbose", "--help", "--quiet"));
    DeviceReport report = DeviceReport.collect(GpuProbes.system(),
        MemoryProbe.system(GpuProbes.system()), a.doubleValue("--memory-budget-gb"));
    Map<String, Object> m = report.toMap();
    if (a.flag("--json")) {
      out.println(Json.write(m));
    } else {
      for (Map.Entry<String, Object> e : m.entrySet()) {
        out.printf("%-24s %s%n", e.getKey(), e.getValue());
      }
    }
    return 0;
  }

  private int demo(String[] args) {
    Args a = Args.parse("demo", args, 1, union(COMMON_VALUED, "--samples", "--permutations"),
        COMMON_SWITCHES);
    return new Demo(out, err).run(a);
  }

  /** A Spark session for one command: the active one if any (never stopped), else a new one. */
  public static final class SessionHandle implements AutoCloseable {
    public final SparkSession spark;
    private final boolean owned;

    private SessionHandle(SparkSession spark, boolean owned) {
      this.spark = spark;
      this.owned = owned;
    }

    /**
     * @param master {@code --master}, or null: then spark-submit's {@code spark.master} if set,
     *     else {@code local[*]}
     */
    public static SessionHandle open(String master, String appName) {
      if (master != null) {
        checkMaster(master);
      }
      scala.Option<SparkSession> active = SparkSession.getActiveSession();
      if (active.isEmpty()) {
        active = SparkSession.getDefaultSession();
      }
      if (active.isDefined()) {
        return new SessionHandle(active.get(), false);
      }
      String m = master != null ? master : System.getProperty("spark.master", "local[*]");
      SparkSession.Builder b = SparkSession.builder().appName(appName).master(m);
      if (m.startsWith("local")) {
        b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1");
        if (System.getProperty("spark.ui.enabled") == null) {
          b.config("spark.ui.enabled", "false");
        }
      }
      return new SessionHandle(b.getOrCreate(), true);
    }

    /** A master URL Spark cannot parse is a usage error (exit 2), caught before Spark starts. */
    static void checkMaster(String m) {
      boolean ok = m.matches("local(\\[(\\*|[1-9][0-9]*)(,\\s*[1-9][0-9]*)?\\])?")
          || m.matches("local-cluster\\[[1-9][0-9]*,\\s*[1-9][0-9]*,\\s*[1-9][0-9]*\\]")
          || m.matches("(spark|mesos|k8s)://.+") || m.equals("yarn");
      if (!ok) {
        throw new InvalidInputException("--master must be local, local[N], local[*],"
            + " local[N,F], spark://HOST:PORT, yarn, k8s://... or mesos://..., but was: " + m);
      }
    }

    @Override
    public void close() {
      if (owned) {
        spark.stop();
      }
    }
  }
}
