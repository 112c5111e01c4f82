"""The commands of the command line as functions (DESIGN §6): the same options as keyword
arguments (snake_case, same defaults), run in a Spark session through one JVM entry point,
org.nlspark.spark.CommandRunner, so that the same inputs write the same bytes as bin/nlspark.

Inputs: a path or URI as on the command line; a numpy array; a nibabel image (a 4-D image, one
volume per sample) or a list of images or file names; a Spark DataFrame with an array column
(column=, order_by=); designs and contrasts as pandas DataFrames. In-memory inputs are written
to a staging directory (staging_dir=, default a temporary one, removed after the call), and
outputs go to output= (default a temporary directory kept as long as the Result).

Every function takes spark=: without it, the active session, else nlspark.session().
A keyword left at None is decided by the JVM as on the command line (precision=None: float64
on the CPU, float32 on a GPU; memory_budget_gb=None: from the executor's memory).
Bad input raises ValueError, refused resources nlspark.ResourceError, with the command line's
one-sentence message.
"""

import contextvars
import functools
import hashlib
import inspect
import json
import math
import numbers
import os
import re
import shutil
import tempfile

from . import _session
from ._errors import ResourceError
from ._inputs import Staging
from .result import Result

# The call being run (function name and the arguments as the user gave them), for the
# provenance summary.json records, and its staged inputs, for messages.
_CALL = contextvars.ContextVar("nlspark_call", default=None)
_STAGING = contextvars.ContextVar("nlspark_staging", default=None)


def _recorded(fn):
    """Records the call (the arguments as given) for _provenance while fn runs."""
    signature = inspect.signature(fn)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        bound = signature.bind(*args, **kwargs)
        token = _CALL.set((fn.__name__, dict(bound.arguments)))
        staged = _STAGING.set(None)
        try:
            return fn(*args, **kwargs)
        finally:
            _CALL.reset(token)
            _STAGING.reset(staged)
    return wrapper


def _provenance(output):
    """summary.json's "python": the call as written (what reproduces the run; the staged
    files and the command line naming them are gone once it returns) and each input as given:
    paths as absolute paths, arrays, images and tables by shape and SHA-256 of their values."""
    name, arguments = _CALL.get() or ("run", {})
    inputs, shown = {}, []
    for key, value in arguments.items():
        if key in ("spark", "staging_dir"):
            continue
        described, text = _describe(value)
        if key == "output" and value is None:
            continue
        inputs[key] = described
        shown.append("%s=%s" % (key, text))
    return {"call": "nlspark.%s(%s)" % (name, ", ".join(shown)), "arguments": inputs}


def _sha256(*parts):
    """SHA-256 of bytes or C-contiguous arrays, read in place (a large image is not copied)."""
    h = hashlib.sha256()
    for part in parts:
        h.update(memoryview(part).cast("B") if not isinstance(part, bytes) else part)
    return h.hexdigest()


def _describe(value):
    """(JSON-able description, text for the call) of one argument."""
    import numpy as np
    from ._inputs import _is_image, _is_spark_dataframe, _is_uri
    if value is None or isinstance(value, (bool, numbers.Number, str)) \
            and not isinstance(value, str):
        v = value.item() if hasattr(value, "item") else value
        return v, repr(v)
    if isinstance(value, (str, os.PathLike)):
        path = os.fspath(value)
        path = path if _is_uri(path) else os.path.abspath(path)
        return path, repr(path)
    if _is_image(value):
        data = np.ascontiguousarray(np.asanyarray(value.dataobj))
        digest = _sha256(data, np.ascontiguousarray(value.affine, dtype=np.float64))
        d = {"kind": type(value).__name__, "shape": list(data.shape), "dtype": str(data.dtype),
             "sha256": digest}
        return d, "<%s %s sha256:%s>" % (d["kind"], tuple(data.shape), digest[:12])
    if _is_spark_dataframe(value):
        schema = value.schema.simpleString()
        return {"kind": "Spark DataFrame", "schema": schema}, "<Spark DataFrame %s>" % schema
    try:
        import pandas as pd
    except ImportError:
        pd = None
    if pd is not None and isinstance(value, (pd.DataFrame, pd.Series)):
        frame = value.to_frame().T if isinstance(value, pd.Series) else value
        digest = _sha256(frame.to_csv().encode("utf-8"))
        d = {"kind": "DataFrame", "shape": list(frame.shape),
             "columns": [str(c) for c in frame.columns], "sha256": digest}
        return d, "<DataFrame %dx%d (%s) sha256:%s>" % (
            frame.shape[0], frame.shape[1], ", ".join(d["columns"]), digest[:12])
    if isinstance(value, dict):
        return {str(k): _describe(v)[0] for k, v in value.items()}, repr(value)
    if isinstance(value, (list, tuple)) and value and all(
            isinstance(i, (str, os.PathLike)) or _is_image(i) for i in value):
        items = [_describe(i) for i in value]
        return [d for d, _ in items], "[%s]" % ", ".join(t for _, t in items)
    try:
        a = np.ascontiguousarray(np.asarray(value))
    except Exception:
        return repr(value), repr(value)
    if a.dtype == object:
        return repr(value), repr(value)
    digest = _sha256(a)
    d = {"kind": "array", "shape": list(a.shape), "dtype": str(a.dtype), "sha256": digest}
    return d, "<array %s %s sha256:%s>" % (tuple(a.shape), a.dtype, digest[:12])


def _in_python_terms(message, staging):
    """A command-line sentence as Python says it: staged files by the argument they came
    from ("design="), flags as keyword arguments (--permutations -> permutations=)."""
    if staging is not None:
        for path in sorted(staging.labels, key=len, reverse=True):
            for form in ("file:" + path, path):
                message = message.replace(form, staging.labels[path])
        message = message.replace(" (relative paths are relative to the list file)", "")
        message = message.replace(staging.dir, "the staging directory")
    message = message.replace("--overwrite", "overwrite=True").replace("--no-fwer", "fwer=False")
    # CIFTI's cortex meshes are the pair surface=(left, right)
    message = message.replace("--surface-left", "surface=(left, ...)").replace(
        "--surface-right", "surface=(..., right)")
    flag = r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)"
    # a flag before the argument it names ("--design design=") is that argument
    message = re.sub(flag + r" ([a-z_0-9]+=(?:\[\d+\])?)", r"\2", message)
    # a flag with a word for its value, as in "(--backend gpu)" or "use --backend cpu or auto"
    message = re.sub(flag + r" ([A-Za-z][A-Za-z0-9_.-]*)(?=\)|,|;|$| or )",
                     lambda m: "%s=%r" % (m.group(1).replace("-", "_"), m.group(2)), message)
    return re.sub(flag, lambda m: m.group(1).replace("-", "_") + "=", message)


def _defaults(fn):
    """fn's keyword defaults: the one place this package states a default (each equals the
    JVM's, org.nlspark.spark.api.CommandDefaults, or is None, left to the JVM; checked in
    tests/test_defaults.py)."""
    return {name: p.default for name, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


def defaults(spark=None):
    """Every command's defaults as the JVM resolves them, {function name: {keyword: value}}:
    the table behind the command line's and the Java API's defaults (None: decided by the run,
    such as the memory budget and a GPU run's precision)."""
    spark = _session.resolve(spark)
    table = json.loads(_session.runner(spark).defaults())
    return {command.replace("-", "_"): {k.replace("-", "_"): v for k, v in settings.items()}
            for command, settings in table.items()}


def _flag(name):
    return "--" + name.replace("_", "-")


# The command line's whole-number options and the range its types take (Long, Integer).
_LONG = 2 ** 63 - 1
_WHOLE = {"seed": (-_LONG - 1, _LONG), "permutations": (1, _LONG), "samples": (1, _LONG),
          "partitions": (1, 2 ** 31 - 1), "connectivity": (6, 26)}


def _clusters(cluster_threshold, cluster_mass, connectivity, cluster_rule):
    """The cluster keywords of the whole-map commands (--cluster-threshold, --cluster-mass,
    --connectivity, --cluster-rule: 'randomise' or 'nilearn'), as _options takes them."""
    return dict(cluster_threshold=cluster_threshold, cluster_mass=cluster_mass,
                connectivity=connectivity, cluster_rule=cluster_rule)
_REAL = {"confidence", "memory_budget_gb", "alpha", "cluster_threshold", "cluster_mass",
         "variance_smoothing"}


def _checked(name, value, default):
    """value as the command line's option type takes it, else ValueError naming name=."""
    import numpy as np
    if value is None:
        return None
    if isinstance(default, bool):  # a switch
        if not isinstance(value, (bool, np.bool_)):
            raise ValueError("%s= must be True or False, but was %r" % (name, value))
        return bool(value)
    numeric = isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))
    if name in _WHOLE:
        lo, hi = _WHOLE[name]
        if numeric and not isinstance(value, numbers.Integral):
            f = float(value)
            if math.isfinite(f) and f.is_integer():
                value = int(f)  # 1e9 is the whole number it writes
        if not numeric or not isinstance(value, numbers.Integral):
            raise ValueError("%s= must be a whole number, but was %r" % (name, value))
        if not lo <= int(value) <= hi:
            raise ValueError("%s= must be in [%d, %d], but was %d" % (name, lo, hi, value))
        return int(value)
    if name in _REAL:
        if not numeric or not math.isfinite(float(value)):
            raise ValueError("%s= must be a finite number, but was %r" % (name, value))
    return value


def _options(values, defaults):
    """Flags for the values that differ from the command line's defaults (so that the command
    runs with exactly what the user asked, and the same flags as a CLI run with defaults)."""
    args = []
    for name, value in values.items():
        default = defaults[name]
        value = _checked(name, value, default)
        if value is None or value == default and type(value) is type(default):
            continue
        if isinstance(value, bool):
            if name == "fwer":
                args.append("--fwer" if value else "--no-fwer")
            elif value:
                args.append(_flag(name))
            continue
        args += [_flag(name), _number(value)]
    return args


def _number(v):
    if isinstance(v, float) and v.is_integer():
        return repr(v)
    return str(v)


def _run(command, spark, output, overwrite, staging_dir, build):
    """Stages the inputs (build(staging) -> args), runs the command, reads the outputs."""
    spark = _session.resolve(spark)
    if staging_dir is not None:
        staging_dir = os.fspath(staging_dir)
        if not os.path.isdir(staging_dir):
            raise ValueError("Cannot stage the inputs in staging_dir=%s: it is not an existing"
                             " directory" % staging_dir)
    try:
        stage = tempfile.mkdtemp(prefix="nlspark-in-", dir=staging_dir)
    except OSError as e:
        raise ValueError("Cannot stage the inputs in staging_dir=%s: %s"
                         % (staging_dir or tempfile.gettempdir(), e.strerror or e)) from None
    cleanup = None
    try:
        staging = Staging(stage, spark)
        _STAGING.set(staging)
        args = [command] + build(staging)
        if output is None:
            out_root = tempfile.mkdtemp(prefix="nlspark-out-", dir=staging_dir)
            output = os.path.join(out_root, "out")
            cleanup = _Remove(out_root)
        else:
            output = os.fspath(output)
        local = output[len("file://"):] if output.startswith("file://") else output
        if ":" in local.split("/")[0]:
            raise ValueError("Cannot read results from %s into Python: output= must be a local"
                             " directory (on Databricks /dbfs/...); copy them elsewhere with"
                             " result.write(dir) or the command line" % output)
        args += ["--output", output, "--quiet"]
        if overwrite:
            args.append("--overwrite")
        staging = _STAGING.get()
        try:
            printed = _session.runner(spark).run(
                args, json.dumps(dict(_provenance(output), staged=staging.labels)))
        except ValueError as e:
            raise ValueError(_in_python_terms(str(e), staging)) from None
        except ResourceError as e:
            raise ResourceError(_in_python_terms(str(e), staging)) from None
        try:
            return Result(command, local, printed[0], _in_python_terms(printed[1], staging),
                          cleanup, spark=spark)
        except Exception as e:
            cleanup = None  # the run succeeded: its results stay where they are
            raise RuntimeError("nlspark %s finished, but its results in %s could not be read"
                               " into Python (%s: %s); they are kept there"
                               % (command, local, type(e).__name__, e)) from e
    except BaseException:
        if cleanup is not None:
            cleanup()
        raise
    finally:
        shutil.rmtree(stage, ignore_errors=True)


class _Remove:
    def __init__(self, path):
        self.path = path

    def __call__(self):
        shutil.rmtree(self.path, ignore_errors=True)


def _common(defaults, seed, backend, precision, memory_budget_gb, partitions):
    return _options(dict(seed=seed, backend=backend, precision=precision,
                         memory_budget_gb=memory_budget_gb, partitions=partitions), defaults)


def _cortex_meshes(surface):
    """The (left, right) meshes of CIFTI data: a pair, a dict with "left" and "right", or a
    nilearn PolyMesh of those two parts; else None."""
    if isinstance(surface, (tuple, list)) and len(surface) == 2:
        return tuple(surface)
    parts = surface if isinstance(surface, dict) else getattr(surface, "parts", None)
    if isinstance(parts, dict) and set(parts) == {"left", "right"}:
        return parts["left"], parts["right"]
    return None


def _is_cifti(input):
    """Whether input= names CIFTI files: by name, or a local directory, glob or list file of
    them (the first entry tells: one input is one kind)."""
    def named(n):
        return os.fspath(n).lower().endswith((".dscalar.nii", ".dtseries.nii"))
    names = list(input) if isinstance(input, (list, tuple)) else [input]
    if not names or not all(isinstance(n, (str, os.PathLike)) for n in names):
        return False
    if len(names) > 1 or named(names[0]):
        return all(named(n) for n in names)
    path = os.fspath(names[0])
    if os.path.isdir(path):
        return any(named(e) for e in os.listdir(path))
    if any(c in path for c in "*?["):
        import glob
        return any(named(f) for f in glob.glob(path))
    try:
        with open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if line and not line.startswith("#"):
                    return named(line)
    except (OSError, UnicodeDecodeError):
        pass
    return False


def _mesh(s, surface, vertex_area, cifti=False):
    """--surface (given, or staged with SurfaceImage inputs), or CIFTI data's --surface-left
    and --surface-right (surface=(left, right)), and --vertex-area."""
    args = []
    sides = _cortex_meshes(surface) if surface is not None else None
    if sides is not None and (cifti or not hasattr(surface, "parts")):
        for flag, side, mesh in zip(("--surface-left", "--surface-right"), ("left", "right"),
                                    sides):
            if mesh is not None:
                args += [flag, s.mesh(mesh, "surface_" + side, remember=False)]
        mesh = None
    else:
        mesh = s.mesh(surface)
    if mesh is not None:
        args += ["--surface", mesh]
    if vertex_area is not None:
        args += ["--vertex-area", s.vertex_area(vertex_area)]
    return args


def _study(s, input, mask, column, order_by, name="input", surface=None, vertex_area=None,
           series=False):
    args = ["--" + name, (s.series if series else s.samples)(input, name)]
    if mask is not None:
        args += ["--mask", s.mask(mask)]
    args += _mesh(s, surface, vertex_area, cifti=_is_cifti(input))
    args += _options(dict(column=column, order_by=order_by), dict(column=None, order_by=None))
    return args


@_recorded
def bootstrap(input, *, stat="mean", samples=5000, confidence=0.95, ci="percentile",
              save_samples=False, mask=None, surface=None, vertex_area=None, column=None,
              order_by=None, output=None,
              overwrite=False, seed=0, backend="cpu", precision=None,
              memory_budget_gb=None, partitions=None, staging_dir=None, spark=None):
    """nlspark bootstrap: bootstrap confidence intervals of a per-voxel statistic.
    Maps: mean std ci_lower ci_upper z p (and samples with save_samples)."""
    def build(s):
        d = _defaults(bootstrap)
        return (_study(s, input, mask, column, order_by, surface=surface,
                        vertex_area=vertex_area)
                + _options(dict(stat=stat, samples=samples, confidence=confidence, ci=ci,
                                save_samples=save_samples), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("bootstrap", spark, output, overwrite, staging_dir, build)


@_recorded
def one_sample(input, *, stat="t", permutations=5000, tail="two", fwer=True, tfce=False,
               cluster_threshold=None, cluster_mass=None, connectivity=26,
               cluster_rule="randomise", mask=None, surface=None, vertex_area=None,
               column=None, order_by=None, output=None,
               overwrite=False, seed=0, backend="cpu", precision=None,
               memory_budget_gb=None, partitions=None, staging_dir=None, spark=None):
    """nlspark one-sample: sign-flip permutation test against 0. input: images, arrays, files,
    or nilearn SurfaceImages (or GIFTI/MGH files with surface= the mesh: a .surf.gii, a
    FreeSurfer surface or a nilearn PolyMesh); on a surface TFCE and clusters follow PALM (on z
    of t, E = 1, extents in mm2) and maps list the mesh's vertices; vertex_area: each vertex's
    area (a file, an array or a SurfaceImage; default a third of its triangles' areas).
    Maps: observed p, with FWER p_fwer (null_max), with tfce tfce p_tfce p_fwer_tfce, with cluster_threshold cluster_size
    p_fwer_cluster, with cluster_mass cluster_mass p_fwer_cluster_mass; connectivity: the
    clusters' neighbours (6, 18, 26); cluster_rule: 'randomise' (>= T, mass = sum of the
    statistic) or 'nilearn' (> T, mass = sum of |stat| - T)."""
    def build(s):
        d = _defaults(one_sample)
        return (_study(s, input, mask, column, order_by, surface=surface,
                        vertex_area=vertex_area)
                + _options(dict(stat=stat), d)
                + _options(dict(permutations=permutations, tail=tail, fwer=fwer, tfce=tfce,
                                **_clusters(cluster_threshold, cluster_mass, connectivity,
                                            cluster_rule)), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("one-sample", spark, output, overwrite, staging_dir, build)


@_recorded
def two_sample(input, input2, *, stat="welch-t", permutations=5000, tail="two", fwer=True,
               tfce=False, cluster_threshold=None, cluster_mass=None, connectivity=26,
               cluster_rule="randomise", mask=None, surface=None, vertex_area=None,
               column=None, order_by=None, output=None,
               overwrite=False, seed=0, backend="cpu", precision=None, memory_budget_gb=None,
               partitions=None, staging_dir=None, spark=None):
    """nlspark two-sample: label-permutation test of two groups (maps as one_sample)."""
    def build(s):
        d = _defaults(two_sample)
        return (_study(s, input, mask, column, order_by, surface=surface,
                        vertex_area=vertex_area)
                + ["--input2", s.samples(input2, "input2")]
                + _options(dict(stat=stat), d)
                + _options(dict(permutations=permutations, tail=tail, fwer=fwer, tfce=tfce,
                                **_clusters(cluster_threshold, cluster_mass, connectivity,
                                            cluster_rule)), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("two-sample", spark, output, overwrite, staging_dir, build)


@_recorded
def correlation(input, target, *, method="pearson", permutations=5000, tail="two", fwer=True,
                tfce=False, cluster_threshold=None, cluster_mass=None, connectivity=26,
                cluster_rule="randomise", mask=None, surface=None, vertex_area=None,
                column=None, order_by=None, output=None,
                overwrite=False, seed=0, backend="cpu", precision=None, memory_budget_gb=None,
                partitions=None, staging_dir=None, spark=None):
    """nlspark correlation: permutation test of each voxel's correlation with target
    (n_samples,), y permuted (maps as one_sample)."""
    def build(s):
        d = _defaults(correlation)
        return (_study(s, input, mask, column, order_by, surface=surface,
                        vertex_area=vertex_area)
                + ["--target", _vector(s, target, "target")]
                + _options(dict(method=method), d)
                + _options(dict(permutations=permutations, tail=tail, fwer=fwer, tfce=tfce,
                                **_clusters(cluster_threshold, cluster_mass, connectivity,
                                            cluster_rule)), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("correlation", spark, output, overwrite, staging_dir, build)


@_recorded
def glm(input, design, contrasts, *, f_contrasts=None, errors=None,
        exchangeability_blocks=None, whole_blocks=False, variance_groups=None,
        permutations=5000, tail="upper",
        fwer=True, fwer_across_contrasts=False, tfce=False, cluster_threshold=None,
        cluster_mass=None, connectivity=26, cluster_rule="randomise", mask=None,
        surface=None, vertex_area=None, variance_smoothing=None, output=None, overwrite=False,
        seed=0,
        backend="cpu",
        precision="float64", memory_budget_gb=None, partitions=None, staging_dir=None,
        spark=None):
    """nlspark glm: general linear model with permutation inference (Freedman-Lane).
    design: a pandas DataFrame (one row per sample, columns named), an array or a file;
    contrasts: a DataFrame over the design's columns, matched by name (index: contrast names),
    a dict or pandas Series of one contrast ({column: weight}), an array (one row per contrast,
    in the design's column order) or a file; exchangeability_blocks: one id per sample (whole
    numbers, or string labels, numbered 1, 2, ... in order of first appearance), PALM's
    multi-level blocks (a DataFrame or 2-D array, one row per sample, one column per level,
    signed ids) or a file; variance_groups: PALM's -vg, one group id per sample (or a file),
    or "auto" (from the blocks): with two or more groups t and F become the Aspin-Welch v and
    Welch's G (maps vstat{c}, gstat{f} and their p maps, counted on their z with each voxel's
    and draw's Welch degrees of freedom, as PALM counts);
    errors: None (the command line's default: exchangeable, symmetric for a design of one
    constant column), 'exchangeable', 'symmetric' or 'both';
    variance_smoothing: sigma in mm (--variance-smoothing, randomise -v; images, t contrasts
    only): the t maps and their p-values are then of the pseudo-t.
    Maps per t contrast c: tstat{c} p_tstat{c} p_fwer_tstat{c} (null_max_tstat{c}), ..."""
    def build(s):
        d = _defaults(glm)
        columns = getattr(design, "columns", None)
        args = ["--input", s.samples(input, "input"),
                "--design", s.table(design, "design"),
                "--contrasts", s.table(_contrast_table(contrasts, design), "contrasts",
                                       columns=columns)]
        if f_contrasts is not None:
            args += ["--f-contrasts", s.table(f_contrasts, "f-contrasts")]
        if exchangeability_blocks is not None:
            args += ["--exchangeability-blocks", _blocks(s, exchangeability_blocks)]
        if isinstance(variance_groups, str) and variance_groups == "auto":
            args += ["--variance-groups", "auto"]
        elif variance_groups is not None:
            args += ["--variance-groups", _blocks(s, variance_groups, "variance_groups",
                                                  "variance-groups.txt", levels=False)]
        if mask is not None:
            args += ["--mask", s.mask(mask)]
        args += _mesh(s, surface, vertex_area, cifti=_is_cifti(input))
        return (args
                + _options(dict(errors=errors, whole_blocks=whole_blocks,
                                permutations=permutations, tail=tail, fwer=fwer,
                                fwer_across_contrasts=fwer_across_contrasts, tfce=tfce,
                                **_clusters(cluster_threshold, cluster_mass, connectivity,
                                            cluster_rule),
                                variance_smoothing=variance_smoothing), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("glm", spark, output, overwrite, staging_dir, build)


@_recorded
def isc(input, *, mask=None, surface=None, summary="pairwise", metric="median",
        null="bootstrap", samples=None, permutations=None, confidence=0.95, tail="two",
        fwer=True, save_samples=False, output=None, overwrite=False, seed=0, backend="cpu",
        precision="float64", memory_budget_gb=None, partitions=None, staging_dir=None,
        spark=None):
    """nlspark isc: intersubject correlation. input: (subjects, timepoints, voxels) array or
    one 4-D image (or file) per subject, or one surface series per subject (a nilearn
    SurfaceImage of its time points, or GIFTI/MGH/CIFTI files with surface= the mesh, as
    one_sample takes them); samples (null='bootstrap') or permutations (the surrogate nulls)
    default to 5000. Maps: isc p ci_lower ci_upper (p_fwer, null_max)."""
    def build(s):
        d = _defaults(isc)
        return (_study(s, input, mask, None, None, surface=surface, series=True)
                + _options(dict(summary=summary, metric=metric, null=null, samples=samples,
                                permutations=permutations, confidence=confidence, tail=tail,
                                fwer=fwer, save_samples=save_samples), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("isc", spark, output, overwrite, staging_dir, build)


@_recorded
def timeseries_correlation(input, target, *, mask=None, surface=None, null="circle-shift",
                           permutations=5000, tail="two", fwer=True, output=None,
                           overwrite=False, seed=0, backend="cpu", precision="float64",
                           memory_budget_gb=None, partitions=None, staging_dir=None,
                           spark=None):
    """nlspark timeseries-correlation: each voxel's correlation with target (n_timepoints,)
    against surrogates of the target. input: (timepoints, voxels) array or one 4-D image, or
    one surface series (a SurfaceImage of its time points, or a GIFTI/MGH/CIFTI file with
    surface=). Maps: observed p (p_fwer, null_max)."""
    def build(s):
        d = _defaults(timeseries_correlation)
        return (_study(s, input, mask, None, None, surface=surface, series=True)
                + ["--target", _vector(s, target, "target")]
                + _options(dict(null=null, permutations=permutations, tail=tail, fwer=fwer), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("timeseries-correlation", spark, output, overwrite, staging_dir, build)


@_recorded
def ridge_bootstrap(input, target, *, alpha=1.0, x_test=None, samples=5000, confidence=0.95,
                    save_samples=False, output=None, overwrite=False, seed=0, backend="cpu",
                    precision="float64", memory_budget_gb=None, partitions=None,
                    staging_dir=None, spark=None):
    """nlspark ridge-bootstrap: bootstrap of ridge weights (or predictions at x_test).
    input: (n_samples, n_features); target: (n_samples, n_targets) or (n_samples,).
    Maps: mean std ci_lower ci_upper z p."""
    def build(s):
        d = _defaults(ridge_bootstrap)
        args = ["--input", s.samples(input, "input"), "--target", _vector(s, target, "target")]
        if x_test is not None:
            args += ["--x-test", s.samples(x_test, "x-test")]
        return (args
                + _options(dict(alpha=alpha, samples=samples, confidence=confidence,
                                save_samples=save_samples), d)
                + _common(d, seed, backend, precision, memory_budget_gb, partitions))
    return _run("ridge-bootstrap", spark, output, overwrite, staging_dir, build)


def _contrast_table(contrasts, design):
    """contrasts as Staging.table writes them: a dict or Series is one contrast over design
    column names (a one-row table whose header the command line matches by name); a
    DataFrame without column names takes the design's, by position, as an array does."""
    import numpy as np
    import pandas as pd
    if isinstance(contrasts, dict):
        contrasts = pd.DataFrame([contrasts])
    elif isinstance(contrasts, pd.Series):
        index = None if contrasts.name is None else [contrasts.name]
        contrasts = pd.DataFrame([contrasts.to_numpy()], columns=list(contrasts.index),
                                 index=index)
    if not isinstance(contrasts, pd.DataFrame) or isinstance(design, (str, os.PathLike)):
        return contrasts
    if isinstance(design, pd.DataFrame):
        names = list(design.columns)
    else:
        if not isinstance(contrasts.columns, pd.RangeIndex):
            raise ValueError("contrasts= names columns (%s) but design= is an array without"
                             " column names; pass design as a pandas DataFrame"
                             % ", ".join(map(str, contrasts.columns)))
        shape = np.shape(design)
        names = ["c%d" % (j + 1) for j in range(shape[1] if len(shape) == 2 else 1)]
    if isinstance(contrasts.columns, pd.RangeIndex) and len(names) == contrasts.shape[1]:
        contrasts = contrasts.set_axis(names, axis=1)
    return contrasts


def _vector(s, v, name):
    if isinstance(v, (str, os.PathLike)):
        return os.fspath(v)
    return s.array(v, name)


def _blocks(s, b, arg="exchangeability_blocks", name="blocks.txt", levels=True):
    """A blocks file as it is; else one id per sample, read as written: whole numbers, or
    labels (strings) numbered 1, 2, ... in order of first appearance; or PALM's multi-level
    blocks: a table (DataFrame or 2-D array) of whole numbers, one row per sample, one column
    per level, the sign of an id saying whether its sub-blocks move as wholes (+) or stay (-)."""
    if isinstance(b, (str, os.PathLike)):
        return os.fspath(b)
    import numpy as np
    table = np.asarray(getattr(b, "values", b), dtype=object)
    if table.ndim == 2 and table.shape[1] == 1:
        table = table[:, 0]
    if table.ndim > 2 or (table.ndim == 2 and not levels):
        raise ValueError("%s= must be one id per sample%s, but its shape is %s"
                         % (arg, " or a table of one row per sample" if levels else "",
                            table.shape))
    values = list(table.ravel())
    if not values:
        raise ValueError("%s= is empty; give one %s per sample"
                         % (arg, "block id" if levels else "group id"))
    labels = [isinstance(v, str) for v in values]
    if all(labels) and table.ndim == 1:
        numbered = {}
        ids = [numbered.setdefault(v, len(numbered) + 1) for v in values]
    else:
        ids = []
        for i, v in enumerate(values):
            whole = (isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_))
                     and math.isfinite(float(v)) and float(v).is_integer()
                     and abs(float(v)) <= 2 ** 31 - 1)
            if not whole:
                where = ("position %d" % i if table.ndim == 1
                         else "row %d, column %d" % divmod(i, table.shape[1]))
                raise ValueError("%s= holds %r at %s, which is not"
                                 " a whole-number %s; give whole numbers%s"
                                 % (arg, v, where, "block id" if levels else "group id",
                                    ", or labels as strings (all of them)"
                                    if table.ndim == 1 else " (their sign matters)"))
            ids.append(int(v))
    width = 1 if table.ndim == 1 else table.shape[1]
    rows = [ids[r * width:(r + 1) * width] for r in range(len(ids) // width)]
    path = os.path.join(s.dir, name)
    s.labels[path] = arg + "="
    with open(path, "w", encoding="utf-8") as f:
        f.write("".join(" ".join("%d" % v for v in row) + "\n" for row in rows))
    return path
