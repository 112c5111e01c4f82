"""The Spark session the functions run in: nlspark.session, nlspark.configure, and the check that
the JVM holds an nlspark jar of this package's version."""

import os

import pyspark
from pyspark.sql import SparkSession

from . import _jars
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


def session(master="local[*]", app_name="nlspark", conf=None):
    """A SparkSession with the nlspark jar attached (the active one if a session is running:
    Spark has one per JVM). A local master gets the loopback driver settings and the UI off, as
    the command line's sessions; conf: more Spark settings ({key: value}), which win."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    builder = SparkSession.builder.master(master).appName(app_name)
    settings = dict(LOCAL_SETTINGS) if master.startswith("local") else {}
    settings.setdefault("spark.driver.memory", "2g")
    settings.update(conf or {})
    for key, value in settings.items():
        builder = builder.config(key, str(value))
    return configure(builder).getOrCreate()


def resolve(spark):
    """The session a function runs in: spark, else the active one, else a new local one;
    checked once for an nlspark jar of this package's version."""
    if spark is None:
        spark = SparkSession.getActiveSession() or session()
    jvm = spark.sparkContext._jvm
    key = id(spark.sparkContext._jsc)
    if key not in _checked:
        if not _has_class(jvm, RUNNER_CLASS):
            raise ValueError(
                "Cannot run nlspark in this Spark session: its JVM has no nlspark jar; start it"
                " with nlspark.session(), or nlspark.configure(SparkSession.builder), or install"
                " the jar %s on the cluster" % os.path.basename(jar_path()))
        found = call("version", lambda: jvm.org.nlspark.spark.CommandRunner.version())
        if found is not None and found != MAVEN_VERSION:
            raise ValueError(
                "Cannot use the nlspark jar of version %s with the Python package of version %s:"
                " install the same release of both" % (found, MAVEN_VERSION))
        _checked.add(key)
    return spark
