"""Contrast columns are design columns by name from Python too: a DataFrame in another order
tests what it names, and a misspelt name is a ValueError with the nearest one."""

import numpy as np
import pandas as pd
import pytest

import nlspark

RNG = np.random.default_rng(41)


def _study(n=16):
    age = RNG.normal(size=n)
    group = np.where(np.arange(n) < n // 2, -1.0, 1.0)
    x = RNG.normal(size=(n, 20)) + 0.8 * age[:, None]
    design = pd.DataFrame({"intercept": np.ones(n), "group": group, "age": age})
    return x, design


def test_a_dataframe_in_another_order_tests_the_named_columns(spark, tmp_path):
    x, design = _study()
    ordered = pd.DataFrame([[0.0, 0.0, 1.0]], columns=design.columns, index=["age"])
    swapped = pd.DataFrame([[1.0, 0.0, 0.0]], columns=["age", "intercept", "group"],
                           index=["age"])
    a = nlspark.glm(x, design, ordered, permutations=50, seed=1, output=tmp_path / "a",
                    spark=spark)
    b = nlspark.glm(x, design, swapped, permutations=50, seed=1, output=tmp_path / "b",
                    spark=spark)
    assert np.array_equal(a["tstat1"], b["tstat1"])
    assert np.array_equal(a["p_tstat1"], b["p_tstat1"])
    weights = b.summary["resampling"]["contrasts"]["tstat1"]["weights"]
    assert weights == {"intercept": 0.0, "group": 0.0, "age": 1.0}
    # against numpy's least squares: the age column's t
    d = design.to_numpy()
    beta, *_ = np.linalg.lstsq(d, x, rcond=None)
    resid = x - d @ beta
    se = np.sqrt((resid ** 2).sum(0) / (len(x) - 3) * np.linalg.inv(d.T @ d)[2, 2])
    np.testing.assert_allclose(b["tstat1"], beta[2] / se, rtol=1e-9)


def test_a_misspelt_contrast_column_is_a_value_error(spark, tmp_path):
    x, design = _study()
    bad = pd.DataFrame([[0.0, 1.0]], columns=["intercept", "grup"], index=["g"])
    with pytest.raises(ValueError, match=r"'grup' names no design column \(did you mean"
                                         r" 'group'\?\)"):
        nlspark.glm(x, design, bad, permutations=50, output=tmp_path / "bad", spark=spark)
    assert not (tmp_path / "bad" / "summary.json").exists()
