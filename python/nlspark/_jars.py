"""Which application jar goes with the installed pyspark: the one table of Spark lines."""

import glob
import os

# pyspark major.minor -> the application jar of that Spark line, as a file pattern under
# nlspark/jars/ (copied there by python/copy-jars.sh). A new Spark line is one entry here, one
# in python/copy-jars.sh, and the pyspark range in python/pyproject.toml.
SPARK_LINES = {
    "3.5": "nlspark-spark-jobs-*-app.jar",
}

JAR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def spark_line(pyspark_version):
    """'3.5' for '3.5.3'."""
    return ".".join(pyspark_version.split(".")[:2])


def jar_for(pyspark_version, jar_dir=JAR_DIR):
    """The path of the jar for this pyspark; ValueError in one sentence when there is none."""
    line = spark_line(pyspark_version)
    pattern = SPARK_LINES.get(line)
    if pattern is None:
        raise ValueError(
            "Cannot use nlspark with pyspark %s: this package has jars for the Spark lines %s only;"
            " install a pyspark of one of them (pip install 'pyspark==%s.*')"
            % (pyspark_version, ", ".join(sorted(SPARK_LINES)), max(SPARK_LINES)))
    found = sorted(glob.glob(os.path.join(jar_dir, pattern)))
    if not found:
        raise ValueError(
            "Cannot use nlspark with pyspark %s: the package holds no jar %s in %s; build it"
            " (mvn -DskipTests package), copy it (python/copy-jars.sh) and reinstall ./python"
            % (pyspark_version, pattern, jar_dir))
    return found[-1]
