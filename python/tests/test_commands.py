"""Every function against the command line on the same inputs (same bytes), and its maps
against a brute-force reference written here."""

import os

import nibabel as nib
import numpy as np
import pandas as pd
import pytest

import nlspark
from conftest import assert_same_bytes

RNG = np.random.default_rng(20240)


def t_one_sample(x):
    n = x.shape[0]
    return x.mean(0) / (x.std(0, ddof=1) / np.sqrt(n))


def test_bootstrap(spark, cli, tmp_path):
    x = RNG.normal(size=(10, 40)) + 0.5
    np.save(tmp_path / "x.npy", x)
    r = nlspark.bootstrap(x, samples=200, seed=3, confidence=0.9, output=tmp_path / "py",
                          spark=spark)
    cli.run("bootstrap", "--input", tmp_path / "x.npy", "--samples", 200, "--seed", 3,
            "--confidence", 0.9, "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    # the bootstrap distribution of the mean: centred on the sample mean, spread its s.e.
    se = x.std(0, ddof=0) / np.sqrt(10)
    assert np.abs(r["mean"] - x.mean(0)).max() < 4 * se.max() / np.sqrt(200) + 1e-12
    np.testing.assert_allclose(r["std"], se, rtol=0.25)
    assert set(r.maps) == {"observed", "mean", "std", "ci_lower", "ci_upper", "z", "p"}
    np.testing.assert_allclose(r["observed"], x.mean(0), rtol=1e-12)
    assert r.report_html is not None and "<html" in r.report_html.lower()


def brain(n, shape=(6, 6, 4), effect=0.8):
    """n volumes of noise with a blob of effect in one corner, as a 4-D image."""
    data = RNG.normal(size=shape + (n,))
    data[1:4, 1:4, 1:3, :] += effect
    return nib.Nifti1Image(data, np.diag([2.0, 2.0, 2.0, 1.0]))


def test_one_sample_image_with_tfce(spark, cli, tmp_path):
    img = brain(10)
    nib.save(img, tmp_path / "x.nii.gz")
    r = nlspark.one_sample(img, permutations=100, seed=5, tfce=True, output=tmp_path / "py",
                           spark=spark)
    cli.run("one-sample", "--input", tmp_path / "x.nii.gz", "--permutations", 100, "--seed", 5,
            "--tfce", "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    data = img.get_fdata()
    t = t_one_sample(data.reshape(-1, 10).T)
    np.testing.assert_allclose(r["observed"], t, rtol=1e-10)
    # the grid: observed as an image equals the map laid back on it
    np.testing.assert_allclose(r.images["observed"].get_fdata().ravel(), t, rtol=1e-6)
    assert {"tfce", "p_tfce", "p_fwer_tfce"} <= set(r.maps)
    assert set(r.null_max) == {"null_max", "null_max_tfce"}
    assert r.null_max["null_max"].shape == (100,)
    r.write(tmp_path / "copy")
    assert_same_bytes(tmp_path / "copy", tmp_path / "cli")


def test_two_sample(spark, cli, tmp_path):
    x = RNG.normal(size=(8, 30)) + 0.4
    y = RNG.normal(size=(11, 30))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = nlspark.two_sample(x, y, permutations=100, tail="upper", output=tmp_path / "py",
                           spark=spark)
    cli.run("two-sample", "--input", tmp_path / "x.npy", "--input2", tmp_path / "y.npy",
            "--permutations", 100, "--tail", "upper", "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    vx, vy = x.var(0, ddof=1) / 8, y.var(0, ddof=1) / 11
    np.testing.assert_allclose(r["observed"], (x.mean(0) - y.mean(0)) / np.sqrt(vx + vy),
                               rtol=1e-10)


def test_correlation(spark, cli, tmp_path):
    x = RNG.normal(size=(15, 25))
    y = RNG.normal(size=15)
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = nlspark.correlation(x, y, permutations=100, fwer=False, output=tmp_path / "py",
                            spark=spark)
    cli.run("correlation", "--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy",
            "--permutations", 100, "--no-fwer", "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    ref = [np.corrcoef(x[:, j], y)[0, 1] for j in range(25)]
    np.testing.assert_allclose(r["observed"], ref, rtol=1e-10)
    assert "p_fwer" not in r.maps and not r.null_max


def test_glm_with_dataframes(spark, cli, tmp_path):
    n = 16
    age = RNG.normal(size=n)
    x = RNG.normal(size=(n, 30)) + 0.7 * age[:, None]
    design = pd.DataFrame({"intercept": np.ones(n), "age": age})
    contrasts = pd.DataFrame([[0.0, 1.0]], columns=design.columns, index=["age"])
    np.save(tmp_path / "x.npy", x)
    design.to_csv(tmp_path / "design.csv", index=False)
    with open(tmp_path / "con.csv", "w") as f:
        f.write("name,intercept,age\nage,0,1\n")
    r = nlspark.glm(x, design, contrasts, permutations=100, seed=2, output=tmp_path / "py",
                    spark=spark)
    cli.run("glm", "--input", tmp_path / "x.npy", "--design", tmp_path / "design.csv",
            "--contrasts", tmp_path / "con.csv", "--permutations", 100, "--seed", 2,
            "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    d = design.to_numpy()
    beta, *_ = np.linalg.lstsq(d, x, rcond=None)
    resid = x - d @ beta
    sigma2 = (resid ** 2).sum(0) / (n - 2)
    se = np.sqrt(sigma2 * np.linalg.inv(d.T @ d)[1, 1])
    np.testing.assert_allclose(r["tstat1"], beta[1] / se, rtol=1e-9)


def test_glm_with_variance_smoothing(spark, cli, tmp_path):
    n = 12
    img = brain(n)
    nib.save(img, tmp_path / "x.nii.gz")
    design = pd.DataFrame({"intercept": np.ones(n), "group": (np.arange(n) % 2).astype(float)})
    contrasts = pd.DataFrame([[0.0, 1.0]], columns=design.columns, index=["group"])
    design.to_csv(tmp_path / "design.csv", index=False)
    with open(tmp_path / "con.csv", "w") as f:
        f.write("name,intercept,group\ngroup,0,1\n")
    r = nlspark.glm(img, design, contrasts, permutations=50, seed=2, variance_smoothing=3.0,
                    output=tmp_path / "py", spark=spark)
    cli.run("glm", "--input", tmp_path / "x.nii.gz", "--design", tmp_path / "design.csv",
            "--contrasts", tmp_path / "con.csv", "--permutations", 50, "--seed", 2,
            "--variance-smoothing", 3.0, "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    plain = nlspark.glm(img, design, contrasts, permutations=50, seed=2,
                        output=tmp_path / "plain", spark=spark)
    # the pseudo-t scales each t by a positive factor: same signs, other values
    assert np.array_equal(np.sign(r["tstat1"]), np.sign(plain["tstat1"]))
    assert not np.allclose(r["tstat1"], plain["tstat1"])


def test_isc(spark, cli, tmp_path):
    shared = RNG.normal(size=(30, 1))
    x = np.stack([shared + RNG.normal(size=(30, 12)) for _ in range(5)])
    np.save(tmp_path / "x.npy", x)
    r = nlspark.isc(x, samples=100, output=tmp_path / "py", spark=spark)
    cli.run("isc", "--input", tmp_path / "x.npy", "--samples", 100, "--output",
            tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    ref = []
    for v in range(12):
        rs = [np.corrcoef(x[i, :, v], x[j, :, v])[0, 1] for i in range(5) for j in range(i + 1, 5)]
        ref.append(np.median(rs))
    np.testing.assert_allclose(r["isc"], ref, rtol=1e-10)


def test_timeseries_correlation(spark, cli, tmp_path):
    x = RNG.normal(size=(40, 20))
    y = np.cumsum(RNG.normal(size=40))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = nlspark.timeseries_correlation(x, y, permutations=100, null="phase-randomize",
                                       output=tmp_path / "py", spark=spark)
    cli.run("timeseries-correlation", "--input", tmp_path / "x.npy", "--target",
            tmp_path / "y.npy", "--permutations", 100, "--null", "phase-randomize",
            "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    ref = [np.corrcoef(x[:, j], y)[0, 1] for j in range(20)]
    np.testing.assert_allclose(r["observed"], ref, rtol=1e-10)


def test_ridge_bootstrap(spark, cli, tmp_path):
    x = RNG.normal(size=(30, 4))
    y = x @ RNG.normal(size=(4, 3)) + 0.1 * RNG.normal(size=(30, 3))
    np.save(tmp_path / "x.npy", x)
    np.save(tmp_path / "y.npy", y)
    r = nlspark.ridge_bootstrap(x, y, alpha=0.5, samples=100, output=tmp_path / "py",
                                spark=spark)
    cli.run("ridge-bootstrap", "--input", tmp_path / "x.npy", "--target", tmp_path / "y.npy",
            "--alpha", 0.5, "--samples", 100, "--output", tmp_path / "cli", "--quiet")
    assert_same_bytes(tmp_path / "py", tmp_path / "cli")
    full = np.linalg.solve(x.T @ x + 0.5 * np.eye(4), x.T @ y)
    assert r["mean"].shape == (4, 3)
    # the bootstrap mean of the ridge weights lies near the full-data solution
    assert np.abs(r["mean"] - full).max() < 0.2


def test_paths_pass_as_they_are(spark, tmp_path):
    x = RNG.normal(size=(6, 10))
    np.save(tmp_path / "x.npy", x)
    a = nlspark.one_sample(str(tmp_path / "x.npy"), permutations=50, spark=spark)
    b = nlspark.one_sample(x, permutations=50, spark=spark)
    np.testing.assert_array_equal(a["p"], b["p"])
    assert a.summary["argv"] if "argv" in a.summary else True


def test_list_of_images_is_a_study(spark, tmp_path):
    img = brain(6)
    vols = [nib.Nifti1Image(img.get_fdata()[..., i], img.affine) for i in range(6)]
    a = nlspark.one_sample(vols, permutations=50, spark=spark)
    b = nlspark.one_sample(img, permutations=50, spark=spark)
    np.testing.assert_array_equal(a["observed"], b["observed"])
    np.testing.assert_array_equal(a["p"], b["p"])
