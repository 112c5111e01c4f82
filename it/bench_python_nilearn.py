"""The same second-level analysis in nilearn and in nlspark's drop-in: times and agreement.

A synthetic study (SUBJECTS images of a GRID grid, a planted effect and an age effect), the age
contrast with an intercept, two-sided, TFCE, N_PERM permutations: nilearn's
non_parametric_inference with n_jobs=1 and 2, then nlspark.nilearn's on a local[2] session.
Prints one line per run (wall seconds) and the agreement (max differences of t and TFCE, p).

Run: SPARK_LOCAL_IP=127.0.0.1 target/python-venv/bin/python it/bench_python_nilearn.py
Env: SUBJECTS (40), GRID (30,30,22), N_PERM (1000).
"""

import os
import time
import warnings

import nibabel as nib
import numpy as np
import pandas as pd

subjects = int(os.environ.get("SUBJECTS", "40"))
grid = tuple(int(v) for v in os.environ.get("GRID", "30,30,22").split(","))
n_perm = int(os.environ.get("N_PERM", "1000"))

rng = np.random.default_rng(42)
age = rng.normal(size=subjects)
imgs = []
for i in range(subjects):
    d = rng.normal(size=grid) + 5.0
    d[5:12, 5:12, 4:10] += 0.8
    d[15:22, 14:21, 8:14] += 0.5 * age[i]
    imgs.append(nib.Nifti1Image(d.astype(np.float32), np.diag([3.0, 3.0, 3.0, 1.0])))
dm = pd.DataFrame({"age": age, "intercept": np.ones(subjects)})
args = dict(design_matrix=dm, second_level_contrast="age", n_perm=n_perm, tfce=True,
            two_sided_test=True, random_state=0)
print("study: %d subjects x %d voxels, %d permutations, TFCE, two-sided"
      % (subjects, int(np.prod(grid)), n_perm))

from nilearn.glm.second_level import non_parametric_inference as nilearn_npi  # noqa: E402

results = {}
for jobs in (1, 2):
    t0 = time.time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        results["nilearn%d" % jobs] = nilearn_npi(imgs, n_jobs=jobs, **args)
    print("nilearn n_jobs=%d: %.1f s" % (jobs, time.time() - t0), flush=True)

import nlspark  # noqa: E402
from nlspark.nilearn import non_parametric_inference  # noqa: E402

spark = nlspark.session(master="local[2]")
non_parametric_inference(imgs[:8], design_matrix=dm.iloc[:8], second_level_contrast="age",
                         n_perm=10, spark=spark)  # JVM warm-up, not timed
t0 = time.time()
results["nlspark"] = non_parametric_inference(imgs, spark=spark, **args)
print("nlspark local[2]: %.1f s" % (time.time() - t0), flush=True)

a, b = results["nilearn1"], results["nlspark"]
for k in ("t", "tfce"):
    x, y = a[k].get_fdata(), b[k].get_fdata()
    print("%s: max |diff| %.3g (max |value| %.4g, relative %.3g)" % (
        k, np.abs(x - y).max(), np.abs(x).max(), np.abs(x - y).max() / np.abs(x).max()))
for k in ("logp_max_t", "logp_max_tfce"):
    pa, pb = 10 ** -a[k].get_fdata(), 10 ** -b[k].get_fdata()
    p12 = 10 ** -results["nilearn2"][k].get_fdata()
    sig_a, sig_b = pa < 0.05, pb < 0.05
    print("%s: max |p diff| nlspark-nilearn %.4f (nilearn n_jobs 1 vs 2: %.4f); voxels with"
          " p < 0.05: nilearn %d, nlspark %d, both %d" % (
              k, np.abs(pa - pb).max(), np.abs(pa - p12).max(), sig_a.sum(), sig_b.sum(),
              (sig_a & sig_b).sum()))
spark.stop()
