"""The Spark session the functions run in: nlspark.session, nlspark.configure, and the check that
the JVM holds an nlspark jar of this package's version."""

import glob
import hashlib
import os
import re
import shutil
import threading
import time

import pyspark
from pyspark.sql import SparkSession

from . import _connect, _jars
from ._errors import call
from ._version import MAVEN_VERSION

MAIN_CLASS = "org.nlspark.spark.Main"
RUNNER_CLASS = "org.nlspark.spark.CommandRunner"

# What nlspark's own command line sets in the local sessions it starts (cli/SparkSessions).
LOCAL_SETTINGS = {
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
    "spark.shuffle.compress": "false",
    "spark.executor.killOnFatalError.depth": "0",
    # Task results up to 64 MB go straight to the driver, not through the block manager.
    "spark.task.maxDirectResultSize": "64m",
    # A broadcast is read in the same JVM as the value it holds: compressing its pieces is waste.
    "spark.broadcast.compress": "false",
    # The SIMD kernels (without it they take the scalar path: same bits, slower).
    "spark.driver.extraJavaOptions": "--add-modules jdk.incubator.vector",
}

_checked = set()


def jar_path():
    """The application jar this package carries for the installed pyspark."""
    return _jars.jar_for(pyspark.__version__)


def _jvm_has_nlspark():
    from pyspark import SparkContext
    sc = SparkContext._active_spark_context
    if sc is None:
        return False
    return _has_class(sc._jvm, MAIN_CLASS)


def _has_class(jvm, name):
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(name, False, loader)
        return True
    except Exception:  # py4j raises Py4JJavaError for ClassNotFoundException
        return False


def configure(builder):
    """Adds this package's jar to a SparkSession builder's spark.jars (as Delta's
    configure_spark_with_delta_pip does) and returns the builder; adds nothing when the running
    JVM has nlspark already (installed on the cluster, --packages, --jars)."""
    if _jvm_has_nlspark():
        return builder
    jar = jar_path()
    jars = builder._options.get("spark.jars")
    if jars and jar not in jars.split(","):
        jars = jars + "," + jar
    elif not jars:
        jars = jar
    return builder.config("spark.jars", jars)


def session(master="local[*]", app_name="nlspark", conf=None, verbose=False):
    """A SparkSession with the nlspark jar attached (the active one if a session is running:
    Spark has one per JVM). A local master gets the loopback driver settings and the UI off, as
    the command line's sessions; conf: more Spark settings ({key: value}), which win.

    A JVM started here logs warnings and errors, as pyspark's sessions do, but not the start-up
    lines of Java (the incubator-module notice), Hadoop (no native library) and Spark (its
    default log level); verbose=True keeps Spark's own logging and every line. (The functions
    quiet Spark's lines about nlspark's own tasks while they run, and only then.)"""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = dict(LOCAL_SETTINGS) if master.startswith("local") else {}
    settings.setdefault("spark.driver.memory", "2g")
    settings.update(conf or {})
    starting = _jvm_not_started()
    quiet = not verbose and starting
    if quiet and os.path.isfile(LOG4J_FILE) and "log4j2.configurationFile" not in settings.get(
            "spark.driver.extraJavaOptions", ""):
        _add_java_options(settings, "-Dlog4j2.configurationFile=file:" + LOG4J_FILE)
    if starting and master.startswith("local"):
        # the jar on the driver's own class path (a local session's executors are the driver),
        # so that its classes load as Spark's do and the class-data archive holds them too
        settings.setdefault("spark.driver.extraClassPath", jar_path())
        _add_java_options(settings, _class_data_options(settings["spark.driver.extraClassPath"]))
    for key, value in settings.items():
        builder = builder.config(key, str(value))
    if not quiet:
        return configure(builder).getOrCreate()
    with _without_incubator_notice():
        return configure(builder).getOrCreate()


def _add_java_options(settings, options):
    if options:
        before = settings.get("spark.driver.extraJavaOptions", "")
        settings["spark.driver.extraJavaOptions"] = (before + " " + options).strip()


def _class_data_options(class_path):
    """Class-data sharing for a local JVM started here, as bin/nlspark does: the first such JVM
    records the classes it loaded (Spark's are many) in an archive when it exits, and later ones
    map it, which starts the session and the first call about 40% sooner. One archive per Java,
    pyspark and jar (a JVM ignores an archive of another, silently), in NLSPARK_CACHE_DIR (default
    ~/.cache/nlspark); NLSPARK_CDS=0 turns it off. Nothing (no archive) where Java is older
    than 13, unknown, or the cache cannot be written."""
    if os.environ.get("NLSPARK_CDS", "1") == "0" or " " in class_path:
        return ""
    java_home = os.environ.get("JAVA_HOME")
    java = os.path.join(java_home, "bin", "java") if java_home else shutil.which("java")
    try:
        java = os.path.realpath(java)
        with open(os.path.join(os.path.dirname(os.path.dirname(java)), "release")) as f:
            release = f.read()
        found = re.search(r'^JAVA_VERSION="(\d+)', release, re.M)
        if not found or int(found.group(1)) < 13:
            return ""
        stamps = [(p, os.stat(p).st_mtime_ns, os.stat(p).st_size)
                  for p in [java] + class_path.split(os.pathsep)]
    except (OSError, TypeError):
        return ""
    key = hashlib.sha256(repr((stamps, pyspark.__version__)).encode()).hexdigest()[:16]
    cache = os.environ.get("NLSPARK_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser(os.path.join("~", ".cache")),
        "nlspark")
    archive = os.path.join(cache, "session-%s.jsa" % key)
    if " " in archive:
        return ""  # Spark splits these options at spaces
    quiet = "-Xlog:cds=off -Xlog:cds+dynamic=off"
    # A JVM writes its archive as it exits, to a name of its own; once the file has rested a
    # minute it is complete and becomes the archive (a JVM ignores a damaged one, silently).
    # Meanwhile no other JVM records one.
    writing = False
    for pending in glob.glob(archive + ".*.tmp"):
        try:
            if time.time() - os.stat(pending).st_mtime < 60:
                writing = True
            elif not os.path.isfile(archive):
                os.replace(pending, archive)
            else:
                os.remove(pending)
        except OSError:
            writing = True
    if os.path.isfile(archive):
        return "-XX:SharedArchiveFile=%s %s" % (archive, quiet)
    if writing:
        return ""
    try:
        os.makedirs(cache, exist_ok=True)
    except OSError:
        return ""
    if not os.access(cache, os.W_OK):
        return ""
    return "-XX:ArchiveClassesAtExit=%s.%d.tmp %s" % (archive, os.getpid(), quiet)


# The logging of the JVMs started here (Spark's level for Python sessions, less start-up lines).
LOG4J_FILE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "session-log4j2.properties")
INCUBATOR_NOTICE = b"WARNING: Using incubator modules:"


def _jvm_not_started():
    from pyspark import SparkContext
    return SparkContext._gateway is None


class _without_incubator_notice:
    """Starts the JVM with its stderr on a pipe whose reader passes everything on to this
    process's stderr but the JVM's "WARNING: Using incubator modules" line (no JVM flag turns it
    off; bin/nlspark drops it the same way). The reader lives as long as the JVM writes."""

    def __enter__(self):
        read, write = os.pipe()
        self._saved = os.dup(2)
        out = os.dup(2)
        os.dup2(write, 2)
        os.close(write)
        threading.Thread(target=_pass_on, args=(read, out), name="nlspark-jvm-stderr",
                         daemon=True).start()

    def __exit__(self, *exc):
        os.dup2(self._saved, 2)
        os.close(self._saved)
        return False


def _pass_on(read, out, lines_to_look_at=50):
    """Copies read to out, dropping the incubator notice among the first lines; then raw."""
    pending = b""
    looked = 0
    while True:
        chunk = os.read(read, 65536)
        if not chunk:
            break
        if looked >= lines_to_look_at:
            os.write(out, chunk)
            continue
        pending += chunk
        *whole, pending = pending.split(b"\n")
        for line in whole:
            looked += 1
            if line.startswith(INCUBATOR_NOTICE):
                looked = lines_to_look_at
            else:
                os.write(out, line + b"\n")
        if looked >= lines_to_look_at and pending:
            os.write(out, pending)
            pending = b""
    if pending:
        os.write(out, pending)
    os.close(read)
    os.close(out)


def resolve(spark):
    """The session a function runs in: spark, else the active one, else a new local one;
    checked once for an nlspark jar of this package's version (a Spark Connect session: for the
    server's nlspark plugin of this version)."""
    if spark is None and not _has_py4j():
        # a pure Connect client: pyspark's classic lookup would exit the process looking for
        # a Spark installation
        from pyspark.sql.connect.session import SparkSession as ConnectSession
        spark = ConnectSession.getActiveSession()
        if spark is None:
            raise ValueError(
                "Cannot run nlspark: no Spark session is active and this pyspark is a Spark"
                " Connect client; connect one (SparkSession.builder.remote('sc://...')"
                ".getOrCreate()) or pass spark=")
    if spark is None:
        spark = SparkSession.getActiveSession() or session()
    if _connect.is_connect(spark):
        key = ("connect", id(spark))
        if key not in _checked:
            _check_version(_connect.ConnectRunner(spark).version())
            _checked.add(key)
        return spark
    jvm = spark.sparkContext._jvm
    key = id(spark.sparkContext._jsc)
    if key not in _checked:
        if not _has_class(jvm, RUNNER_CLASS):
            raise ValueError(
                "Cannot run nlspark in this Spark session: its JVM has no nlspark jar; start it"
                " with nlspark.session(), or nlspark.configure(SparkSession.builder), or install"
                " the jar %s on the cluster" % os.path.basename(jar_path()))
        _check_version(_Classic(spark).version())
        _checked.add(key)
    return spark


def _check_version(found):
    if found is not None and found != MAVEN_VERSION:
        raise ValueError(
            "Cannot use the nlspark jar of version %s with the Python package of version %s:"
            " install the same release of both" % (found, MAVEN_VERSION))


def _has_py4j():
    import importlib.util
    return importlib.util.find_spec("py4j") is not None


def stopped(spark):
    """Whether a session a Result kept has been stopped since."""
    if _connect.is_connect(spark):
        return bool(getattr(spark, "is_stopped", False))
    return spark.sparkContext._jsc is None


def runner(spark):
    """The JVM's CommandRunner for a resolved session: over py4j in a classic session, through
    the server's plugin in a Spark Connect one (the one place the two doors part)."""
    return _connect.ConnectRunner(spark) if _connect.is_connect(spark) else _Classic(spark)


class _Classic:
    """org.nlspark.spark.CommandRunner over py4j."""

    def __init__(self, spark):
        self.spark = spark
        self.runner = spark.sparkContext._jvm.org.nlspark.spark.CommandRunner

    def run(self, args, call_json):
        gateway = self.spark.sparkContext._gateway
        jargs = gateway.new_array(gateway.jvm.java.lang.String, len(args))
        for i, a in enumerate(args):
            jargs[i] = a
        return list(call(args[0], self.runner.run, self.spark._jsparkSession, jargs, call_json))

    def version(self):
        return call("version", self.runner.version)

    def defaults(self):
        return call("defaults", self.runner.defaults)

    def copy_result(self, source, target, overwrite):
        return call("Result.write", self.runner.copyResult, self.spark._jsparkSession, source,
                    target, overwrite)
