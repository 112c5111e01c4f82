"""Arguments read as written and refused in Python's terms (issue 41, cases 10, 21, 23):
blocks as labels or whole numbers, numbers in the command line's types, tables checked before
they become CSV, one contrast as a dict, and no Java stack trace for a refused input."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import nlspark
from nlspark import commands

RNG = np.random.default_rng(2341)


def staged(tmp_path):
    from nlspark._inputs import Staging
    return Staging(str(tmp_path), None)


def blocks_written(tmp_path, b):
    with open(commands._blocks(staged(tmp_path), b), encoding="utf-8") as f:
        return [int(line) for line in f]


def test_blocks_are_read_as_written(tmp_path):
    assert blocks_written(tmp_path, ["famB", "famA", "famB", "famC"]) == [1, 2, 1, 3]
    assert blocks_written(tmp_path, pd.Series(["a", "a", "b"])) == [1, 1, 2]
    assert blocks_written(tmp_path, np.array([3.0, 3.0, -1.0])) == [3, 3, -1]
    with pytest.raises(ValueError, match=r"exchangeability_blocks= holds 1\.1 at position 0"):
        commands._blocks(staged(tmp_path), [1.1] * 10 + [1.9] * 10)
    with pytest.raises(ValueError, match=r"exchangeability_blocks= holds 'a' at position 1"):
        commands._blocks(staged(tmp_path), [1, "a"])
    with pytest.raises(ValueError, match="exchangeability_blocks= holds True"):
        commands._blocks(staged(tmp_path), [True, False])


def test_string_blocks_run_as_labels(spark, tmp_path):
    n = 12
    x = RNG.normal(size=(n, 10))
    design = pd.DataFrame({"intercept": np.ones(n), "group": np.repeat([0.0, 1.0], n // 2)})
    families = ["fam%d" % (i % 3) for i in range(n)]
    a = nlspark.glm(x, design, pd.DataFrame([[0, 1]], columns=["intercept", "group"]),
                    exchangeability_blocks=families, permutations=30, seed=2,
                    output=tmp_path / "labels", spark=spark)
    b = nlspark.glm(x, design, pd.DataFrame([[0, 1]], columns=["intercept", "group"]),
                    exchangeability_blocks=[i % 3 + 1 for i in range(n)], permutations=30,
                    seed=2, output=tmp_path / "ids", spark=spark)
    np.testing.assert_array_equal(a["p_tstat1"], b["p_tstat1"])


def test_multi_level_blocks_are_palms_tree(spark, tmp_path):
    """PALM's [-1, family, subject] table is within-family shuffling: the bytes of one column."""
    n = 12
    x = RNG.normal(size=(n, 10))
    design = pd.DataFrame({"intercept": np.ones(n), "age": RNG.normal(size=n)})
    contrast = pd.DataFrame([[0, 1]], columns=["intercept", "age"])
    tree = pd.DataFrame({"top": -1, "family": [i // 2 + 1 for i in range(n)],
                         "subject": range(1, n + 1)})
    a = nlspark.glm(x, design, contrast, exchangeability_blocks=tree, permutations=100,
                    seed=2, output=tmp_path / "tree", spark=spark)
    b = nlspark.glm(x, design, contrast, exchangeability_blocks=[i // 2 for i in range(n)],
                    permutations=100, seed=2, output=tmp_path / "one", spark=spark)
    np.testing.assert_array_equal(a["p_tstat1"], b["p_tstat1"])
    draws = a.summary["resampling"]["contrasts"]["tstat1"]
    assert draws["exchangeability_levels"] == 3
    assert draws["draws_possible"] == 64 and draws["exact_enumeration"] is True
    with pytest.raises(ValueError, match=r"holds 1\.5 at row 2, column 1, which is not a"
                                         r" whole-number block id; give whole numbers \(their"):
        commands._blocks(staged(tmp_path), [[-1, 1], [-1, 1], [-1, 1.5]])
    with pytest.raises(ValueError, match="the first column holds -1 for sample 1 but 1 for"
                                         " sample 2"):
        nlspark.glm(x, design, contrast, exchangeability_blocks=tree.assign(
                        top=[-1] + [1] * (n - 1)), permutations=10, output=tmp_path / "bad",
                    spark=spark)


def test_variance_groups_give_v(spark, tmp_path):
    """Two variance groups: the Aspin-Welch v (vstat1), equal to PALM's formula; one group: t."""
    n = 16
    x = RNG.normal(size=(n, 6)) * np.repeat([1.0, 3.0], n // 2)[:, None]
    age = RNG.normal(size=n)
    design = pd.DataFrame({"intercept": np.ones(n), "age": age})
    contrast = pd.DataFrame([[0, 1]], columns=["intercept", "age"])
    groups = [1] * (n // 2) + [2] * (n // 2)
    r = nlspark.glm(x, design, contrast, variance_groups=groups, permutations=50,
                    output=tmp_path / "vg", spark=spark)
    m = design.to_numpy()
    pinv = np.linalg.pinv(m)
    psi = pinv @ x
    res = x - m @ psi
    d_rm = np.diag(np.eye(n) - m @ pinv)
    g = np.asarray(groups)
    want = []
    for v in range(x.shape[1]):
        w = {b: d_rm[g == b].sum() / (res[g == b, v] ** 2).sum() for b in (1, 2)}
        cte = sum(w[b] * m[g == b].T @ m[g == b] for b in (1, 2))
        c = np.array([0.0, 1.0])
        want.append(c @ psi[:, v] / np.sqrt(c @ np.linalg.inv(cte) @ c))
    np.testing.assert_allclose(r["vstat1"], want, rtol=1e-10)
    # Two groups with their own means: v is Welch's two-sample t, as scipy computes it.
    two = pd.DataFrame({"intercept": np.ones(n), "group": (g == 2).astype(float)})
    r2 = nlspark.glm(x, two, pd.DataFrame([[0, 1]], columns=["intercept", "group"]),
                     variance_groups=groups, permutations=20, output=tmp_path / "welch",
                     spark=spark)
    welch = stats.ttest_ind(x[g == 2], x[g == 1], equal_var=False)
    np.testing.assert_allclose(r2["vstat1"], welch.statistic, rtol=1e-10)
    t = nlspark.glm(x, design, contrast, variance_groups=[5] * n, permutations=50,
                    output=tmp_path / "one", spark=spark)
    assert "tstat1" in t.maps and "vstat1" not in t.maps
    with pytest.raises(ValueError, match=r"variance_groups= must be one id per sample, but its"
                                         r" shape is \(2, 2\)"):
        commands._blocks(staged(tmp_path), [[1, 2], [3, 4]], "variance_groups", "vg.txt",
                         levels=False)


@pytest.mark.parametrize("kw, message", [
    (dict(seed=2 ** 63), r"seed= must be in \[-9223372036854775808, 9223372036854775807\],"
                         r" but was 9223372036854775808"),
    (dict(seed=2 ** 70), r"seed= must be in .* but was 1180591620717411303424"),
    (dict(seed=True), r"seed= must be a whole number, but was True"),
    (dict(seed=1.5), r"seed= must be a whole number, but was 1\.5"),
    (dict(permutations=0), r"permutations= must be in \[1, "),
    (dict(permutations=float("nan")), r"permutations= must be a whole number, but was nan"),
    (dict(permutations=True), r"permutations= must be a whole number, but was True"),
    (dict(tfce=1), r"tfce= must be True or False, but was 1"),
    (dict(cluster_threshold=float("inf")), r"cluster_threshold= must be a finite number"),
    (dict(staging_dir="/nonexistent/nlspark"), r"staging_dir=/nonexistent/nlspark: it is not"
                                               r" an existing directory"),
])
def test_numbers_in_python_terms(spark, kw, message):
    with pytest.raises(ValueError, match=message):
        nlspark.one_sample(np.ones((4, 3)), spark=spark, **kw)


def test_a_whole_float_is_the_whole_number():
    assert commands._options(dict(permutations=1e9), dict(permutations=5000)) == [
        "--permutations", "1000000000"]
    assert commands._options(dict(seed=np.int64(7)), dict(seed=0)) == ["--seed", "7"]


def design_and_data(n=10):
    design = pd.DataFrame({"intercept": np.ones(n), "age": np.linspace(-1, 1, n)})
    return RNG.normal(size=(n, 8)), design


def test_nan_and_text_in_a_design_are_named(spark):
    x, design = design_and_data()
    design.loc[7, "age"] = np.nan
    with pytest.raises(ValueError, match=r"^design= has NaN in column 'age' at row 7;"):
        nlspark.glm(x, design, {"age": 1}, permutations=10, spark=spark)
    design["age"] = design["age"].astype(object)
    design.loc[7, "age"] = "old"
    with pytest.raises(ValueError, match=r"^design= has 'old' in column 'age' at row 7, which"
                                         r" is not a number"):
        nlspark.glm(x, design, {"age": 1}, permutations=10, spark=spark)
    design = design.rename(columns={"age": "age, years"})
    with pytest.raises(ValueError, match=r"^design= has the column 'age, years'"):
        nlspark.glm(x, design, {"age, years": 1}, permutations=10, spark=spark)


def test_a_dict_or_series_is_one_contrast_by_name(spark, tmp_path):
    x, design = design_and_data()
    frame = nlspark.glm(x, design, pd.DataFrame([[0.0, 1.0]], columns=["intercept", "age"]),
                        permutations=20, seed=1, output=tmp_path / "frame", spark=spark)
    as_dict = nlspark.glm(x, design, {"intercept": 0, "age": 1}, permutations=20, seed=1,
                          output=tmp_path / "dict", spark=spark)
    series = nlspark.glm(x, design, pd.Series({"intercept": 0, "age": 1}), permutations=20,
                         seed=1, output=tmp_path / "series", spark=spark)
    for r in (as_dict, series):
        np.testing.assert_array_equal(r["tstat1"], frame["tstat1"])


def test_a_bool_column_is_an_indicator(spark, tmp_path):
    x, design = design_and_data()
    design["group"] = np.arange(10) % 2 == 0
    numbers = design.assign(group=design["group"].astype(float))
    contrast = {"intercept": 0, "age": 0, "group": 1}
    a = nlspark.glm(x, design, contrast, permutations=20, seed=1, output=tmp_path / "b",
                    spark=spark)
    b = nlspark.glm(x, numbers, contrast, permutations=20, seed=1, output=tmp_path / "f",
                    spark=spark)
    np.testing.assert_array_equal(a["tstat1"], b["tstat1"])


def test_a_named_contrast_over_an_array_design_is_refused(spark):
    x, design = design_and_data()
    with pytest.raises(ValueError, match=r"^contrasts= names columns \(age, intercept\) but"
                                         r" design= is an array without column names; pass"
                                         r" design as a pandas DataFrame"):
        nlspark.glm(x, design.to_numpy(),
                    pd.DataFrame([[1.0, 0.0]], columns=["age", "intercept"]), spark=spark)
    with pytest.raises(ValueError, match=r"^contrasts= names columns \(age\)"):
        nlspark.glm(x, design.to_numpy(), pd.Series({"age": 1.0}), spark=spark)


def test_a_refused_order_by_key_prints_no_java_stack(tmp_path):
    script = textwrap.dedent("""
        import numpy as np, nlspark
        spark = nlspark.session(master="local[1]")
        rows = [(None if i == 3 else i, [float(i), 1.0, 2.0]) for i in range(6)]
        df = spark.createDataFrame(rows, "subject int, voxels array<double>")
        jvm = spark.sparkContext._jvm
        logger = jvm.org.apache.logging.log4j.LogManager.getLogger(
            "org.apache.spark.executor.Executor")
        print("Executor level before:", logger.getLevel().toString())
        try:
            nlspark.one_sample(df, column="voxels", order_by="subject", permutations=10)
        except ValueError as e:
            print("ValueError:", e)
        print("Executor level after:", logger.getLevel().toString())
        import sys
        print("---- a failing job of the user's own", file=sys.stderr, flush=True)
        try:
            spark.range(1).rdd.map(lambda r: 1 / 0).collect()
        except Exception:
            pass
        spark.stop()
    """)
    env = dict(os.environ, SPARK_LOCAL_IP="127.0.0.1")
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                       env=env, timeout=300, cwd=str(tmp_path))
    assert "ValueError: Cannot order" in p.stdout, p.stdout + p.stderr
    assert "has no key (null)" in p.stdout
    ours, theirs = p.stderr.split("---- a failing job of the user's own")
    assert "ERROR Executor" not in ours and "\tat org.nlspark" not in ours, ours
    # quiet only while nlspark runs: the user's own failed task is logged as before
    assert "ERROR Executor" in theirs, theirs
    # the logger is as it was before the run
    before = p.stdout.split("Executor level before: ")[1].split()[0]
    assert "Executor level after: " + before in p.stdout, p.stdout
