"""The same calls in a classic session and in a Spark Connect session (it/spark-connect.sh runs
this file once in each and compares what they write): one_sample on an array, glm on images with
a named contrast, the nilearn drop-in with TFCE, Result.write, and the refusals (ValueError from
a bad argument the JVM refuses, nlspark.ResourceError from a GPU run on a machine without one).

    python connect_parity.py classic OUT     a local classic session (nlspark.session())
    python connect_parity.py sc://HOST:PORT OUT   a Spark Connect session
OUT gets one directory per call (each call's output files), nilearn.npz (the drop-in's images),
errors.json ({call: [exception type, message]}) and timings.json (seconds per call)."""

import json
import os
import sys
import time

import nibabel as nib
import numpy as np
import pandas as pd

import nlspark


def study(n=16, shape=(7, 6, 5), seed=3):
    rng = np.random.default_rng(seed)
    age = rng.normal(size=n)
    imgs = []
    for i in range(n):
        d = rng.normal(size=shape) + 5.0
        d[2:5, 2:5, 1:4] += 0.9 + 0.5 * age[i]
        imgs.append(nib.Nifti1Image(d.astype(np.float32), np.diag([3.0, 3.0, 3.0, 1.0])))
    return imgs, age


def main(where, out):
    from pyspark.sql import SparkSession
    started = time.monotonic()
    if where == "classic":
        spark = nlspark.session(master="local[2]")
    else:
        spark = SparkSession.builder.remote(where).getOrCreate()
    timings = {"session": time.monotonic() - started}
    os.makedirs(out)
    imgs, age = study()
    x = np.random.default_rng(5).normal(size=(12, 40)) + 0.3
    design = pd.DataFrame({"intercept": np.ones(len(imgs)), "age": age})
    contrast = pd.DataFrame([[0.0, 1.0]], columns=["intercept", "age"], index=["age_effect"])

    def timed(name, fn):
        t = time.monotonic()
        value = fn()
        timings[name] = time.monotonic() - t
        return value

    timed("one_sample", lambda: nlspark.one_sample(
        x, permutations=200, seed=4, output=os.path.join(out, "one_sample"), spark=spark))
    # the same call again into the same directory runs again (no cached answer)
    again = [nlspark.one_sample(x, permutations=200, seed=4, output=os.path.join(out, "rerun"),
                                overwrite=True, spark=spark).summary["timings"]["wall_seconds"]
             for _ in range(2)]
    assert again[0] != again[1], "the second call did not run: %s" % again
    result = timed("glm", lambda: nlspark.glm(
        imgs, design, contrast, permutations=100, tfce=True, seed=7,
        output=os.path.join(out, "glm"), spark=spark))
    timed("write", lambda: result.write(os.path.join(out, "glm_copy")))

    from nlspark.nilearn import non_parametric_inference
    maps = timed("nilearn", lambda: non_parametric_inference(
        imgs, design_matrix=design[["intercept"]], second_level_contrast="intercept",
        n_perm=100, tfce=True, two_sided_test=True, random_state=0, spark=spark))
    np.savez(os.path.join(out, "nilearn.npz"),
             **{k: np.asarray(v.get_fdata()) for k, v in maps.items()})

    errors = {}
    for name, fn in {
        "tail": lambda: nlspark.one_sample(x, tail="sideways", spark=spark),
        "contrast": lambda: nlspark.glm(
            imgs, design, pd.DataFrame([[0.0, 1.0]], columns=["intercept", "agee"]),
            permutations=10, spark=spark),
        "gpu": lambda: nlspark.isc(np.zeros((3, 20, 4)) + np.arange(4), backend="gpu",
                                   spark=spark),
    }.items():
        try:
            fn()
            errors[name] = ["none", ""]
        except (ValueError, nlspark.ResourceError) as e:
            errors[name] = [type(e).__name__, str(e)]
    with open(os.path.join(out, "errors.json"), "w") as f:
        json.dump(errors, f, indent=1, sort_keys=True)
    with open(os.path.join(out, "timings.json"), "w") as f:
        json.dump(timings, f, indent=1)
    spark.stop()


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
