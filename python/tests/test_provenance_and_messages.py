"""A Python run records the call that reproduces it (the staged files it ran on are gone), and
its errors name the arguments and the user's own paths, never a staged file or a flag."""

import nibabel as nib
import numpy as np
import pandas as pd
import pytest

import nlspark

RNG = np.random.default_rng(7)


def _design(n):
    return pd.DataFrame({"intercept": np.ones(n), "age": RNG.normal(size=n)})


def test_summary_and_report_record_the_python_call(spark, tmp_path):
    n = 12
    x = RNG.normal(size=(n, 15))
    design = _design(n)
    contrasts = pd.DataFrame([[0.0, 1.0]], columns=design.columns, index=["age"])
    r = nlspark.glm(x, design, contrasts, permutations=40, seed=3, output=tmp_path / "out",
                    spark=spark)
    python = r.summary["python"]
    assert r.summary["command_line"] is None
    call = python["call"]
    assert call.startswith("nlspark.glm(input=<array (12, 15) float64 sha256:")
    assert "design=<DataFrame 12x2 (intercept, age) sha256:" in call
    assert call.endswith("permutations=40, output=%r, seed=3)" % str(tmp_path / "out"))
    assert "nlspark-in-" not in call
    args = python["arguments"]
    import hashlib
    assert args["input"] == {"kind": "array", "shape": [12, 15], "dtype": "float64",
                             "sha256": hashlib.sha256(x.tobytes()).hexdigest()}
    assert args["output"] == str(tmp_path / "out")
    import html
    assert "To reproduce:</p><pre class=\"command-line\">nlspark.glm(input=<array (12, 15)" \
        in html.unescape(r.report_html)
    assert "nlspark-in-" not in r.report_html


def test_paths_are_recorded_as_the_user_gave_them(spark, tmp_path, monkeypatch):
    files = []
    for i in range(6):
        img = nib.Nifti1Image(RNG.normal(size=(3, 3, 2)).astype(np.float32) + 1, np.eye(4))
        path = tmp_path / ("sub-%02d.nii.gz" % (i + 1))
        nib.save(img, path)
        files.append(str(path))
    monkeypatch.chdir(tmp_path)
    r = nlspark.one_sample(["sub-01.nii.gz"] + files[1:], permutations=20,
                           output=tmp_path / "o", spark=spark)
    assert r.summary["python"]["arguments"]["input"] == files
    assert r.summary["python"]["call"].startswith("nlspark.one_sample(input=[%r" % files[0])


def test_errors_name_the_argument_and_the_users_paths(spark, tmp_path):
    missing = str(tmp_path / "sub-02.nii.gz")
    img = nib.Nifti1Image(np.ones((2, 2, 2), np.float32), np.eye(4))
    nib.save(img, tmp_path / "sub-01.nii.gz")
    with pytest.raises(ValueError, match=r"^input=\[1\] names .*sub-02\.nii\.gz, which does not"
                                         r" exist$"):
        nlspark.one_sample([str(tmp_path / "sub-01.nii.gz"), missing], spark=spark)
    n = 10
    design = _design(n)
    design["nothing"] = 0.0
    contrasts = pd.DataFrame([[0.0, 1.0, 0.0]], columns=design.columns)
    with pytest.raises(ValueError) as e:
        nlspark.glm(RNG.normal(size=(n, 5)), design, contrasts, permutations=10, spark=spark)
    message = str(e.value)
    assert message.startswith("Cannot fit the design design=: column 3 (nothing) is all zero")
    assert "nlspark-in-" not in message and "--" not in message
    with pytest.raises(ValueError) as e:
        nlspark.one_sample(RNG.normal(size=(n, 5)), tail="sideways", spark=spark)
    assert "tail=" in str(e.value) and "--tail" not in str(e.value)


def test_an_in_memory_mask_is_kept_beside_the_outputs_and_the_report_drawn(spark, tmp_path,
                                                                          capfd):
    # the staged mask is gone when the call returns: written as mask.nii.gz, as a computed
    # mask is, so the report (and a later nlspark report) can draw the maps
    rng = np.random.default_rng(2)
    affine = np.diag([2.0, 2.0, 2.0, 1.0])
    imgs = [nib.Nifti1Image(rng.normal(size=(5, 4, 3)).astype(np.float32), affine)
            for _ in range(8)]
    m = np.zeros((5, 4, 3), np.uint8)
    m[1:4, 1:3, :] = 1
    r = nlspark.one_sample(imgs, mask=nib.Nifti1Image(m, affine), permutations=20,
                           output=tmp_path / "out", spark=spark)
    assert "report.html not written" not in capfd.readouterr().err
    assert (tmp_path / "out" / "report.html").is_file()
    kept = nib.load(str(tmp_path / "out" / "mask.nii.gz"))
    np.testing.assert_array_equal(kept.get_fdata() > 0, m > 0)
    assert "mask.nii.gz" in r.summary["files"]
    assert r.summary["grid"]["mask_source"] == "mask="
