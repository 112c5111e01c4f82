"""nlspark's command line on a study nibabel wrote, its maps read back by nibabel (DESIGN §8).

Usage: nifti_cli_check.py WORK_DIR NLSPARK
Prints "nifti-cli: N passed, M failed" and exits 1 when M > 0.
"""
import json
import os
import subprocess
import sys

import nibabel as nib
import numpy as np

WORK = sys.argv[1]
NLSPARK = sys.argv[2]
rng = np.random.default_rng(20261201)
passed = 0
failed = []


def check(name, ok, detail=""):
    global passed
    if ok:
        passed += 1
    else:
        failed.append(f"{name}: {detail}")
        print(f"FAIL {name}: {detail}", file=sys.stderr)


def path(*names):
    return os.path.join(WORK, *names)


def nlspark(*args):
    r = subprocess.run([NLSPARK, *[str(a) for a in args], "--quiet"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        print(r.stderr, file=sys.stderr)
    return r


# An oblique-free but flipped affine with a non-trivial offset, sform and qform both set.
shape = (9, 11, 7)
affine = np.array([[-2.5, 0, 0, 40.0], [0, 2.5, 0, -60.0], [0, 0, 3.0, -20.5], [0, 0, 0, 1]])
i, j, k = np.indices(shape)
mask = ((i - 4.2) / 4.0) ** 2 + ((j - 5.1) / 5.0) ** 2 + ((k - 3.0) / 3.2) ** 2 <= 1.0
n_subjects = 10


def save(img_data, name, dtype, **header):
    img = nib.Nifti1Image(img_data.astype(dtype), affine)
    img.header.set_data_dtype(dtype)
    img.set_qform(affine, code=1)
    img.set_sform(affine, code=4)
    for key, value in header.items():
        img.header[key] = value
    nib.save(img, path(name))
    return img


save(mask.astype(np.uint8), "mask.nii.gz", np.uint8)
os.makedirs(path("subjects"))
volumes = []
for s in range(n_subjects):
    v = np.zeros(shape, np.float32)
    v[mask] = rng.normal(0.4, 1.0, mask.sum()).astype(np.float32)
    volumes.append(v)
    save(v, os.path.join("subjects", f"sub-{s:02d}.nii.gz"), np.float32)
with open(path("subjects.txt"), "w") as f:
    f.write("".join(f"subjects/sub-{s:02d}.nii.gz\n" for s in range(n_subjects)))
# nilearn's NiftiMasker order: numpy boolean indexing of (i, j, k) arrays, C order.
X = np.stack([v[mask] for v in volumes])
np.save(path("X.npy"), X)

# A 4-D int16 file with a slope: nlspark applies it as nibabel does (get_fdata).
raw = rng.integers(-3000, 3000, size=shape + (n_subjects,)).astype(np.int16)
raw[~mask] = 0
img4 = nib.Nifti1Image(raw, affine)
img4.header.set_data_dtype(np.int16)
img4.header.set_slope_inter(0.001, 0.0)
img4.set_sform(affine, code=4)
nib.save(img4, path("scaled_4d.nii.gz"))
scaled = np.asarray(nib.load(path("scaled_4d.nii.gz")).get_fdata(dtype=np.float64))
# nlspark holds scaled int16 data in float32 when the slope is a float32 (DESIGN §8).
X4 = np.stack([scaled[..., s][mask] for s in range(n_subjects)]).astype(np.float32)
np.save(path("X4.npy"), X4)

common = ["--seed", "7"]
runs = {
    "list": ["one-sample", "--input", path("subjects.txt"), "--mask", path("mask.nii.gz"),
             "--permutations", "200"],
    "npy": ["one-sample", "--input", path("X.npy"), "--permutations", "200"],
    "scaled": ["one-sample", "--input", path("scaled_4d.nii.gz"), "--mask",
               path("mask.nii.gz"), "--permutations", "200"],
    "scaled_npy": ["one-sample", "--input", path("X4.npy"), "--permutations", "200"],
    "boot_dir": ["bootstrap", "--input", path("subjects"), "--samples", "100"],
    "boot_npy": ["bootstrap", "--input", path("X.npy"), "--samples", "100"],
}
for name, args in runs.items():
    r = nlspark(*args, *common, "--output", path("out", name))
    check(f"{name} exits 0", r.returncode == 0, r.stderr[-2000:])


def same_npy(a, b, names):
    for n in names:
        fa, fb = path("out", a, n + ".npy"), path("out", b, n + ".npy")
        ok = os.path.exists(fa) and os.path.exists(fb) and open(fa, "rb").read() == open(fb,
                                                                                         "rb").read()
        check(f"{a} {n}.npy == {b}", ok)


same_npy("list", "npy", ["observed", "p", "p_fwer", "null_max"])
same_npy("scaled", "scaled_npy", ["observed", "p", "p_fwer"])
same_npy("boot_dir", "boot_npy", ["mean", "std", "ci_lower", "ci_upper", "z", "p"])

for run, names in [("list", ["observed", "p", "p_fwer"]),
                   ("boot_dir", ["mean", "std", "ci_lower", "ci_upper", "z", "p"])]:
    for n in names:
        f = path("out", run, n + ".nii.gz")
        if not os.path.exists(f):
            check(f"{run}/{n}.nii.gz exists", False)
            continue
        img = nib.load(f)
        data = np.asarray(img.dataobj)
        values = np.load(path("out", run, n + ".npy"))
        check(f"{run}/{n} float32", img.get_data_dtype() == np.float32, img.get_data_dtype())
        check(f"{run}/{n} affine", np.allclose(img.affine, affine, atol=1e-6), img.affine)
        check(f"{run}/{n} sform code", int(img.header["sform_code"]) == 4)
        check(f"{run}/{n} shape", data.shape == shape, data.shape)
        check(f"{run}/{n} values", np.array_equal(data[mask], values.astype(np.float32),
                                                  equal_nan=True))
        outside = 1.0 if n.startswith("p") else 0.0
        check(f"{run}/{n} outside = {outside}", np.all(data[~mask] == outside))
    check(f"{run} null_max stays .npy", not os.path.exists(path("out", run, "null_max.nii.gz")))

computed = nib.load(path("out", "boot_dir", "mask.nii.gz"))
check("computed mask = non-zero voxels", np.array_equal(np.asarray(computed.dataobj) > 0, mask))
check("computed mask affine", np.allclose(computed.affine, affine, atol=1e-6))
summary = json.load(open(path("out", "boot_dir", "summary.json")))
check("summary grid", summary.get("grid", {}).get("mask_source") == "computed"
      and summary["grid"]["mask_voxels"] == int(mask.sum()), summary.get("grid"))
check("given mask not copied", not os.path.exists(path("out", "list", "mask.nii.gz")))

# A subject on another grid is refused with exit 2, naming the file.
odd = np.zeros((9, 11, 8), np.float32)
nib.save(nib.Nifti1Image(odd, affine), path("odd.nii.gz"))
with open(path("odd.txt"), "w") as f:
    f.write("subjects/sub-00.nii.gz\nodd.nii.gz\n")
r = subprocess.run([NLSPARK, "one-sample", "--input", path("odd.txt"), "--mask",
                    path("mask.nii.gz"), "--output", path("out", "odd")], capture_output=True,
                   text=True)
check("off-grid subject exits 2", r.returncode == 2 and "odd.nii.gz" in r.stderr
      and "dims (9,11,8)" in r.stderr, (r.returncode, r.stderr[-500:]))

print(f"nifti-cli: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
