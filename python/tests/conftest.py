"""One local[2] SparkSession for the whole suite, and the command line (bin/nlspark) to compare
with."""

import os
import subprocess

import pytest

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
NLSPARK = os.path.join(REPO, "bin", "nlspark")


@pytest.fixture(scope="session")
def spark():
    import nlspark
    s = nlspark.session(master="local[2]", app_name="nlspark python tests")
    yield s
    s.stop()


class Cli:
    """bin/nlspark, run as a user would (its own JVM)."""

    def run(self, *args, expect=0):
        import pyspark
        from nlspark import _jars
        # the command line on the Spark line of the installed pyspark (bin/nlspark NLSPARK_LINE)
        env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1",
                   NLSPARK_LINE=_jars.spark_line(pyspark.__version__))
        p = subprocess.run([NLSPARK] + [str(a) for a in args] + ["--master", "local[2]"],
                           capture_output=True, text=True, env=env, timeout=600)
        assert p.returncode == expect, "bin/nlspark %s: exit %d\n%s\n%s" % (
            " ".join(map(str, args)), p.returncode, p.stdout, p.stderr)
        return p


@pytest.fixture(scope="session")
def cli():
    return Cli()


def output_files(directory):
    """The data files of an output directory (summary.json and report.html carry times)."""
    return sorted(f for f in os.listdir(directory) if f.endswith((".npy", ".nii.gz")))


def assert_same_bytes(python_dir, cli_dir):
    py, cl = output_files(python_dir), output_files(cli_dir)
    assert py == cl, "python wrote %s, the command line %s" % (py, cl)
    assert py, "no output files"
    for f in py:
        with open(os.path.join(python_dir, f), "rb") as a, open(os.path.join(cli_dir, f), "rb") as b:
            assert a.read() == b.read(), "%s differs from the command line's" % f
