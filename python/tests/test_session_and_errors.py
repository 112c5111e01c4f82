"""The session, the jar table, the version check, and the JVM's failures as Python exceptions
with the command line's messages."""

import os
import re
import subprocess
import sys
import time

import numpy as np
import pytest

import nlspark
from nlspark import _jars, _version
from conftest import REPO


def test_the_jar_line_of_the_installed_pyspark_is_carried():
    import pyspark
    jar = nlspark.jar_path()
    assert os.path.isfile(jar)
    assert _jars.spark_line(pyspark.__version__) in _jars.supported_lines()
    # the package's table is the repository's
    with open(os.path.join(REPO, "conf", "spark-lines.tsv"), encoding="utf-8") as f:
        rows = [r.split("\t") for r in f.read().splitlines() if r and not r.startswith("#")]
    assert _jars.spark_lines() == {r[0]: r[4] + "-*-app.jar" for r in rows}


def test_a_pyspark_without_a_jar_is_refused_in_one_sentence():
    minors = _jars.supported_pyspark()
    assert minors == ["3.5", "4.2", "4.3"]
    for version in ("9.1.0", "4.1.1", "3.4.4"):
        with pytest.raises(ValueError) as e:
            _jars.jar_for(version)
        assert str(e.value) == (
            "Cannot use nlspark with pyspark %s: this package runs on pyspark 3.5, 4.2, 4.3"
            " only; install one of them (pip install 'pyspark==4.3.*')" % version)
    # pyspark 4.3 runs the 4.2 line's jar
    assert os.path.basename(_jars.jar_for("4.3.0")).startswith("nlspark-spark-4.2_2.13-")


def test_the_packages_pyspark_range_admits_the_tables_minors_and_no_other():
    import tomllib
    from packaging.specifiers import SpecifierSet
    with open(os.path.join(REPO, "python", "pyproject.toml"), "rb") as f:
        deps = tomllib.load(f)["project"]["dependencies"]
    pyspark = SpecifierSet([d for d in deps if d.startswith("pyspark")][0][len("pyspark"):])
    minors = _jars.supported_pyspark()
    # pyspark's minors released so far (3.x ended with 3.5) and the next ones
    candidates = ["3.0", "3.1", "3.2", "3.3", "3.4", "3.5", "4.0", "4.1", "4.2", "4.3", "4.4",
                  "5.0"]
    admitted = [m for m in candidates if any(pyspark.contains("%s.%d" % (m, patch))
                                             for patch in range(4))]
    assert admitted == minors, pyspark


def test_package_and_jar_have_the_release_of_the_root_pom(spark):
    with open(os.path.join(REPO, "pom.xml"), encoding="utf-8") as f:
        pom = f.read()
    version = re.search(r"<artifactId>nlspark-parent</artifactId>\s*<version>([^<]+)</version>",
                        pom) or re.search(r"<version>([^<]+)</version>", pom)
    assert _version.MAVEN_VERSION == version.group(1)
    assert _version.__version__ == version.group(1).replace("-SNAPSHOT", ".dev0")
    jvm = spark.sparkContext._jvm
    assert jvm.org.nlspark.spark.CommandRunner.version() == _version.MAVEN_VERSION


FIRST_SESSION = """
import numpy as np, nlspark
s = nlspark.session(master="local[1]", verbose=%r)
r = nlspark.one_sample(np.arange(24.0).reshape(6, 4) - 9, permutations=50, seed=1)
print("ok", r["observed"].shape)
s.stop()
"""


@pytest.mark.parametrize("verbose", [False, True])
def test_a_new_session_prints_no_start_up_lines_unless_verbose(tmp_path, verbose):
    # a fresh process: the JVM starts here, as in a user's first cell
    p = subprocess.run([sys.executable, "-c", FIRST_SESSION % verbose], cwd=str(tmp_path),
                       capture_output=True, text=True, timeout=300,
                       env=dict(os.environ, SPARK_LOCAL_IP="127.0.0.1"))
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout == "ok (4,)\n", p.stdout
    if verbose:
        # Java's, Hadoop's and Spark's own start-up lines, as they come
        assert "WARNING: Using incubator modules: jdk.incubator.vector" in p.stderr, p.stderr
        assert 'Setting default log level to "WARN"' in p.stderr, p.stderr
    else:
        assert p.stderr == "", p.stderr


CDS_SESSION = """
import numpy as np, nlspark
s = nlspark.session(master="local[1]")
print(s.sparkContext.getConf().get("spark.driver.extraJavaOptions"))
r = nlspark.one_sample(np.arange(24.0).reshape(6, 4) - 9, permutations=50, seed=1)
print("ok", r["observed"].shape)
"""


def test_a_local_session_records_a_class_data_archive_then_maps_it(tmp_path):
    # As bin/nlspark: the first JVM records its classes as it exits (to a name of its own), a
    # later one promotes the rested file and maps it; both print nothing on stderr.
    cache = tmp_path / "cache"
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1", NLSPARK_CACHE_DIR=str(cache))
    env.pop("NLSPARK_CDS", None)

    def fresh():
        p = subprocess.run([sys.executable, "-c", CDS_SESSION], capture_output=True, text=True,
                           timeout=300, env=env, cwd=str(tmp_path))
        assert p.returncode == 0 and p.stderr == "", p.stderr[-3000:]
        options, ok = p.stdout.splitlines()
        assert ok == "ok (4,)"
        return options

    first = fresh()
    recorded = re.search(r"-XX:ArchiveClassesAtExit=(\S+\.jsa)\.(\d+)\.tmp", first)
    assert recorded and "-Xlog:cds=off" in first, first
    archive, pending = recorded.group(1), recorded.group(0).split("=", 1)[1]
    assert os.path.dirname(archive) == str(cache)
    # the JVM writes it after Python has gone: wait until the file stops growing
    sizes, deadline = [], time.time() + 180
    while time.time() < deadline and not (len(sizes) > 3 and sizes[-1] == sizes[-4] > 1e6):
        time.sleep(1)
        sizes.append(os.path.getsize(pending) if os.path.exists(pending) else 0)
    assert sizes[-1] > 1e6, "no class-data archive was written in 180 s"
    os.utime(pending, (time.time() - 120, time.time() - 120))  # it has rested
    second = fresh()
    assert "-XX:SharedArchiveFile=%s " % archive in second + " ", second
    assert os.path.isfile(archive) and not os.path.exists(pending)


def test_class_data_sharing_is_off_with_nlspark_cds_0(monkeypatch, tmp_path):
    from nlspark import _session
    monkeypatch.setenv("NLSPARK_CACHE_DIR", str(tmp_path))
    monkeypatch.setenv("NLSPARK_CDS", "0")
    assert _session._class_data_options(nlspark.jar_path()) == ""
    monkeypatch.setenv("NLSPARK_CDS", "1")
    assert "-XX:ArchiveClassesAtExit=" in _session._class_data_options(nlspark.jar_path())


def test_session_settings(spark):
    conf = spark.sparkContext.getConf()
    assert conf.get("spark.driver.host") == "127.0.0.1"
    assert conf.get("spark.ui.enabled") == "false"
    assert conf.get("spark.task.maxDirectResultSize") == "64m"
    assert conf.get("spark.broadcast.compress") == "false"
    assert nlspark.jar_path() in conf.get("spark.jars").split(",")


def test_configure_adds_nothing_when_the_jvm_has_nlspark(spark):
    from pyspark.sql import SparkSession
    b = SparkSession.builder
    assert "spark.jars" not in nlspark.configure(b)._options


def test_configure_adds_the_jar_to_a_builder(monkeypatch):
    from pyspark.sql import SparkSession
    from nlspark import _session
    monkeypatch.setattr(_session, "_jvm_has_nlspark", lambda: False)
    b = SparkSession.builder.config("spark.jars", "/opt/other.jar")
    assert nlspark.configure(b)._options["spark.jars"] == "/opt/other.jar," + nlspark.jar_path()


def test_bad_input_is_a_value_error_with_the_command_lines_sentence(spark, cli, tmp_path):
    x = np.zeros((5, 4)) + np.arange(4)
    np.save(tmp_path / "x.npy", x)
    with pytest.raises(ValueError) as e:
        nlspark.one_sample(x, tail="sideways", spark=spark)
    p = cli.run("one-sample", "--input", tmp_path / "x.npy", "--tail", "sideways", "--output",
                tmp_path / "o", expect=2)
    # the command line's sentence, in Python's terms (flags as keyword arguments)
    sentence = "--tail must be one of two, upper, lower, but was: 'sideways'"
    assert p.stderr.strip().splitlines()[-1] == "nlspark one-sample: " + sentence
    assert str(e.value) == "tail= must be one of two, upper, lower, but was: 'sideways'"
    # numbers are checked in Python first, in Python's terms
    with pytest.raises(ValueError, match=r"^permutations= must be in \[1, "):
        nlspark.one_sample(x, permutations=0, spark=spark)


def test_a_bad_file_is_a_value_error(spark, tmp_path):
    (tmp_path / "bad.npy").write_bytes(b"not an npy file")
    with pytest.raises(ValueError, match="bad.npy"):
        nlspark.bootstrap(str(tmp_path / "bad.npy"), samples=10, spark=spark)


def test_refused_resources_are_a_resource_error(spark, cli, tmp_path):
    x = np.random.default_rng(1).normal(size=(3, 20, 4))
    np.save(tmp_path / "x.npy", x)
    with pytest.raises(nlspark.ResourceError) as e:
        nlspark.isc(x, backend="gpu", spark=spark)
    assert isinstance(e.value, MemoryError)
    p = cli.run("isc", "--input", tmp_path / "x.npy", "--backend", "gpu", "--output",
                tmp_path / "o", expect=3)
    from nlspark.commands import _in_python_terms
    sentence = p.stderr.strip().splitlines()[-1]
    assert sentence.startswith("nlspark isc: ") and "(--backend gpu)" in sentence
    assert str(e.value) == _in_python_terms(sentence[len("nlspark isc: "):], None)
    assert "(backend='gpu')" in str(e.value) and "--" not in str(e.value)


def test_an_existing_output_is_refused_and_kept(spark, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    with pytest.raises(ValueError, match="overwrite=True"):
        nlspark.one_sample(np.ones((4, 3)) + np.arange(3), permutations=10, output=out,
                           spark=spark)
    assert (out / "mine.txt").read_text() == "keep"


def test_a_remote_output_is_refused_before_the_run(spark):
    with pytest.raises(ValueError, match="must be a local directory"):
        nlspark.one_sample(np.ones((4, 3)), output="s3a://bucket/out", spark=spark)
