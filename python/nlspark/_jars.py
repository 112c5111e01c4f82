"""Which application jar goes with the installed pyspark. The Spark lines are the repository's
one table, conf/spark-lines.tsv, which python/copy-jars.sh copies into nlspark/jars/ with the
jars; a line is supported when its jar is there. (The pyspark range in python/pyproject.toml
follows the lines.)"""

import glob
import os

JAR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def spark_lines(jar_dir=JAR_DIR):
    """{line ('3.5'): the file pattern of its application jar} of the table the package holds."""
    table = os.path.join(jar_dir, "spark-lines.tsv")
    lines = {}
    if os.path.isfile(table):
        with open(table, encoding="utf-8") as f:
            for row in f:
                if row.startswith("#") or not row.strip():
                    continue
                line, _spark, _scala, _module, artifact = row.rstrip("\n").split("\t")[:5]
                lines[line] = artifact + "-*-app.jar"
    return lines


def spark_line(pyspark_version):
    """'3.5' for '3.5.3'."""
    return ".".join(pyspark_version.split(".")[:2])


def supported_lines(jar_dir=JAR_DIR):
    """The lines whose jar the package holds, in version order."""
    lines = spark_lines(jar_dir)
    have = [l for l, p in lines.items() if glob.glob(os.path.join(jar_dir, p))]
    return sorted(have, key=lambda l: tuple(int(v) for v in l.split(".")))


def jar_for(pyspark_version, jar_dir=JAR_DIR):
    """The path of the jar for this pyspark; ValueError in one sentence when there is none."""
    line = spark_line(pyspark_version)
    supported = supported_lines(jar_dir)
    pattern = spark_lines(jar_dir).get(line)
    found = sorted(glob.glob(os.path.join(jar_dir, pattern))) if pattern else []
    if not found:
        if not supported:
            raise ValueError(
                "Cannot use nlspark with pyspark %s: the package holds no jar in %s; build them"
                " (mvn -DskipTests package), copy them (python/copy-jars.sh) and reinstall"
                " ./python" % (pyspark_version, jar_dir))
        raise ValueError(
            "Cannot use nlspark with pyspark %s: this package has jars for the Spark lines %s"
            " only; install a pyspark of one of them (pip install 'pyspark==%s.*')"
            % (pyspark_version, ", ".join(supported), supported[-1]))
    return found[-1]
