"""Which application jar goes with the installed pyspark. The Spark lines are the repository's
one table, conf/spark-lines.tsv, which python/copy-jars.sh copies into nlspark/jars/ with the
jars; its pyspark column names the pyspark minors each line's jar serves (4.2's jar runs on
pyspark 4.2 and 4.3), and a line is supported when its jar is there. (The pyspark range in
python/pyproject.toml admits exactly those minors; a test checks it.)"""

import glob
import os

JAR_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars")


def _rows(jar_dir=JAR_DIR):
    """The table's rows: (line, artifact, [pyspark minors whose package uses that line's jar])."""
    table = os.path.join(jar_dir, "spark-lines.tsv")
    rows = []
    if os.path.isfile(table):
        with open(table, encoding="utf-8") as f:
            for row in f:
                if row.startswith("#") or not row.strip():
                    continue
                line, _spark, _scala, _module, artifact, pyspark = row.rstrip("\n").split("\t")[:6]
                rows.append((line, artifact, pyspark.split(",")))
    return rows


def _version_key(minor):
    return tuple(int(v) for v in minor.split("."))


def spark_lines(jar_dir=JAR_DIR):
    """{line ('3.5'): the file pattern of its application jar} of the table the package holds."""
    return {line: artifact + "-*-app.jar" for line, artifact, _ in _rows(jar_dir)}


def spark_line(pyspark_version, jar_dir=JAR_DIR):
    """The line whose jar serves this pyspark ('4.2' for '4.3.0'); its own minor when none does."""
    minor = ".".join(pyspark_version.split(".")[:2])
    for line, _, minors in _rows(jar_dir):
        if minor in minors:
            return line
    return minor


def supported_lines(jar_dir=JAR_DIR):
    """The lines whose jar the package holds, in version order."""
    lines = spark_lines(jar_dir)
    have = [l for l, p in lines.items() if glob.glob(os.path.join(jar_dir, p))]
    return sorted(have, key=_version_key)


def supported_pyspark(jar_dir=JAR_DIR):
    """The pyspark minor versions the package runs on (those of the lines it holds a jar of)."""
    have = set(supported_lines(jar_dir))
    minors = [m for line, _, ms in _rows(jar_dir) if line in have for m in ms]
    return sorted(minors, key=_version_key)


def jar_for(pyspark_version, jar_dir=JAR_DIR):
    """The path of the jar for this pyspark; ValueError in one sentence when there is none."""
    line = spark_line(pyspark_version, jar_dir)
    pattern = spark_lines(jar_dir).get(line)
    found = sorted(glob.glob(os.path.join(jar_dir, pattern))) if pattern else []
    if not found:
        minors = supported_pyspark(jar_dir)
        if not minors:
            raise ValueError(
                "Cannot use nlspark with pyspark %s: the package holds no jar in %s; build the"
                " wheel (bin/build-wheel) and install it" % (pyspark_version, jar_dir))
        raise ValueError(
            "Cannot use nlspark with pyspark %s: this package runs on pyspark %s only; install"
            " one of them (pip install 'pyspark==%s.*')"
            % (pyspark_version, ", ".join(minors), minors[-1]))
    return found[-1]
