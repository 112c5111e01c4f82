"""nlspark.nilearn against real nilearn on the same images and arguments: t and TFCE maps equal
(to nilearn's float32 arithmetic), FWER -log10 p within Monte Carlo error, for an
intercept-only design (sign flips) and a design with a covariate (permutations)."""

import warnings

import nibabel as nib
import numpy as np
import pandas as pd
import pytest
from nilearn.glm.second_level import non_parametric_inference as nilearn_npi
from nilearn.mass_univariate import permuted_ols as nilearn_permuted_ols

from nlspark.nilearn import non_parametric_inference, permuted_ols

N = 20
SHAPE = (9, 8, 7)
N_PERM = 500


def study(seed=1):
    rng = np.random.default_rng(seed)
    age = rng.normal(size=N)
    imgs = []
    for i in range(N):
        d = rng.normal(size=SHAPE) + 5.0
        d[2:6, 2:6, 2:5] += 0.9
        d[5:8, 4:7, 3:6] += 0.6 * age[i]
        imgs.append(nib.Nifti1Image(d.astype(np.float32), np.diag([3.0, 3.0, 3.0, 1.0])))
    return imgs, age


def within_monte_carlo(logp_a, logp_b, n_perm):
    """Two FWER p maps from independent draws agree within 5 standard errors of their
    difference (each p estimated from n_perm maxima), plus the 1/(n_perm + 1) grain."""
    pa, pb = 10.0 ** -np.asarray(logp_a), 10.0 ** -np.asarray(logp_b)
    p = (pa + pb) / 2
    sd = np.sqrt(2 * p * (1 - p) / n_perm)
    bad = np.abs(pa - pb) > 5 * sd + 2.0 / (n_perm + 1)
    assert not bad.any(), "p differ beyond Monte Carlo error at %d voxels: %s vs %s" % (
        bad.sum(), pa[bad][:5], pb[bad][:5])
    return np.abs(pa - pb).max()


def close_to_nilearns_float32(ours, theirs):
    """nilearn computes from float32 masked data in float32 (eps 1.2e-7), centring data whose
    mean lies ~5 s.d. from 0 over 20 samples: equal to a few hundred of its eps."""
    ours, theirs = np.asarray(ours), np.asarray(theirs)
    np.testing.assert_allclose(ours, theirs, rtol=3e-5, atol=3e-5 * np.abs(theirs).max())


@pytest.mark.parametrize("two_sided", [False, True])
def test_intercept_only_design_sign_flips(spark, two_sided):
    imgs, _ = study()
    dm = pd.DataFrame({"intercept": np.ones(N)})
    args = dict(design_matrix=dm, second_level_contrast="intercept", n_perm=N_PERM, tfce=True,
                two_sided_test=two_sided, random_state=0)
    theirs = nilearn_npi(imgs, **args)
    ours = non_parametric_inference(imgs, spark=spark, **args)
    assert set(ours) == set(theirs) == {"t", "logp_max_t", "tfce", "logp_max_tfce"}
    for k in ours:
        assert ours[k].shape == theirs[k].shape
        np.testing.assert_array_equal(ours[k].affine, theirs[k].affine)
    close_to_nilearns_float32(ours["t"].get_fdata(), theirs["t"].get_fdata())
    close_to_nilearns_float32(ours["tfce"].get_fdata(), theirs["tfce"].get_fdata())
    within_monte_carlo(ours["logp_max_t"].get_fdata(), theirs["logp_max_t"].get_fdata(), N_PERM)
    within_monte_carlo(ours["logp_max_tfce"].get_fdata(), theirs["logp_max_tfce"].get_fdata(),
                       N_PERM)


@pytest.mark.parametrize("two_sided", [False, True])
def test_design_with_a_covariate(spark, two_sided):
    imgs, age = study(2)
    dm = pd.DataFrame({"age": age, "intercept": np.ones(N)})
    args = dict(design_matrix=dm, second_level_contrast="age", n_perm=N_PERM, tfce=True,
                two_sided_test=two_sided, random_state=0)
    theirs = nilearn_npi(imgs, **args)
    ours = non_parametric_inference(imgs, spark=spark, **args)
    close_to_nilearns_float32(ours["t"].get_fdata(), theirs["t"].get_fdata())
    close_to_nilearns_float32(ours["tfce"].get_fdata(), theirs["tfce"].get_fdata())
    within_monte_carlo(ours["logp_max_t"].get_fdata(), theirs["logp_max_t"].get_fdata(), N_PERM)
    within_monte_carlo(ours["logp_max_tfce"].get_fdata(), theirs["logp_max_tfce"].get_fdata(),
                       N_PERM)


def test_plain_image_without_tfce_and_a_4d_input_with_smoothing(spark):
    imgs, age = study(3)
    from nilearn.image import concat_imgs
    four_d = concat_imgs(imgs)
    dm = pd.DataFrame({"age": age})
    args = dict(design_matrix=dm, n_perm=200, smoothing_fwhm=6.0, random_state=1)
    theirs = nilearn_npi(imgs, **args)  # nilearn takes a list here; nlspark the 4-D image too
    ours = non_parametric_inference(four_d, spark=spark, **args)
    assert isinstance(ours, nib.Nifti1Image) and ours.shape == theirs.shape
    within_monte_carlo(ours.get_fdata(), theirs.get_fdata(), 200)


def test_the_t_map_under_smoothing_is_nilearns(spark):
    imgs, age = study(4)
    dm = pd.DataFrame({"age": age, "intercept": np.ones(N)})
    args = dict(design_matrix=dm, second_level_contrast=[1, 0], n_perm=50, tfce=True,
                smoothing_fwhm=5.0, random_state=2)
    theirs = nilearn_npi(imgs, **args)
    ours = non_parametric_inference(imgs, spark=spark, **args)
    close_to_nilearns_float32(ours["t"].get_fdata(), theirs["t"].get_fdata())


@pytest.mark.parametrize("argument, value", [
    ("threshold", 1.5), ("confounds", pd.DataFrame({"subject_label": ["a"], "x": [1]})),
    ("first_level_contrast", "a"), ("second_level_contrast", "age - intercept"),
    ("second_level_contrast", ["age"]), ("random_state", 2 ** 70), ("n_perm", 0)])
def test_arguments_nlspark_cannot_honour_are_refused_by_name(spark, argument, value):
    imgs, age = study()
    dm = pd.DataFrame({"age": age, "intercept": np.ones(N)})
    args = dict(design_matrix=dm, second_level_contrast="age", n_perm=10)
    args[argument] = value
    with pytest.raises(ValueError, match="non_parametric_inference with %s" % argument):
        non_parametric_inference(imgs, spark=spark, **args)


CLUSTER_KEYS = {"size", "logp_max_size", "mass", "logp_max_mass"}


def cluster_study(seed):
    """Maps around 0 with a positive and a negative blob, and a mask without the grid's border
    (nilearn labels the whole grid: a mask filling it leaves no background, which it asserts)."""
    rng = np.random.default_rng(seed)
    age = rng.normal(size=N)
    imgs = []
    for i in range(N):
        d = rng.normal(size=SHAPE)
        d[2:5, 2:5, 2:5] += 1.5 + 1.5 * age[i]
        d[5:8, 4:7, 3:6] -= 1.5 + 1.5 * age[i]
        imgs.append(nib.Nifti1Image(d.astype(np.float32), np.diag([3.0, 3.0, 3.0, 1.0])))
    mask = np.zeros(SHAPE, np.int8)
    mask[1:-1, 1:-1, 1:-1] = 1
    return imgs, age, nib.Nifti1Image(mask, imgs[0].affine)


@pytest.mark.parametrize("two_sided, covariate", [(False, False), (True, True)])
def test_cluster_level_inference_is_nilearns(spark, two_sided, covariate):
    # threshold= (a p-value): nilearn's size and mass maps, and -log10 FWER p by its counting
    imgs, age, mask = cluster_study(5)
    dm = pd.DataFrame({"age": age, "intercept": np.ones(N)}) if covariate else \
        pd.DataFrame({"intercept": np.ones(N)})
    args = dict(design_matrix=dm, second_level_contrast="age" if covariate else "intercept",
                n_perm=N_PERM, threshold=0.01, two_sided_test=two_sided, random_state=0,
                mask=mask)
    theirs = nilearn_npi(imgs, **args)
    ours = non_parametric_inference(imgs, spark=spark, **args)
    assert set(ours) == set(theirs) == {"t", "logp_max_t"} | CLUSTER_KEYS
    size, their_size = ours["size"].get_fdata(), theirs["size"].get_fdata()
    assert (their_size > 0).sum() > 20, "the study has no clusters to compare"
    np.testing.assert_array_equal(size, their_size)
    # mass = sum(|t| - u) over a cluster: nilearn's t is float32 arithmetic
    np.testing.assert_allclose(ours["mass"].get_fdata(), theirs["mass"].get_fdata(),
                               rtol=1e-4, atol=1e-4)
    for key in ("logp_max_size", "logp_max_mass"):
        within_monte_carlo(ours[key].get_fdata(), theirs[key].get_fdata(), N_PERM)
        # outside every cluster both count p = 1 - 1/n_perm (nilearn's clipping)
        outside = their_size == 0
        np.testing.assert_allclose(ours[key].get_fdata()[outside],
                                   theirs[key].get_fdata()[outside])


def test_permuted_ols_cluster_level_inference_is_nilearns(spark):
    from nilearn.maskers import NiftiMasker
    imgs, age, mask = cluster_study(6)
    masker = NiftiMasker(mask_img=mask, standardize=None).fit()
    y = masker.transform(imgs).astype(np.float64)
    tested = age[:, None]
    args = dict(confounding_vars=np.ones((N, 1)), n_perm=400, two_sided_test=True,
                random_state=0, masker=masker, threshold=0.05)
    theirs = nilearn_permuted_ols(tested, y, **args)
    ours = permuted_ols(tested, y, spark=spark, **args)
    assert set(ours) == set(theirs)
    assert ours["h0_max_size"].shape == theirs["h0_max_size"].shape == (1, 400)
    # float64 data, nilearn's arithmetic float64 too: the clusters are the same voxels
    assert (theirs["size"] > 0).sum() > 10
    np.testing.assert_array_equal(ours["size"], theirs["size"])
    np.testing.assert_allclose(ours["mass"], theirs["mass"], rtol=1e-9, atol=1e-9)
    for key in ("logp_max_size", "logp_max_mass"):
        within_monte_carlo(ours[key], theirs[key], 400)
    for key in ("h0_max_size", "h0_max_mass"):
        qa = np.quantile(ours[key], [0.5, 0.9])
        qb = np.quantile(theirs[key], [0.5, 0.9])
        np.testing.assert_allclose(qa, qb, rtol=0.35, atol=2)


def test_n_jobs_is_said_not_ignored(spark):
    imgs, age = study()
    dm = pd.DataFrame({"intercept": np.ones(N)})
    with pytest.warns(UserWarning, match="n_jobs=2 is not used"):
        non_parametric_inference(imgs, design_matrix=dm, n_perm=10, n_jobs=2, spark=spark)


@pytest.mark.parametrize("covariate", [False, True])
def test_permuted_ols_against_nilearn(spark, covariate):
    rng = np.random.default_rng(7)
    n, v = 24, 60
    tested = rng.normal(size=(n, 1)) if covariate else np.ones((n, 1))
    conf = rng.normal(size=(n, 1)) if covariate else None
    y = rng.normal(size=(n, v)) + (0.8 * tested if covariate else 0.3)
    args = dict(confounding_vars=conf, n_perm=1000, two_sided_test=True, random_state=0)
    theirs = nilearn_permuted_ols(tested, y, **args)
    ours = permuted_ols(tested, y, spark=spark, **args)
    assert set(ours) == {"t", "logp_max_t", "h0_max_t"}
    assert ours["t"].shape == theirs["t"].shape == (1, v)
    assert ours["h0_max_t"].shape == theirs["h0_max_t"].shape == (1, 1000)
    # float64 data: nilearn's arithmetic is float64 too
    np.testing.assert_allclose(ours["t"], theirs["t"], rtol=1e-9)
    within_monte_carlo(ours["logp_max_t"], theirs["logp_max_t"], 1000)
    # the null maxima of max |t| from two samplers: same distribution (quantiles close)
    qa = np.quantile(ours["h0_max_t"], [0.5, 0.9])
    qb = np.quantile(theirs["h0_max_t"], [0.5, 0.9])
    np.testing.assert_allclose(qa, qb, rtol=0.1)


def test_permuted_ols_refuses_what_it_cannot_do(spark):
    with pytest.raises(ValueError, match="If 'threshold' is not None, masker must be defined"):
        permuted_ols(np.ones(5), np.ones((5, 3)), threshold=0.01, spark=spark)
    with pytest.raises(ValueError, match="one variable at a time"):
        permuted_ols(np.ones((5, 2)), np.ones((5, 3)), spark=spark)


@pytest.mark.parametrize("argument, value", [("n_perm", 0), ("random_state", 2 ** 64)])
def test_permuted_ols_errors_name_permuted_ols(spark, argument, value):
    with pytest.raises(ValueError, match="^Cannot run permuted_ols with %s" % argument):
        permuted_ols(np.ones(6), np.ones((6, 3)), spark=spark, **{argument: value})
