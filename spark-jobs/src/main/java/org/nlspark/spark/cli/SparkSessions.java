package org.nlspark.spark.cli;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.BiConsumer;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.spark.SparkConf;
import org.apache.spark.SparkContext;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.engine.SparkJobWarmup;
import org.nlspark.spark.errors.OpenFileLimit;

/**
 * The Spark session of one command, and what is checked before Spark starts so that a mistake in
 * {@code --master} or a too small heap is a clear exit 2 or 3, not a stack trace.
 */
public final class SparkSessions {
  /** Largest task result sent directly to the driver; Spark caps it at the RPC message size
   *  (128 MB by default), larger results still travel as blocks. */
  static final String DIRECT_RESULT_SIZE = "spark.task.maxDirectResultSize";
  /** Its value in the local sessions nlspark starts. */
  static final String LOCAL_DIRECT_RESULT_SIZE = "64m";

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
    /** The warm-up job's thread ({@link SparkJobWarmup}), or null. */
    private final Thread warmup;

    private Handle(SparkSession spark, boolean owned, Thread warmup) {
      this.spark = spark;
      this.owned = owned;
      this.warmup = warmup;
    }

    /** Whether this handle started the session (and stops it on close). */
    public boolean owned() {
      return owned;
    }

    @Override
    public void close() {
      if (owned) {
        SparkJobWarmup.await(warmup); // never stop the context under it (also after a failure)
        spark.stop();
      }
    }
  }

  /**
   * What a local session nlspark starts sets, where the user's -D options did not ({@code conf}
   * holds the {@code spark.*} system properties, so {@code setIfMissing} keeps the user's).
   */
  static void localDefaults(SparkConf conf) {
    conf.set("spark.driver.host", "127.0.0.1").set("spark.driver.bindAddress", "127.0.0.1");
    if (!conf.contains("spark.local.dir") && System.getenv("SPARK_LOCAL_DIRS") == null) {
      String spill = SpillDirectories.forThisRun(System.getProperty("java.io.tmpdir"));
      if (spill != null) {
        conf.set("spark.local.dir", spill);
      }
    }
    conf.setIfMissing("spark.ui.enabled", "false");
    // A task thread that runs out of heap would otherwise end the whole JVM with Spark's
    // exit code 52; at depth 0 it fails the task and the job, and nlspark says exit 3.
    conf.setIfMissing("spark.executor.killOnFatalError.depth", "0");
    // In one JVM a task's result needs no block manager: above Spark's 1 MB default a result
    // (a bootstrap tile run's tails: 5-8 MB) was stored as a block and fetched back over
    // loopback, 0.1-0.9 s a task on a cold 2-core run (docs/performance.md, "The JIT of a short
    // job, and task results in one JVM").
    conf.setIfMissing(DIRECT_RESULT_SIZE, LOCAL_DIRECT_RESULT_SIZE);
    // In one JVM a broadcast is read from the driver's own block manager as the value it holds,
    // never from the compressed pieces: compressing them (LZ4 over the inputs' doubles, which do
    // not compress) only cost the command CPU before and in the job (docs/performance.md,
    // "Broadcasts in one JVM").
    conf.setIfMissing("spark.broadcast.compress", "false");
  }

  /**
   * @param master {@code --master}, or null: then spark-submit's {@code spark.master} if set,
   *     else {@code local[*]}
   */
  public static Handle open(String master, String appName) {
    return open(master, appName, false);
  }

  /**
   * As {@link #open(String, String)}; {@code warmUp}: where this starts a local context, its
   * {@link SparkJobWarmup} job starts as soon as the context is up, while the SQL session is
   * still being built and the command then reads its inputs, so that it has ended before the
   * command's own job.
   */
  public static Handle open(String master, String appName, boolean warmUp) {
    if (master != null) {
      checkMaster(master, System::getenv);
      checkReachable(master, CONNECT_TIMEOUT_MS);
    }
    scala.Option<SparkSession> active = SparkSession.getActiveSession();
    if (active.isEmpty()) {
      active = SparkSession.getDefaultSession();
    }
    if (active.isDefined()) {
      return new Handle(active.get(), false, null);
    }
    String m = master != null ? master : System.getProperty("spark.master", "local[*]");
    if (master == null) {
      checkReachable(m, CONNECT_TIMEOUT_MS);
    }
    if (System.getProperty("spark.testing.memory") == null) {
      checkHeap(Runtime.getRuntime().maxMemory());
    }
    OpenFileLimit.checkHeadroom();
    checkLocalDirs(System.getProperty("spark.local.dir"), System.getenv("SPARK_LOCAL_DIRS"),
        System.getProperty("java.io.tmpdir"));
    checkLocalIp(System.getenv("SPARK_LOCAL_IP"));
    SparkConf conf = new SparkConf().setAppName(appName).setMaster(m); // with spark.* of -D
    dataPlaneDefaults(conf::set);
    if (m.startsWith("local")) {
      localDefaults(conf);
    }
    SparkContext sc;
    try {
      sc = SparkContext.getOrCreate(conf);
    } catch (RuntimeException e) {
      throw explain(e, m);
    }
    // The context first, then the session on it: the warm-up job runs beside the session's set-up
    Thread warmup = warmUp ? SparkJobWarmup.start(sc) : null;
    try {
      return new Handle(SparkSession.builder().sparkContext(sc).getOrCreate(), true, warmup);
    } catch (RuntimeException e) {
      SparkJobWarmup.await(warmup);
      sc.stop();
      throw explain(e, m);
    }
  }

  /**
   * nlspark's defaults for Spark settings read when the context starts, each only where
   * nothing (spark-submit, a properties file, -D) set it: {@link NlsparkConf#SHUFFLE_COMPRESS}.
   */
  public static SparkSession.Builder dataPlaneDefaults(SparkSession.Builder b) {
    dataPlaneDefaults(b::config);
    return b;
  }

  private static void dataPlaneDefaults(BiConsumer<String, String> set) {
    if (System.getProperty(NlsparkConf.SHUFFLE_COMPRESS) == null) {
      set.accept(NlsparkConf.SHUFFLE_COMPRESS, NlsparkConf.SHUFFLE_COMPRESS_DEFAULT);
    }
  }

  /** Spark's refusals at start-up that are the user's to fix, said as such. */
  static RuntimeException explain(RuntimeException e, String master) {
    if (OpenFileLimit.causedBy(e)) {
      return OpenFileLimit.refusal("Cannot start Spark: ", e); // its event loops, its jars
    }
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

  /**
   * The directories the driver's block manager will use (spark.local.dir, else
   * SPARK_LOCAL_DIRS, else java.io.tmpdir; comma-separated) must take a new sub-directory:
   * Spark finds out only while starting, then exits 53 after pages of stack traces. Each is
   * probed by creating and removing an empty directory in it (a missing one is created, as
   * Spark would). Exit 2 naming the setting.
   */
  static void checkLocalDirs(String sparkLocalDir, String sparkLocalDirsEnv, String tmpdir) {
    String setting = sparkLocalDir != null ? "spark.local.dir"
        : sparkLocalDirsEnv != null ? "SPARK_LOCAL_DIRS" : "java.io.tmpdir";
    String value = sparkLocalDir != null ? sparkLocalDir
        : sparkLocalDirsEnv != null ? sparkLocalDirsEnv : tmpdir;
    if (value == null) {
      return;
    }
    String last = null;
    for (String d : value.split(",")) {
      if (d.isBlank()) {
        continue;
      }
      java.nio.file.Path dir = java.nio.file.Paths.get(d.trim());
      try {
        java.nio.file.Files.createDirectories(dir);
        java.nio.file.Files.delete(java.nio.file.Files.createTempDirectory(dir, "nlspark-probe-"));
        return; // Spark uses the directories it can; one is enough
      } catch (IOException | RuntimeException e) {
        String reason = e instanceof java.nio.file.FileSystemException
            && ((java.nio.file.FileSystemException) e).getReason() != null
            ? ((java.nio.file.FileSystemException) e).getReason()
            : e instanceof java.nio.file.FileAlreadyExistsException ? "it is not a directory"
            : e instanceof java.nio.file.AccessDeniedException ? "permission denied"
            : e instanceof java.nio.file.NoSuchFileException ? "it cannot be created"
            : e.getClass().getSimpleName() + " " + e.getMessage();
        last = d.trim() + ": " + reason.toLowerCase(Locale.ROOT);
      }
    }
    if (last == null) {
      return;
    }
    throw new InvalidInputException("Cannot start Spark: its scratch directory (" + setting
        + "=" + value + ") cannot be written (" + last + "); point " + setting + " at a"
        + " writable directory, e.g. NLSPARK_JAVA_OPTS=-D" + (setting.equals("SPARK_LOCAL_DIRS")
        ? "spark.local.dir" : setting) + "=/path/to/scratch");
  }

  /**
   * SPARK_LOCAL_IP must be an address of this machine: Spark resolves it in a static
   * initializer, and a name that does not resolve fails there (ExceptionInInitializerError).
   */
  static void checkLocalIp(String value) {
    if (value == null || value.isEmpty()) {
      return;
    }
    String why;
    try {
      java.net.InetAddress a = java.net.InetAddress.getByName(value);
      if (a.isLoopbackAddress() || a.isAnyLocalAddress()
          || java.net.NetworkInterface.getByInetAddress(a) != null) {
        return;
      }
      why = "it is not an address of this machine";
    } catch (IOException e) {
      why = "it is not an address or a known host name";
    }
    throw new InvalidInputException("Cannot start Spark: SPARK_LOCAL_IP=" + value + " cannot"
        + " be used (" + why + "); set it to one of this machine's addresses, such as"
        + " 127.0.0.1, or unset it");
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
   * print pages of stack traces, and so does a port that accepts but is not a Spark master (a
   * web server, the master's UI, a silent listener). One TCP connect and one exchange in
   * Spark's RPC framing ({@link #speaksSparkRpc}), each bounded by {@code timeoutMs}, say it in
   * seconds. With {@code spark.authenticate} the exchange is skipped (such a master answers
   * only after authentication).
   */
  public static void checkReachable(String master, int timeoutMs) {
    Matcher spark = SPARK_MASTER.matcher(master);
    if (!spark.matches()) {
      return;
    }
    boolean authenticated = "true".equals(System.getProperty("spark.authenticate"));
    String last = null;
    for (InetSocketAddress a : hostPorts(master, spark.group(1))) {
      String where = a.getHostString() + ":" + a.getPort();
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(a.getHostString(), a.getPort()), timeoutMs);
        if (authenticated) {
          return;
        }
        String wrong = speaksSparkRpc(s, timeoutMs);
        if (wrong == null) {
          return;
        }
        last = where + " " + wrong;
      } catch (IOException e) {
        last = where + ": " + describe(e);
      } catch (IllegalArgumentException | SecurityException e) {
        last = where + ": " + e.getMessage();
      }
    }
    throw new InvalidInputException("Cannot reach the master " + master + " (" + last + ");"
        + " check that it is running and that --master names its host and RPC port (the"
        + " spark://HOST:PORT the master printed, usually 7077)");
  }

  /**
   * Sends one RPC request in Spark's transport framing (frame length, message type 3 =
   * RpcRequest, request id, body length, an empty body; then CR LF CR LF) and reads the answer's first 9 bytes:
   * a Spark RPC endpoint answers with a frame of type 4 (RpcResponse) or 5 (RpcFailure: the
   * empty body is not a message it knows). Returns null for such an answer, else what was
   * wrong, phrased to follow the address.
   */
  static String speaksSparkRpc(Socket s, int timeoutMs) throws IOException {
    s.setSoTimeout(timeoutMs);
    java.nio.ByteBuffer frame = java.nio.ByteBuffer.allocate(8 + 1 + 8 + 4 + 4);
    frame.putLong(8 + 1 + 8 + 4).put((byte) 3).putLong(0x6e6c7370L).putInt(0);
    // a line end after the frame, so that a web server answers (400) instead of waiting for
    // the end of a request line; Spark reads it as the start of a next frame and drops it
    frame.put((byte) '\r').put((byte) '\n').put((byte) '\r').put((byte) '\n');
    s.getOutputStream().write(frame.array());
    s.getOutputStream().flush();
    byte[] head = new byte[9];
    int n = 0;
    try {
      java.io.InputStream in = s.getInputStream();
      while (n < head.length) {
        int r = in.read(head, n, head.length - n);
        if (r < 0) {
          break;
        }
        n += r;
      }
    } catch (java.net.SocketTimeoutException e) {
      return n == 0 ? "accepted the connection but gave no answer in Spark's RPC protocol"
          + " within " + Math.max(1, timeoutMs / 1000) + " s, so it is not a Spark master"
          : "answered, but not in Spark's RPC protocol, so it is not a Spark master";
    }
    String text = new String(head, 0, n, java.nio.charset.StandardCharsets.ISO_8859_1);
    if (text.startsWith("HTTP/")) {
      return "answered in HTTP (a web server, such as the master's web UI), not in Spark's RPC"
          + " protocol";
    }
    if (n == head.length) {
      long length = java.nio.ByteBuffer.wrap(head, 0, 8).getLong();
      if ((head[8] == 4 || head[8] == 5) && length >= 17 && length < (64 << 20)) {
        return null;
      }
    }
    return n == 0 ? "closed the connection without an answer in Spark's RPC protocol, so it is"
        + " not a Spark master" : "answered, but not in Spark's RPC protocol, so it is not a"
        + " Spark master";
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
