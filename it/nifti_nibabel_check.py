"""Cross-checks nlspark's NIfTI reader and writer against nibabel (DESIGN section 8).

nibabel writes images (3-D and 4-D, every supported dtype, scl_slope, big-endian, NIfTI-2,
qform-only and pixdim-only affines); the Java side (NibabelBridge, run as JAVA_CMD) reads them
and dumps values and affines, which are compared here with nibabel's get_fdata() and affine.
Then the Java side writes maps and masks on nibabel-made masks, and nibabel opens them: same
values (in NiftiMasker's voxel order), fill outside the mask, same affine and codes.

Usage: nifti_nibabel_check.py WORK_DIR JAVA_CMD...
Prints "nifti-nibabel: N passed, M failed" and exits 1 when M > 0.
"""
import json
import os
import subprocess
import sys

import nibabel as nib
import numpy as np

WORK = sys.argv[1]
JAVA = sys.argv[2:]
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


def java(*args):
    subprocess.run(JAVA + [str(a) for a in args], check=True)


def path(name):
    return os.path.join(WORK, name)


def rotation_affine(zooms, degrees, offset, flip):
    t = np.deg2rad(degrees)
    r = np.array([[np.cos(t), -np.sin(t), 0], [np.sin(t), np.cos(t), 0], [0, 0, 1]])
    m = r @ np.diag(zooms)
    if flip:
        m[:, 2] *= -1  # negative determinant: qfac -1
    a = np.eye(4)
    a[:3, :3] = m
    a[:3, 3] = offset
    return a


MNI = np.array([[-2.0, 0, 0, 90], [0, 2, 0, -126], [0, 0, 2, -72], [0, 0, 0, 1]])


def values_for(dtype, shape):
    if np.dtype(dtype).kind in "ui":
        info = np.iinfo(dtype)
        v = rng.integers(info.min, info.max, size=shape, endpoint=True).astype(dtype)
        v.flat[0], v.flat[-1] = info.min, info.max
        return v
    return rng.normal(0, 100, size=shape).astype(dtype)


# ------------------------------------------------------------------ nibabel writes, Java reads
cases = {}


def save(name, img):
    img.to_filename(path(name))
    cases[name] = img


shape3 = (7, 6, 5)
for dtype in ["uint8", "int8", "int16", "uint16", "int32", "float32", "float64"]:
    save(f"plain_{dtype}.nii.gz", nib.Nifti1Image(values_for(dtype, shape3), MNI))

# Float data stored as integers: nibabel chooses scl_slope/scl_inter itself.
for dtype in ["int16", "uint8", "int32"]:
    img = nib.Nifti1Image(rng.normal(50, 20, size=shape3).astype(np.float64), MNI)
    img.set_data_dtype(dtype)
    save(f"scaled_{dtype}.nii", img)
# An explicit slope and intercept on raw integers.
img = nib.Nifti1Image(values_for("int16", shape3), MNI)
img.header.set_slope_inter(0.25, -7.5)
img.to_filename(path("explicit_slope.nii.gz"))
cases["explicit_slope.nii.gz"] = nib.load(path("explicit_slope.nii.gz"))

# Big-endian, 4-D with a time axis, and a trailing singleton.
be = nib.Nifti1Header(endianness=">")
save("bigendian_float32_4d.nii.gz",
     nib.Nifti1Image(values_for("float32", shape3 + (4,)), MNI, header=be))
save("bigendian_int16_scaled.nii",
     nib.Nifti1Image(rng.normal(0, 5, shape3), MNI, header=nib.Nifti1Header(endianness=">"),
                     dtype=np.int16))
save("trailing_singleton.nii.gz", nib.Nifti1Image(values_for("float32", shape3 + (1,)), MNI))

# NIfTI-2, 3-D and 4-D.
save("nifti2_float64.nii.gz", nib.Nifti2Image(values_for("float64", shape3), MNI))
save("nifti2_uint16_4d.nii", nib.Nifti2Image(values_for("uint16", shape3 + (3,)), MNI))
save("nifti2_bigendian.nii.gz",
     nib.Nifti2Image(values_for("int32", shape3), MNI, header=nib.Nifti2Header(endianness=">")))

# qform only (rotation, both qfac signs) and pixdim only.
for flip in (False, True):
    aff = rotation_affine([2.0, 3.0, 4.0], 30, [10.5, -20.25, 30.0], flip)
    img = nib.Nifti1Image(values_for("float32", shape3), None)
    img.set_qform(aff, code=1)
    img.set_sform(None, code=0)
    save(f"qform_only_flip{int(flip)}.nii.gz", img)
img = nib.Nifti2Image(values_for("float32", shape3), None)
img.set_qform(rotation_affine([1.5, 1.5, 2.5], -75, [1, 2, 3], True), code=2)
img.set_sform(None, code=0)
save("qform_only_nifti2.nii.gz", img)
img = nib.Nifti1Image(values_for("int16", shape3), None)
img.header.set_zooms((2.5, 3.0, 3.5))
img.set_qform(None, code=0)
img.set_sform(None, code=0)
save("pixdim_only.nii", img)

java("read", WORK, *[path(n) for n in cases])
for name, img in cases.items():
    img = nib.load(path(name))  # as a reader sees the file
    base = name.replace(".nii.gz", "").replace(".nii", "")
    meta = json.load(open(path(base + ".json")))
    expected = np.asarray(img.get_fdata(), dtype=np.float64)
    flat = expected.reshape(-1, order="F")
    got64 = np.fromfile(path(base + ".f64"), dtype="<f8")
    got32 = np.fromfile(path(base + ".f32"), dtype="<f4")
    squeezed = tuple(img.shape)
    while len(squeezed) > 3 and squeezed[-1] == 1:
        squeezed = squeezed[:-1]
    check(f"{name} shape", tuple(meta["shape"]) == squeezed, f"{meta['shape']} vs {img.shape}")
    check(f"{name} float64 values", got64.shape == flat.shape and np.array_equal(got64, flat),
          f"max diff {np.max(np.abs(got64 - flat)) if got64.shape == flat.shape else 'shape'}")
    check(f"{name} float32 values",
          got32.shape == flat.shape and np.array_equal(got32, flat.astype(np.float32)),
          "differs from get_fdata() rounded once to float32")
    aff = np.array(meta["affine"])
    check(f"{name} affine", np.allclose(aff, img.affine, rtol=0, atol=1e-6),
          f"max diff {np.max(np.abs(aff - img.affine))}\n{aff}\nvs nibabel\n{img.affine}")
    check(f"{name} dtype", meta["datatype"] == str(img.get_data_dtype().newbyteorder("=")),
          f"{meta['datatype']} vs {img.get_data_dtype()}")
    check(f"{name} byte order",
          meta["big_endian"] == (img.header.endianness == ">"), str(meta["big_endian"]))

# ------------------------------------------------------------------ Java writes, nibabel reads
mask_shape = (9, 8, 7)
for version, klass in ((1, nib.Nifti1Image), (2, nib.Nifti2Image)):
    for kind in ("sform_qform", "qform_only", "pixdim_only"):
        m = (rng.random(mask_shape) > 0.4).astype(np.float32) * rng.integers(1, 4, mask_shape)
        m[0, 0, 0] = 1
        mask_img = klass(m, None)
        if kind == "sform_qform":
            mask_img.set_qform(rotation_affine([2, 2, 2.5], 10, [-3, 4, -5], True), code=1)
            mask_img.set_sform(MNI, code=4)
        elif kind == "qform_only":
            mask_img.set_qform(rotation_affine([1, 2, 3], 45, [7, 8, 9], False), code=2)
            mask_img.set_sform(None, code=0)
        else:
            mask_img.header.set_zooms((3.0, 3.0, 3.0))
            mask_img.set_qform(None, code=0)
            mask_img.set_sform(None, code=0)
        tag = f"v{version}_{kind}"
        mask_file = path(f"mask_{tag}.nii.gz")
        mask_img.to_filename(mask_file)
        mask_img = nib.load(mask_file)
        selected = np.asarray(mask_img.dataobj) != 0
        values = rng.normal(0, 3, int(selected.sum())).astype("<f4")
        values.tofile(path(f"values_{tag}.f32"))
        for fill in (0.0, 1.0):
            out = path(f"map_{tag}_fill{int(fill)}.nii.gz")
            java("write-map", mask_file, path(f"values_{tag}.f32"), fill, out)
            img = nib.load(out)
            data = np.asarray(img.dataobj)
            label = f"map {tag} fill {fill}"
            check(f"{label} opens as NIfTI-{version}",
                  isinstance(img, klass) and data.dtype == np.float32, f"{type(img)} {data.dtype}")
            # NiftiMasker's order: numpy boolean indexing, C order over (i, j, k).
            check(f"{label} values", np.array_equal(data[selected], values), "differ")
            check(f"{label} outside", np.all(data[~selected] == fill), "fill differs")
            check(f"{label} affine", np.array_equal(img.affine, mask_img.affine),
                  f"{img.affine}\nvs mask\n{mask_img.affine}")
            for field in ("sform_code", "qform_code", "quatern_b", "quatern_c", "quatern_d",
                          "qoffset_x", "qoffset_y", "qoffset_z", "srow_x", "srow_y", "srow_z"):
                check(f"{label} {field}",
                      np.array_equal(img.header[field], mask_img.header[field]),
                      f"{img.header[field]} vs {mask_img.header[field]}")
            check(f"{label} qform", np.array_equal(img.get_qform(), mask_img.get_qform()),
                  "qform matrix differs")
        written_mask = path(f"written_mask_{tag}.nii.gz")
        java("write-mask", mask_file, written_mask)
        wm = nib.load(written_mask)
        check(f"mask {tag} uint8", wm.get_data_dtype() == np.uint8, str(wm.get_data_dtype()))
        check(f"mask {tag} values", np.array_equal(np.asarray(wm.dataobj), selected.astype(np.uint8)),
              "differ")
        check(f"mask {tag} affine", np.array_equal(wm.affine, mask_img.affine), "differs")

        # Voxel order of extraction: the image's values at the mask, as NiftiMasker takes them.
        image = nib.Nifti1Image(values_for("float32", mask_shape), mask_img.affine,
                                header=mask_img.header if version == 1 else None)
        if version == 2:
            image = nib.Nifti2Image(np.asarray(image.dataobj), None, header=mask_img.header)
            image.set_data_dtype(np.float32)
        image_file = path(f"image_{tag}.nii.gz")
        image.to_filename(image_file)
        java("masked", mask_file, image_file, path(f"masked_{tag}.f64"))
        got = np.fromfile(path(f"masked_{tag}.f64"), dtype="<f8")
        expected = nib.load(image_file).get_fdata()[selected]
        check(f"masked {tag} in NiftiMasker order", np.array_equal(got, expected), "differs")

# ------------------------------------------------------------------ default mask
samples = []
for s in range(6):
    v = values_for("float32", mask_shape)
    v[rng.random(mask_shape) < 0.3] = 0
    if s == 2:
        v[rng.random(mask_shape) < 0.05] = np.nan
    if s == 4:
        v[rng.random(mask_shape) < 0.05] = np.inf
    samples.append(v)
samples[0][1, 2, 3] = np.nan
files = []
for s, v in enumerate(samples):
    f = path(f"sample_{s}.nii.gz")
    nib.Nifti1Image(v, MNI).to_filename(f)
    files.append(f)
java("default-mask", path("default_mask.nii.gz"), *files)
stack = np.stack([nib.load(f).get_fdata() for f in files])
rule = np.all(np.isfinite(stack), axis=0) & np.any(stack != 0, axis=0)
dm = nib.load(path("default_mask.nii.gz"))
check("default mask rule", np.array_equal(np.asarray(dm.dataobj) != 0, rule),
      f"{int((np.asarray(dm.dataobj) != 0).sum())} vs {int(rule.sum())} voxels")
check("default mask affine", np.array_equal(dm.affine, MNI), "differs")

print(f"nifti-nibabel: {passed} passed, {len(failed)} failed")
sys.exit(1 if failed else 0)
