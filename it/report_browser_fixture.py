"""Inputs for it/report-browser.sh: a small grid with an ellipsoid mask, a blob of effect
planted around a known voxel, X.npy (subjects x mask voxels, nilearn's voxel order), the same
subjects as a 4-D X.nii.gz, noise.nii.gz (the same without the effect), a design with an
intercept and a covariate and its two contrasts, and mask.nii.gz, all written by hand (NIfTI-1,
sform), so the check needs only numpy. The grid is stored LAS (x step negative, as FSL's MNI
templates), and the blob lies at +x: the report must still draw it on the right.
Prints the blob's centre in mm and its radius in mm as JSON."""
import gzip
import json
import struct
import sys

import numpy as np

DIMS = (16, 18, 14)
VOXEL_MM = 3.0
ORIGIN_MM = (24.0, -27.0, -18.0)  # x: from +24 mm at i = 0 down (LAS)
X_STEP_MM = -VOXEL_MM
BLOB_IJK = (5, 11, 8)
BLOB_RADIUS = 2.0  # voxels
SUBJECTS = 30
EFFECT = 1.5  # SD


def nifti_gz(path, data, volumes=1):
    """A NIfTI-1 .nii.gz: uint8 3-D (the mask) or float32 4-D (one volume per subject)."""
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)
    if volumes == 1:
        struct.pack_into("<8h", hdr, 40, 3, *DIMS, 1, 1, 1, 1)
        struct.pack_into("<hh", hdr, 70, 2, 8)  # uint8, 8 bits
        body = data.astype(np.uint8).tobytes(order="F")
    else:
        struct.pack_into("<8h", hdr, 40, 4, *DIMS, volumes, 1, 1, 1)
        struct.pack_into("<hh", hdr, 70, 16, 32)  # float32
        body = data.astype("<f4").tobytes(order="F")
    struct.pack_into("<8f", hdr, 76, 1.0, VOXEL_MM, VOXEL_MM, VOXEL_MM, 1, 1, 1, 1)
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<ff", hdr, 112, 1.0, 0.0)  # scl_slope, scl_inter
    hdr[123] = 2  # mm
    struct.pack_into("<hh", hdr, 252, 0, 2)  # qform_code, sform_code (aligned)
    struct.pack_into("<4f", hdr, 280, X_STEP_MM, 0, 0, ORIGIN_MM[0])
    struct.pack_into("<4f", hdr, 296, 0, VOXEL_MM, 0, ORIGIN_MM[1])
    struct.pack_into("<4f", hdr, 312, 0, 0, VOXEL_MM, ORIGIN_MM[2])
    hdr[344:348] = b"n+1\0"
    with gzip.open(path, "wb") as f:
        f.write(bytes(hdr) + b"\0\0\0\0" + body)


def main(out):
    i, j, k = np.meshgrid(*[np.arange(n) for n in DIMS], indexing="ij")
    c = [(n - 1) / 2 for n in DIMS]
    mask = ((i - c[0]) / c[0]) ** 2 + ((j - c[1]) / c[1]) ** 2 + ((k - c[2]) / c[2]) ** 2 <= 1
    blob = (i - BLOB_IJK[0]) ** 2 + (j - BLOB_IJK[1]) ** 2 + (k - BLOB_IJK[2]) ** 2 \
        <= BLOB_RADIUS ** 2
    assert (blob <= mask).all()
    rng = np.random.default_rng(14)
    x = rng.standard_normal((SUBJECTS, int(mask.sum())))
    x[:, blob[mask]] += EFFECT
    np.save(f"{out}/X.npy", x)
    nifti_gz(f"{out}/mask.nii.gz", mask)
    for name, values in (("X", x), ("noise", rng.standard_normal(x.shape))):
        vol = np.zeros(DIMS + (SUBJECTS,), dtype=np.float32)
        vol[mask] = values.T  # boolean indexing walks C order: nilearn's voxel order
        nifti_gz(f"{out}/{name}.nii.gz", vol, SUBJECTS)
    age = np.round(rng.standard_normal(SUBJECTS), 3)
    with open(f"{out}/design.csv", "w") as f:
        f.write("intercept,age\n" + "".join(f"1,{a}\n" for a in age))
    with open(f"{out}/contrasts.csv", "w") as f:
        f.write("intercept,age\n1,0\n0,1\n")
    step = (X_STEP_MM, VOXEL_MM, VOXEL_MM)
    centre = [ORIGIN_MM[a] + step[a] * BLOB_IJK[a] for a in range(3)]
    print(json.dumps({"centre_mm": centre, "radius_mm": BLOB_RADIUS * VOXEL_MM,
                      "voxels": int(mask.sum()), "blob_voxels": int(blob.sum())}))


if __name__ == "__main__":
    main(sys.argv[1])
