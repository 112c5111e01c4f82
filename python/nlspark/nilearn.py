"""A drop-in for nilearn's non_parametric_inference and permuted_ols, computed by nlspark on
Spark (nlspark.glm: sign flips for an intercept-only tested variable, Freedman-Lane
permutations otherwise, max-statistic FWER, TFCE).

    from nlspark.nilearn import non_parametric_inference   # instead of nilearn.glm.second_level

What is nilearn's: the signature and return values; the mask (nilearn's NiftiMasker computes
it, or takes mask=); smoothing (nilearn.image.smooth_img before masking, as its masker does);
the intercept rule (a constant column is added unless the tested variable is the intercept;
constant confounds are merged into one); the t threshold of a p-scale threshold; TFCE with
E = 0.5, H = 2, 100 steps from 0 to the map's maximum, 6-connectivity; p-values counted with
the identity, p = (1 + #{null max >= observed}) / (n_perm + 1), reported as -log10 p.

With threshold= (cluster-level inference) nilearn's definitions too: the p threshold becomes
u = t.isf(threshold, df) (threshold / 2 two-sided) with df = samples - design columns; clusters
are face-connected voxels with t > u (two-sided: t < -u separately), size = voxel count, mass =
sum(|t| - u) (nlspark's --cluster-rule nilearn); the p of a cluster is counted as nilearn's
null_to_p counts it, #{null max >= observed} / n_perm, clipped to [1/n_perm, 1 - 1/n_perm].

What differs: the random draws (seeds cannot reproduce nilearn's draws: FWER maps agree within
Monte Carlo error, not bit for bit); with a covariate nilearn permutes the tested variable with
the confounds while nlspark permutes Freedman-Lane residuals (the same null asymptotically);
when all distinct sign flips are fewer than n_perm nlspark enumerates them exactly; parallelism
is the Spark session's (n_jobs is not used).
Arguments nlspark cannot honour raise ValueError naming them; none is ignored silently.

Surface data (nilearn SurfaceImages, as a list or one image of several samples): where nilearn
turns TFCE and cluster inference off on surfaces (with a warning), nlspark computes them on the
mesh as PALM does: on z of t (df = samples - design columns), TFCE with E = 1, H = 2 and dh
multiplied in, vertices joined through the mesh's triangle edges, extents (TFCE's and a
cluster's size) as areas in mm2 (a third of each vertex's triangles); the p threshold becomes
the z height u = norm.isf(threshold) (the same vertices as nilearn's t height), and mass sums
z - u. Maps come back as SurfaceImages on the input's mesh, 0 outside mask=.
"""

import warnings

import numpy as np

from . import commands


def _refuse(name, why, function="non_parametric_inference"):
    raise ValueError("Cannot run %s with %s: %s" % (function, name, why))


def _seed(random_state, function):
    if random_state is None:
        return int(np.random.SeedSequence().entropy % (2 ** 63))
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool):
        if not -2 ** 63 <= int(random_state) < 2 ** 63:
            _refuse("random_state=%d" % random_state, "nlspark's seed is a 64-bit integer,"
                    " in [-2**63, 2**63 - 1]", function)
        return int(random_state)
    if isinstance(random_state, np.random.RandomState):
        return int(random_state.randint(0, np.iinfo(np.int32).max))
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(0, 2 ** 63 - 1))
    _refuse("random_state", "expected None, an int or a numpy RandomState, but was: %s"
            % type(random_state).__name__, function)


def _model(tested_vars, confounding_vars, model_intercept):
    """nilearn's permuted_ols model: (design columns, contrast, intercept test). The tested
    variable comes first; constants among the confounds are merged into one intercept; an
    intercept is added when model_intercept and the tested variable is not the intercept."""
    tested = np.asarray(tested_vars, dtype=np.float64)
    if tested.ndim == 1:
        tested = tested[:, None]
    if tested.ndim != 2 or tested.shape[1] != 1:
        raise ValueError("Cannot run permuted_ols with tested_vars of shape %s: nlspark tests one"
                         " variable at a time; call it once per column" % (tested.shape,))
    n = tested.shape[0]
    intercept_test = np.unique(tested).size == 1
    conf = None
    if confounding_vars is not None:
        conf = np.asarray(confounding_vars, dtype=np.float64)
        if conf.ndim == 1:
            conf = conf[:, None]
        constants = [j for j in range(conf.shape[1]) if np.unique(conf[:, j]).size == 1]
        if (intercept_test and len(constants) == 1) or len(constants) > 1:
            conf = np.delete(conf, constants, axis=1)
            model_intercept = True
            if conf.size == 0:
                conf = None
        if not intercept_test and len(constants) == 1:
            intercept_test = True
    if model_intercept and not intercept_test:
        ones = np.ones((n, 1))
        conf = ones if conf is None else np.hstack([conf, ones])
    columns = [tested] if conf is None else [tested, conf]
    design = np.hstack(columns)
    contrast = np.zeros(design.shape[1])
    contrast[0] = 1.0
    return design, contrast, intercept_test


def _cluster_height(threshold, two_sided_test, design, function):
    """nilearn's cluster-forming height u for a p-scale threshold (None: no clusters)."""
    if threshold is None:
        return None
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.number)) \
            or not 0 < float(threshold) < 1:
        _refuse("threshold=%r" % (threshold,), "the cluster-forming threshold is a p-value,"
                " in (0, 1)", function)
    from scipy import stats
    df = design.shape[0] - design.shape[1]
    p = float(threshold) / 2 if two_sided_test else float(threshold)
    return float(stats.t.isf(p, df=df))


def _glm(images4d, mask_img, design, contrast, intercept_test, n_perm, two_sided_test,
         random_state, tfce, spark, function, height=None, on_surface=False):
    import pandas as pd
    if n_perm is None or int(n_perm) < 1:
        _refuse("n_perm=%r" % (n_perm,), "nlspark needs at least one permutation (nilearn's"
                " n_perm=0, t maps only, is not offered)", function)
    names = ["tested"] + ["confound%d" % j for j in range(1, design.shape[1])]
    frame = pd.DataFrame(design, columns=names)
    con = pd.DataFrame([contrast], columns=names, index=["tested"])
    clusters = {} if height is None else dict(
        cluster_threshold=height, cluster_mass=height, cluster_rule="nilearn",
        **({} if on_surface else dict(connectivity=6)))  # a mesh joins by its triangles
    return commands.glm(images4d, frame, con, mask=mask_img,
                        errors="symmetric" if intercept_test else "exchangeable",
                        permutations=int(n_perm), tail="two" if two_sided_test else "upper",
                        tfce=bool(tfce), seed=_seed(random_state, function), spark=spark,
                        **clusters)


def _null_to_p(values, null):
    """nilearn's null_to_p(values, null, 'larger'): #{null >= value} / n, clipped to
    [1/n, 1 - 1/n] (and eps)."""
    null = np.sort(np.asarray(null, dtype=np.float64))
    p = 1.0 - np.searchsorted(null, values, side="left").astype(float) / len(null)
    smallest = max(np.finfo(float).eps, 1.0 / len(null))
    return np.clip(p, smallest, 1.0 - smallest)


def _cluster_outputs(r, on_surface=False):
    """nilearn's cluster-level outputs from a --cluster-rule nilearn run: size and mass of each
    voxel's cluster (0 outside), -log10 FWER p by nilearn's counting, and the nulls. On a
    surface sizes are areas (mm2), kept as floats."""
    size = r.maps["cluster_size_tstat1"]
    size = size if on_surface else size.astype(np.int64)
    mass = np.abs(r.maps["cluster_mass_tstat1"])
    h0_size = r.null_max["null_max_cluster_tstat1"]
    h0_mass = r.null_max["null_max_cluster_mass_tstat1"]
    return {"size": size, "logp_max_size": _neg_log10(_null_to_p(size, h0_size)),
            "h0_max_size": h0_size if on_surface else h0_size.astype(np.int64),
            "mass": mass, "logp_max_mass": _neg_log10(_null_to_p(mass, h0_mass)),
            "h0_max_mass": h0_mass}


def _as_float32(img):
    """The images as nilearn's masker hands them to permuted_ols: float32 values."""
    import nibabel as nib
    data = np.asarray(img.get_fdata(dtype=np.float32), dtype=np.float32)
    out = nib.Nifti1Image(data, img.affine)
    out.set_data_dtype(np.float32)
    return out


def _neg_log10(p):
    return -np.log10(p)


def non_parametric_inference(second_level_input, confounds=None, design_matrix=None,
                             second_level_contrast=None, first_level_contrast=None, mask=None,
                             smoothing_fwhm=None, model_intercept=True, n_perm=10000,
                             two_sided_test=False, random_state=None, n_jobs=1, verbose=0,
                             threshold=None, tfce=False, spark=None):
    """nilearn.glm.second_level.non_parametric_inference, computed by nlspark (see the module
    docstring for what differs). Returns the -log10 FWER p image (logp_max_t), or with
    tfce=True a dict of images: t, logp_max_t, tfce, logp_max_tfce. spark: the session (default:
    the active one, else nlspark.session())."""
    from nilearn import image
    from nilearn.maskers import NiftiMasker
    import pandas as pd

    if confounds is not None:
        _refuse("confounds", "second-level confounds apply to first-level models as input;"
                " put covariates in design_matrix")
    if first_level_contrast is not None:
        _refuse("first_level_contrast", "nlspark takes images (a list, or a 4-D image), not"
                " first-level models or a DataFrame of them")
    if _surface_input(second_level_input):
        return _on_surface(second_level_input, design_matrix, second_level_contrast, mask,
                           smoothing_fwhm, model_intercept, n_perm, two_sided_test,
                           random_state, n_jobs, threshold, tfce, spark)
    if isinstance(second_level_input, pd.DataFrame) or (
            isinstance(second_level_input, (list, tuple)) and second_level_input
            and not all(isinstance(i, str) or hasattr(i, "get_fdata")
                        for i in second_level_input)):
        _refuse("second_level_input", "nlspark takes images (a list of images or file names,"
                " or a 4-D image), not first-level models or a DataFrame of them")
    if isinstance(mask, NiftiMasker):
        _refuse("mask", "a NiftiMasker's preprocessing cannot be reproduced; pass its mask image"
                " (mask=masker.mask_img_) and smoothing_fwhm")
    if n_jobs not in (1, None):
        warnings.warn("non_parametric_inference: n_jobs=%r is not used: nlspark computes on the"
                      " Spark session's cores" % (n_jobs,), UserWarning, stacklevel=2)
    if design_matrix is None:
        _refuse("design_matrix", "a design matrix is required (a pandas DataFrame, one row per"
                " image)")
    design_matrix = pd.DataFrame(design_matrix)

    if isinstance(second_level_input, (list, tuple)):
        imgs = image.concat_imgs(second_level_input)
    else:
        imgs = image.load_img(second_level_input)  # one 4-D image (or its file name)
        if len(imgs.shape) != 4:
            _refuse("second_level_input", "one image must be 4-D (one volume per subject), but"
                    " its shape is %s" % (imgs.shape,))
    if imgs.shape[3] != design_matrix.shape[0]:
        _refuse("design_matrix", "it has %d rows for %d images" % (design_matrix.shape[0],
                                                                   imgs.shape[3]))
    masker = NiftiMasker(mask_img=mask, standardize=None)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=r".*Generation of a mask.*")
        masker.fit(imgs)
    if smoothing_fwhm is not None:
        imgs = image.smooth_img(imgs, smoothing_fwhm)
    imgs = _as_float32(imgs)

    contrast = _contrast(second_level_contrast, design_matrix)
    tested = design_matrix.to_numpy(dtype=np.float64) @ contrast
    rest = [c for c, w in zip(design_matrix.columns, contrast) if not w]
    conf = design_matrix[rest].to_numpy(dtype=np.float64) if rest else None
    design, con, intercept_test = _model(tested, conf, model_intercept)

    height = _cluster_height(threshold, two_sided_test, design, "non_parametric_inference")

    r = _glm(imgs, masker.mask_img_, design, con, intercept_test, n_perm, two_sided_test,
             random_state, tfce, spark, "non_parametric_inference", height)

    def img(name, transform=None):
        # nlspark's maps list the mask's voxels in nilearn's order (C order of the grid)
        v = r.maps[name]
        return masker.inverse_transform(transform(v) if transform else v)

    logp = img("p_fwer_tstat1", _neg_log10)
    if not tfce and height is None:
        return logp
    out = {"t": img("tstat1"), "logp_max_t": logp}
    if tfce:
        out["tfce"] = img("tfce_tstat1")
        out["logp_max_tfce"] = img("p_fwer_tfce_tstat1", _neg_log10)
    if height is not None:
        clusters = _cluster_outputs(r)
        for key in ("size", "logp_max_size", "mass", "logp_max_mass"):
            # sizes as int32, the integer type NIfTI readers take (nilearn converts int64 so)
            v = clusters[key].astype(np.int32) if key == "size" else clusters[key]
            out[key] = masker.inverse_transform(v)
    return out


def _surface_input(x):
    from ._inputs import _is_surface_image
    return _is_surface_image(x) or (isinstance(x, (list, tuple)) and bool(x)
                                    and all(_is_surface_image(i) for i in x))


def _samples_of(img):
    """How many samples a SurfaceImage holds (its data: vertices, or vertices x samples)."""
    first = np.asarray(img.data.parts[next(iter(img.data.parts))])
    return 1 if first.ndim == 1 else first.shape[1]


def _on_surface(second_level_input, design_matrix, second_level_contrast, mask, smoothing_fwhm,
                model_intercept, n_perm, two_sided_test, random_state, n_jobs, threshold, tfce,
                spark):
    """non_parametric_inference on SurfaceImages: nilearn's outputs, with TFCE and clusters
    computed on the mesh (PALM's definitions) where nilearn turns them off."""
    import pandas as pd
    from nilearn.surface import SurfaceImage
    function = "non_parametric_inference"
    if smoothing_fwhm is not None:
        _refuse("smoothing_fwhm", "smoothing on a mesh is not built; smooth the surface data"
                " before (e.g. FreeSurfer's mri_surf2surf --fwhm)", function)
    if mask is not None and not isinstance(mask, SurfaceImage):
        _refuse("mask", "surface data takes a SurfaceImage mask (non-zero = kept) on the same"
                " mesh", function)
    if n_jobs not in (1, None):
        warnings.warn("non_parametric_inference: n_jobs=%r is not used: nlspark computes on the"
                      " Spark session's cores" % (n_jobs,), UserWarning, stacklevel=3)
    if design_matrix is None:
        _refuse("design_matrix", "a design matrix is required (a pandas DataFrame, one row per"
                " image)", function)
    design_matrix = pd.DataFrame(design_matrix)
    imgs = list(second_level_input) if isinstance(second_level_input, (list, tuple)) \
        else [second_level_input]
    samples = sum(_samples_of(i) for i in imgs)
    if samples != design_matrix.shape[0]:
        _refuse("design_matrix", "it has %d rows for %d samples" % (design_matrix.shape[0],
                                                                    samples), function)
    contrast = _contrast(second_level_contrast, design_matrix)
    tested = design_matrix.to_numpy(dtype=np.float64) @ contrast
    rest = [c for c, w in zip(design_matrix.columns, contrast) if not w]
    conf = design_matrix[rest].to_numpy(dtype=np.float64) if rest else None
    design, con, intercept_test = _model(tested, conf, model_intercept)
    height = None
    if threshold is not None:
        _cluster_height(threshold, two_sided_test, design, function)  # the same checks
        from scipy import stats
        height = float(stats.norm.isf(float(threshold) / 2 if two_sided_test
                                      else float(threshold)))
    r = _glm(imgs, mask, design, con, intercept_test, n_perm, two_sided_test, random_state,
             tfce, spark, function, height, on_surface=True)
    mesh = imgs[0].mesh
    keep = None if mask is None else np.concatenate(
        [np.asarray(mask.data.parts[p]).reshape(-1) for p in mesh.parts]) != 0

    def img(v):
        full = np.zeros(sum(mesh.parts[p].n_vertices for p in mesh.parts), dtype=v.dtype)
        if keep is None:
            full[:] = v
        else:
            full[keep] = v
        data, start = {}, 0
        for p in mesh.parts:
            n = mesh.parts[p].n_vertices
            data[p] = full[start:start + n]
            start += n
        return SurfaceImage(mesh=mesh, data=data)

    logp = img(_neg_log10(r.maps["p_fwer_tstat1"]))
    if not tfce and height is None:
        return logp
    out = {"t": img(r.maps["tstat1"]), "logp_max_t": logp}
    if tfce:
        out["tfce"] = img(r.maps["tfce_tstat1"])
        out["logp_max_tfce"] = img(_neg_log10(r.maps["p_fwer_tfce_tstat1"]))
    if height is not None:
        clusters = _cluster_outputs(r, on_surface=True)
        for key in ("size", "logp_max_size", "mass", "logp_max_mass"):
            out[key] = img(clusters[key])
    return out


def _contrast(second_level_contrast, design_matrix):
    columns = list(design_matrix.columns)
    if second_level_contrast is None:
        if len(columns) != 1:
            _refuse("second_level_contrast=None", "the design matrix has %d columns; name the"
                    " one to test" % len(columns))
        return np.ones(1)
    if isinstance(second_level_contrast, str):
        if second_level_contrast not in columns:
            _refuse("second_level_contrast=%r" % second_level_contrast, "nlspark takes a column"
                    " name of the design matrix (%s) or a vector, not an expression"
                    % ", ".join(map(str, columns)))
        return np.array([1.0 if c == second_level_contrast else 0.0 for c in columns])
    try:
        c = np.asarray(second_level_contrast, dtype=np.float64).ravel()
    except (TypeError, ValueError):
        _refuse("second_level_contrast=%r" % (second_level_contrast,), "nlspark takes one"
                " column name of the design matrix as a string (%s) or a vector of %d weights"
                % (", ".join(map(str, columns)), len(columns)))
    if c.size != len(columns):
        _refuse("second_level_contrast", "it has %d weights for %d design columns"
                % (c.size, len(columns)))
    return c


def permuted_ols(tested_vars, target_vars, confounding_vars=None, model_intercept=True,
                 n_perm=10000, two_sided_test=True, random_state=None, n_jobs=1, verbose=0,
                 masker=None, tfce=False, threshold=None, output_type="dict", spark=None):
    """nilearn.mass_univariate.permuted_ols, computed by nlspark (see the module docstring):
    one tested variable (n_samples,) or (n_samples, 1); target_vars (n_samples, n_descriptors).
    Returns nilearn's dict: t, logp_max_t (1, n_descriptors), h0_max_t (1, n_perm); with tfce
    (needs masker) also tfce, logp_max_tfce, h0_max_tfce; with threshold (a p-value; needs
    masker) also size, logp_max_size, h0_max_size, mass, logp_max_mass, h0_max_mass."""
    if output_type != "dict":
        raise ValueError("Cannot run permuted_ols with output_type=%r: nlspark returns nilearn's"
                         " dict only" % (output_type,))
    if tfce and masker is None:
        raise ValueError("A masker must be provided if tfce is True.")
    if threshold is not None and masker is None:
        raise ValueError("If 'threshold' is not None, masker must be defined as well.")
    if n_jobs not in (1, None):
        warnings.warn("permuted_ols: n_jobs=%r is not used: nlspark computes on the Spark"
                      " session's cores" % (n_jobs,), UserWarning, stacklevel=2)
    y = np.asarray(target_vars, dtype=np.float64)
    if y.ndim != 2:
        raise ValueError("'target_vars' should be a 2D array. An array with %d dimension(s) was"
                         " passed." % y.ndim)
    design, con, intercept_test = _model(tested_vars, confounding_vars, model_intercept)
    height = _cluster_height(threshold, two_sided_test, design, "permuted_ols")
    if tfce or height is not None:
        data = masker.inverse_transform(y)
        r = _glm(data, masker.mask_img_, design, con, intercept_test, n_perm, two_sided_test,
                 random_state, tfce, spark, "permuted_ols", height)
    else:
        r = _glm(y, None, design, con, intercept_test, n_perm, two_sided_test, random_state,
                 False, spark, "permuted_ols")

    def order(v):
        return v
    out = {"t": order(r.maps["tstat1"])[None, :],
           "logp_max_t": _neg_log10(order(r.maps["p_fwer_tstat1"]))[None, :],
           "h0_max_t": r.null_max["null_max_tstat1"][None, :]}
    if tfce:
        out["tfce"] = order(r.maps["tfce_tstat1"])[None, :]
        out["logp_max_tfce"] = _neg_log10(order(r.maps["p_fwer_tfce_tstat1"]))[None, :]
        out["h0_max_tfce"] = r.null_max["null_max_tfce_tstat1"][None, :]
    if height is not None:
        out.update({k: v[None, :] for k, v in _cluster_outputs(r).items()})
    return out
