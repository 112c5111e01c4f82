"""Result.write under the command line's --output rules (issue 41, cases 5, 14), and results
read back whatever NIfTI version they were written in (case 20)."""

import json
import os

import nibabel as nib
import numpy as np
import pytest

import nlspark

RNG = np.random.default_rng(4141)


def one_sample(spark, tmp_path, name, **kw):
    x = RNG.normal(size=(8, 30)) + 0.3
    return nlspark.one_sample(x, permutations=20, seed=kw.pop("seed", 1),
                              output=tmp_path / name, spark=spark, **kw)


def image_result(spark, tmp_path, name, tfce, seed=1):
    data = RNG.normal(size=(5, 5, 3, 8)) + 0.4
    img = nib.Nifti1Image(data, np.eye(4))
    return nlspark.one_sample(img, permutations=20, seed=seed, tfce=tfce,
                              output=tmp_path / name, spark=spark)


def snapshot(directory):
    out = {}
    for f in sorted(os.listdir(directory)):
        p = os.path.join(directory, f)
        if os.path.isfile(p) and not os.path.islink(p):
            with open(p, "rb") as fh:
                out[f] = fh.read()
    return out


def test_a_directory_nlspark_never_wrote_is_refused_and_kept(spark, tmp_path):
    r = one_sample(spark, tmp_path, "run")
    mine = tmp_path / "mine"
    mine.mkdir()
    np.save(mine / "p.npy", np.arange(3.0))
    (mine / "summary.json").write_text('{"my": "own"}\n')
    before = snapshot(mine)
    for overwrite in (False, True):
        with pytest.raises(ValueError) as e:
            r.write(mine, overwrite=overwrite)
        assert "Result.write" in str(e.value) and "--" not in str(e.value), str(e.value)
        assert snapshot(mine) == before
    assert sorted(os.listdir(mine)) == ["p.npy", "summary.json"]


def test_a_symlink_in_an_earlier_result_is_replaced_not_followed(spark, tmp_path):
    first = one_sample(spark, tmp_path, "first")
    second = one_sample(spark, tmp_path, "second", seed=2)
    target = tmp_path / "copy"
    first.write(target)
    precious = tmp_path / "precious.npy"
    np.save(precious, np.arange(5.0))
    kept = precious.read_bytes()
    os.remove(target / "observed.npy")
    os.symlink("../precious.npy", target / "observed.npy")
    second.write(target, overwrite=True)
    assert precious.read_bytes() == kept
    assert not os.path.islink(target / "observed.npy")
    assert snapshot(target) == snapshot(second.path)


def test_overwriting_an_older_result_leaves_no_stale_maps(spark, tmp_path):
    with_tfce = image_result(spark, tmp_path, "tfce", tfce=True)
    without = image_result(spark, tmp_path, "plain", tfce=False, seed=2)
    target = tmp_path / "copy"
    with_tfce.write(target)
    assert any(f.startswith("tfce") for f in os.listdir(target))
    without.write(target, overwrite=True)
    assert sorted(os.listdir(target)) == sorted(os.listdir(without.path))
    assert snapshot(target) == snapshot(without.path)
    summary = json.loads((target / "summary.json").read_text())
    assert not any("tfce" in f for f in summary["outputs"])


def test_a_directory_in_the_way_refuses_before_anything_is_replaced(spark, tmp_path):
    first = one_sample(spark, tmp_path, "first")
    second = one_sample(spark, tmp_path, "second", seed=2)
    target = tmp_path / "copy"
    first.write(target)
    os.remove(target / "p.npy")
    os.mkdir(target / "p.npy")
    before = snapshot(target)
    with pytest.raises(ValueError) as e:
        second.write(target, overwrite=True)
    assert "p.npy there is a directory" in str(e.value), str(e.value)
    assert "Result.write" in str(e.value) and "--" not in str(e.value), str(e.value)
    assert snapshot(target) == before
    assert os.path.isdir(target / "p.npy")


def test_writing_twice_with_overwrite(spark, tmp_path):
    r = one_sample(spark, tmp_path, "run")
    target = tmp_path / "copy"
    assert r.write(target) == target
    with pytest.raises(ValueError, match="overwrite=True"):
        r.write(target)
    r.write(target, overwrite=True)
    r.write(target, overwrite=True)
    assert snapshot(target) == snapshot(r.path)
    assert not [f for f in os.listdir(target) if f.startswith(".")]


def test_nifti2_inputs_are_read_back_as_nifti2(spark, tmp_path):
    data = RNG.normal(size=(4, 4, 3, 8)) + 0.5
    img = nib.Nifti2Image(data, np.diag([2.0, 2.0, 2.0, 1.0]))
    nib.save(img, tmp_path / "x.nii.gz")
    r = nlspark.one_sample(str(tmp_path / "x.nii.gz"), permutations=20, spark=spark)
    assert r.images, "no NIfTI maps read"
    np.testing.assert_allclose(r.images["observed"].get_fdata().ravel(), r["observed"],
                               rtol=1e-6)


def test_a_failure_reading_the_results_keeps_them(spark, monkeypatch):
    import nlspark.commands

    def unreadable(*args, **kwargs):
        raise OSError("cannot read")
    monkeypatch.setattr(nlspark.commands, "Result", unreadable)
    with pytest.raises(RuntimeError, match="they are kept there") as e:
        nlspark.one_sample(RNG.normal(size=(8, 30)), permutations=20, spark=spark)
    kept = str(e.value).split("results in ")[1].split(" could not")[0]
    try:
        assert "summary.json" in os.listdir(kept)
    finally:
        import shutil
        shutil.rmtree(os.path.dirname(kept))


def test_a_uri_is_written_through_hadoop(spark, tmp_path):
    r = one_sample(spark, tmp_path, "run")
    r.write("file://" + str(tmp_path / "uri"))
    assert snapshot(tmp_path / "uri") == snapshot(r.path)
