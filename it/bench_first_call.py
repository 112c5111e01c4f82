"""The first call of a fresh Python process beside the command line's cold run (issue: a first
call as quick as the command line's). One study: SUBJECTS images of a GRID grid (default 20 x
11,520 voxels), intercept only, two-sided, TFCE, N_PERM (1000) sign flips.

    python it/bench_first_call.py prepare DIR   writes DIR/s*.nii.gz, DIR/list.txt
    python it/bench_first_call.py python DIR    in this fresh process: import, session, first and
                                                second non_parametric_inference; prints JSON
it/bench-first-call.sh runs both and the command line (bin/nlspark one-sample on the same files)."""

import json
import os
import sys
import time

T0 = time.monotonic()
SUBJECTS = int(os.environ.get("SUBJECTS", "20"))
GRID = tuple(int(v) for v in os.environ.get("GRID", "20,24,24").split(","))
N_PERM = int(os.environ.get("N_PERM", "1000"))


def prepare(directory):
    import nibabel as nib
    import numpy as np
    rng = np.random.default_rng(42)
    os.makedirs(directory, exist_ok=True)
    names = []
    for i in range(SUBJECTS):
        d = rng.normal(size=GRID) + 0.2
        d[4:10, 5:12, 6:12] += 0.8
        name = os.path.join(directory, "s%02d.nii.gz" % i)
        nib.save(nib.Nifti1Image(d.astype(np.float32), np.diag([3.0, 3.0, 3.0, 1.0])), name)
        names.append(name)
    with open(os.path.join(directory, "list.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


def python(directory):
    with open(os.path.join(directory, "list.txt")) as f:
        names = f.read().split()
    t = {}
    import pandas as pd
    import nlspark
    from nlspark.nilearn import non_parametric_inference
    t["import"] = time.monotonic() - T0
    s = time.monotonic()
    spark = nlspark.session(master="local[2]")
    t["session"] = time.monotonic() - s
    args = dict(design_matrix=pd.DataFrame({"intercept": [1.0] * len(names)}),
                second_level_contrast="intercept", n_perm=N_PERM, tfce=True,
                two_sided_test=True, random_state=0, spark=spark)
    s = time.monotonic()
    non_parametric_inference(names, **args)
    t["first_call"] = time.monotonic() - s
    s = time.monotonic()
    non_parametric_inference(names, **args)
    t["second_call"] = time.monotonic() - s
    t["process_to_first_result"] = t["import"] + t["session"] + t["first_call"]
    print(json.dumps({k: round(v, 2) for k, v in t.items()}))


if __name__ == "__main__":
    {"prepare": prepare, "python": python}[sys.argv[1]](sys.argv[2])
