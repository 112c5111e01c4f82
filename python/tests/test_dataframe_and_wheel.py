"""A Spark DataFrame with an array column as input, and the package installed from a built
wheel into a fresh virtual environment."""

import glob
import os
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


def test_the_wheel_installs_into_a_fresh_venv_and_runs(tmp_path):
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir",
                    str(dist), os.path.join(REPO, "python")], check=True, capture_output=True)
    wheels = glob.glob(str(dist / "nlspark-*.whl"))
    assert len(wheels) == 1
    with zipfile.ZipFile(wheels[0]) as z:
        jars = [n for n in z.namelist() if n.startswith("nlspark/jars/") and n.endswith(".jar")]
    assert jars, "the wheel carries no jar"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = str(venv / "bin" / "python")
    # the wheel and its dependencies, at the versions this suite runs with (it/python-tests.sh)
    pins = [p for p in os.environ.get("NLSPARK_TEST_VENV_PACKAGES", "").split()
            if p.split("==")[0] in ("pyspark", "numpy", "nibabel", "pandas")]
    p = subprocess.run([py, "-m", "pip", "install", "-q", "--disable-pip-version-check",
                        wheels[0]] + pins, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr[-3000:]
    script = (
        "import numpy as np, nlspark, os\n"
        "assert nlspark.__file__.startswith(%r), nlspark.__file__\n"
        "s = nlspark.session(master='local[1]')\n"
        "r = nlspark.one_sample(np.arange(12.0).reshape(4, 3) - 4, permutations=20)\n"
        "print('ok', r['observed'].shape, os.path.basename(nlspark.jar_path()))\n"
        "s.stop()\n" % str(venv))
    p = subprocess.run([py, "-c", script], capture_output=True, text=True, cwd=str(tmp_path),
                       env=dict(os.environ, SPARK_LOCAL_IP="127.0.0.1"), timeout=300)
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.strip() == "ok (3,) " + os.path.basename(nlspark.jar_path()), p.stdout
