"""A Spark DataFrame with an array column as input, and the package installed from a built
wheel into a fresh virtual environment."""

import glob
import os
import shutil
import subprocess
import sys
import zipfile

import numpy as np

import nlspark
from conftest import REPO, assert_same_bytes


def test_a_spark_dataframe_with_an_array_column(spark, tmp_path):
    rng = np.random.default_rng(11)
    x = rng.normal(size=(9, 25)) + 0.2
    # rows out of order on purpose: order_by puts them back
    rows = [(int(i), [float(v) for v in x[i]]) for i in rng.permutation(9)]
    df = spark.createDataFrame(rows, "subject long, voxels array<double>").repartition(3)
    a = nlspark.one_sample(df, column="voxels", order_by="subject", permutations=100, seed=4,
                           output=tmp_path / "df", spark=spark)
    b = nlspark.one_sample(x, permutations=100, seed=4, output=tmp_path / "npy", spark=spark)
    assert_same_bytes(tmp_path / "df", tmp_path / "npy")
    np.testing.assert_allclose(a["observed"], x.mean(0) / (x.std(0, ddof=1) / 3), rtol=1e-10)


def test_a_missing_column_is_the_command_lines_error(spark):
    df = spark.createDataFrame([([1.0, 2.0],), ([3.0, 1.0],)], "v array<double>")
    try:
        nlspark.bootstrap(df, samples=10, spark=spark)
    except ValueError as e:
        assert "voxels" in str(e)
    else:
        raise AssertionError("a DataFrame without the column voxels was accepted")


def _path_without_maven(tmp_path):
    """A PATH of one directory linking every command of PATH but Maven's (mvn shares /usr/bin
    with java, bash and the rest): the wheel must build its refusal, install and run without it."""
    farm = tmp_path / "path-without-maven"
    farm.mkdir()
    for d in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(d):
            continue
        for name in os.listdir(d):
            target = os.path.join(d, name)
            if name in ("mvn", "mvnw", "mvnDebug") or os.path.lexists(farm / name):
                continue
            if os.path.isfile(target) and os.access(target, os.X_OK):
                os.symlink(target, farm / name)
    return str(farm)


def test_the_wheel_installs_into_a_fresh_venv_and_runs(tmp_path):
    dist = tmp_path / "dist"
    built = subprocess.run([os.path.join(REPO, "bin", "build-wheel"), str(dist)],
                           capture_output=True, text=True,
                           env=dict(os.environ, NLSPARK_PYTHON_BIN=sys.executable))
    assert built.returncode == 0, built.stderr[-3000:]
    wheels = glob.glob(str(dist / "nlspark-*-py3-none-any.whl"))
    assert len(wheels) == 1, os.listdir(dist)
    assert built.stdout.strip().endswith("pip install " + wheels[0]), built.stdout
    with zipfile.ZipFile(wheels[0]) as z:
        jars = sorted(os.path.basename(n) for n in z.namelist()
                      if n.startswith("nlspark/jars/") and n.endswith("-app.jar"))
    # one jar per Spark line of the repository's table
    with open(os.path.join(REPO, "conf", "spark-lines.tsv"), encoding="utf-8") as f:
        artifacts = sorted(r.rstrip("\n").split("\t")[4] for r in f
                           if r.strip() and not r.startswith("#"))
    assert [j.split("-0.")[0] for j in jars] == artifacts, jars
    venv = tmp_path / "venv"
    no_maven = dict(os.environ, PATH=_path_without_maven(tmp_path), SPARK_LOCAL_IP="127.0.0.1")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    # the wheel and its dependencies, at the versions this suite runs with (it/python-tests.sh)
    pins = [p for p in os.environ.get("NLSPARK_TEST_VENV_PACKAGES", "").split()
            if p.split("==")[0] in ("pyspark", "numpy", "nibabel", "pandas")]
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        wheels[0]] + pins, capture_output=True, text=True, env=no_maven)
    assert p.returncode == 0, p.stderr[-3000:]
    script = (
        "import numpy as np, nlspark, os, shutil\n"
        "assert shutil.which('mvn') is None\n"
        "assert nlspark.__file__.startswith(%r), nlspark.__file__\n"
        "s = nlspark.session(master='local[1]')\n"
        "r = nlspark.one_sample(np.arange(12.0).reshape(4, 3) - 4, permutations=20)\n"
        "print('ok', r['observed'].shape, os.path.basename(nlspark.jar_path()))\n"
        "s.stop()\n" % str(venv))
    p = subprocess.run([py, "-c", script], capture_output=True, text=True, cwd=str(tmp_path),
                       env=no_maven, timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "ok (3,) " + os.path.basename(nlspark.jar_path()), p.stdout
    # the wheel carries the command line's logging: a new session is quiet
    assert p.stderr == "", p.stderr


def test_building_the_wheel_without_jars_or_maven_fails_in_one_sentence(tmp_path):
    # the script and the lines' table alone: no jar is built, and Maven is not on PATH
    path = _path_without_maven(tmp_path)
    (tmp_path / "bin").mkdir()
    (tmp_path / "conf").mkdir()
    shutil.copy(os.path.join(REPO, "bin", "build-wheel"), tmp_path / "bin")
    shutil.copy(os.path.join(REPO, "conf", "spark-lines.tsv"), tmp_path / "conf")
    p = subprocess.run([str(tmp_path / "bin" / "build-wheel")], capture_output=True, text=True,
                       env=dict(os.environ, PATH=path))
    assert p.returncode == 1
    assert p.stderr.count("\n") == 1, p.stderr
    assert p.stderr.startswith("build-wheel: the jars of Spark 4.2, 3.5 must be built first and"
                               " Maven is not on PATH; install Maven"), p.stderr
    assert not (tmp_path / "dist").exists()
