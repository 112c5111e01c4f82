package org.nlspark.spark.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * The Spark session of one command, and what is checked before Spark starts so that a mistake in
 * {@code --master} or a too small heap is a clear exit 2 or 3, not a stack trace.
 */
public final class SparkSessions {
  /** Spark's driver refuses a heap below 1.5 x its 300 MiB reserve (UnifiedMemoryManager). */
  public static final long SPARK_MIN_HEAP_BYTES = 300L * 1024 * 1024 * 3 / 2;
  /** How long a spark:// master may take to accept a TCP connection before we give up. */
  static final int CONNECT_TIMEOUT_MS = 3000;

  static final String MORE_MEMORY = "give nlspark more memory: NLSPARK_JAVA_OPTS=-Xmx4g"
      + " bin/nlspark ... (or java -Xmx4g ...; under spark-submit, --driver-memory 4g)";

  private static final Pattern SPARK_MASTER = Pattern.compile("spark://(.+)");
  private static final Pattern HOST_PORT = Pattern.compile("(\\[[0-9a-fA-F:.]+\\]|[^:/\\[\\]]+)"
      + ":([0-9]{1,5})");

  private SparkSessions() {}

  /** A Spark session for one command: the active one if any (never stopped), else a new one. */
  public static final class Handle implements AutoCloseable {
    public final SparkSession spark;
    private final boolean owned;

    private Handle(SparkSession spark, boolean owned) {
      this.spark = spark;
      this.owned = owned;
    }

    @Override
    public void close() {
      if (owned) {
        spark.stop();
      }
    }
  }

  /**
   * @param master {@code --master}, or null: then spark-submit's {@code spark.master} if set,
   *     else {@code local[*]}
   */
  public static Handle open(String master, String appName) {
    if (master != null) {
      checkMaster(master, System::getenv);
      checkReachable(master, CONNECT_TIMEOUT_MS);
    }
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isEmpty()) {
      active = SparkSession.getDefaultSession();
    }
    if (active.isDefined()) {
      return new Handle(active.get(), false);
    }
    String m = master != null ? master : System.getProperty("spark.master", "local[*]");
    if (master == null) {
      checkReachable(m, CONNECT_TIMEOUT_MS);
    }
    if (System.getProperty("spark.testing.memory") == null) {
      checkHeap(Runtime.getRuntime().maxMemory());
    }
    SparkSession.Builder b = dataPlaneDefaults(SparkSession.builder().appName(appName).master(m));
    if (m.startsWith("local")) {
      b.config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1");
      if (System.getProperty("spark.ui.enabled") == null) {
        b.config("spark.ui.enabled", "false");
      }
      // A task thread that runs out of heap would otherwise end the whole JVM with Spark's
      // exit code 52; at depth 0 it fails the task and the job, and nlspark says exit 3.
      if (System.getProperty("spark.executor.killOnFatalError.depth") == null) {
        b.config("spark.executor.killOnFatalError.depth", "0");
      }
    }
    try {
      return new Handle(b.getOrCreate(), true);
    } catch (RuntimeException e) {
      throw explain(e, m);
    }
  }

  /**
   * nlspark's defaults for Spark settings read when the context starts, each only where
   * nothing (spark-submit, a properties file, -D) set it: {@link NlsparkConf#SHUFFLE_COMPRESS}.
   */
  public static SparkSession.Builder dataPlaneDefaults(SparkSession.Builder b) {
    if (System.getProperty(NlsparkConf.SHUFFLE_COMPRESS) == null) {
      b.config(NlsparkConf.SHUFFLE_COMPRESS, NlsparkConf.SHUFFLE_COMPRESS_DEFAULT);
    }
    return b;
  }

  /** Spark's refusals at start-up that are the user's to fix, said as such. */
  static RuntimeException explain(RuntimeException e, String master) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      String msg = String.valueOf(t.getMessage());
      if (msg.contains("System memory") && msg.contains("must be at least")) {
        return new ResourceRefusedException("Cannot start Spark: the Java heap ("
            + mib(Runtime.getRuntime().maxMemory()) + ") is below Spark's minimum of "
            + mib(SPARK_MIN_HEAP_BYTES) + "; " + MORE_MEMORY);
      }
      if (msg.contains("Could not parse Master URL")) {
        return new InvalidInputException("--master " + master + " is not a master this Spark"
            + " can use (" + msg + "); see nlspark --help for the forms");
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return e;
  }

  /** A heap Spark's driver would refuse is exit 3 with how to raise it. */
  static void checkHeap(long maxHeapBytes) {
    if (maxHeapBytes < SPARK_MIN_HEAP_BYTES) {
      throw new ResourceRefusedException("Cannot start Spark: the Java heap (" + mib(maxHeapBytes)
          + ") is below Spark's minimum of " + mib(SPARK_MIN_HEAP_BYTES) + "; " + MORE_MEMORY);
    }
  }

  private static String mib(long bytes) {
    return String.format(Locale.ROOT, "%d MiB", bytes / (1024 * 1024));
  }

  /**
   * A master URL that Spark cannot parse or cannot use here is a usage error (exit 2), caught
   * before Spark starts: a typo, spark:// without a port, yarn without the Hadoop configuration,
   * or a cluster manager this class path lacks.
   */
  static void checkMaster(String m, Function<String, String> env) {
    String forms = "local, local[N], local[*], local[N,F], spark://HOST:PORT, yarn, k8s://..."
        + " or mesos://...";
    if (m.matches("local(\\[(\\*|[1-9][0-9]*)(,\\s*[1-9][0-9]*)?\\])?")
        || m.matches("local\\[\\*,\\s*[1-9][0-9]*\\]")
        || m.matches("local-cluster\\[[1-9][0-9]*,\\s*[1-9][0-9]*,\\s*[1-9][0-9]*\\]")) {
      return;
    }
    Matcher spark = SPARK_MASTER.matcher(m);
    if (spark.matches()) {
      hostPorts(m, spark.group(1));
      return;
    }
    if (m.equals("yarn")) {
      if (blank(env.apply("HADOOP_CONF_DIR")) && blank(env.apply("YARN_CONF_DIR"))) {
        throw new InvalidInputException("Cannot use --master yarn: neither HADOOP_CONF_DIR nor"
            + " YARN_CONF_DIR is set, so there is no cluster to submit to; set one to the"
            + " directory of the cluster's configuration, or run under spark-submit");
      }
      needsClusterManager(m, "org.apache.spark.scheduler.cluster.YarnClusterManager",
          "spark-yarn");
      return;
    }
    if (m.matches("k8s://.+")) {
      needsClusterManager(m, "org.apache.spark.scheduler.cluster.k8s.KubernetesClusterManager",
          "spark-kubernetes");
      return;
    }
    if (m.matches("mesos://.+")) {
      needsClusterManager(m, "org.apache.spark.scheduler.cluster.mesos.MesosClusterManager",
          "spark-mesos");
      return;
    }
    String hint = m.toLowerCase(Locale.ROOT).matches("l[a-z]{3,6}(\\[.*)?")
        && !m.startsWith("local") ? " (did you mean local" + m.replaceFirst("^[^\\[]*", "")
        + "?)" : "";
    throw new InvalidInputException("--master must be " + forms + ", but was: " + m + hint);
  }

  private static List<InetSocketAddress> hostPorts(String master, String list) {
    List<InetSocketAddress> out = new ArrayList<>();
    for (String hp : list.split(",")) {
      Matcher x = HOST_PORT.matcher(hp.trim());
      int port = x.matches() ? Integer.parseInt(x.group(2)) : -1;
      if (port < 1 || port > 65535) {
        throw new InvalidInputException("--master must be spark://HOST:PORT (the port the master"
            + " printed, usually 7077), but was: " + master);
      }
      String host = x.group(1).replace("[", "").replace("]", "");
      out.add(InetSocketAddress.createUnresolved(host, port));
    }
    return out;
  }

  private static void needsClusterManager(String master, String className, String module) {
    try {
      Class.forName(className, false, SparkSessions.class.getClassLoader());
    } catch (ClassNotFoundException e) {
      throw new InvalidInputException("Cannot use --master " + master + " here: this class path"
          + " has no " + module + " (bin/nlspark runs embedded Spark); submit the app jar with"
          + " that Spark's spark-submit --master " + master + " instead");
    }
  }

  /**
   * A standalone master that accepts no connection makes Spark retry for about a minute and
   * print pages of stack traces; one TCP connect with a short timeout says it in seconds.
   */
  static void checkReachable(String master, int timeoutMs) {
    Matcher spark = SPARK_MASTER.matcher(master);
    if (!spark.matches()) {
      return;
    }
    String last = null;
    for (InetSocketAddress a : hostPorts(master, spark.group(1))) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(a.getHostString(), a.getPort()), timeoutMs);
        return;
      } catch (IOException e) {
        last = a.getHostString() + ":" + a.getPort() + ": " + describe(e);
      } catch (IllegalArgumentException | SecurityException e) {
        last = a.getHostString() + ":" + a.getPort() + ": " + e.getMessage();
      }
    }
    throw new InvalidInputException("Cannot reach the master " + master + " (" + last + ");"
        + " check that it is running and that --master names its host and port");
  }

  private static String describe(IOException e) {
    if (e instanceof java.net.UnknownHostException) {
      return "unknown host";
    }
    if (e instanceof java.net.SocketTimeoutException) {
      return "no answer within " + CONNECT_TIMEOUT_MS / 1000 + " s";
    }
    return e.getMessage() == null ? e.getClass().getSimpleName()
        : e.getMessage().toLowerCase(Locale.ROOT);
  }

  private static boolean blank(String s) {
    return s == null || s.isBlank();
  }
}
