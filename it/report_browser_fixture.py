"""Inputs for it/report-browser.sh: a small grid with an ellipsoid mask, a blob of effect
planted around a known voxel, X.npy (subjects x mask voxels, nilearn's voxel order) and
mask.nii.gz written by hand (NIfTI-1, uint8, sform), so the check needs only numpy.
Prints the blob's centre in mm and its radius in mm as JSON."""
import gzip
import json
import struct
import sys

import numpy as np

DIMS = (16, 18, 14)
VOXEL_MM = 3.0
ORIGIN_MM = (-24.0, -27.0, -18.0)
BLOB_IJK = (5, 11, 8)
BLOB_RADIUS = 2.0  # voxels
SUBJECTS = 30
EFFECT = 1.5  # SD


def nifti_mask_gz(path, mask):
    hdr = bytearray(348)
    struct.pack_into("<i", hdr, 0, 348)
    struct.pack_into("<8h", hdr, 40, 3, *DIMS, 1, 1, 1, 1)
    struct.pack_into("<hh", hdr, 70, 2, 8)  # uint8, 8 bits
    struct.pack_into("<8f", hdr, 76, 1.0, VOXEL_MM, VOXEL_MM, VOXEL_MM, 1, 1, 1, 1)
    struct.pack_into("<f", hdr, 108, 352.0)  # vox_offset
    struct.pack_into("<ff", hdr, 112, 1.0, 0.0)  # scl_slope, scl_inter
    hdr[123] = 2  # mm
    struct.pack_into("<hh", hdr, 252, 0, 2)  # qform_code, sform_code (aligned)
    struct.pack_into("<4f", hdr, 280, VOXEL_MM, 0, 0, ORIGIN_MM[0])
    struct.pack_into("<4f", hdr, 296, 0, VOXEL_MM, 0, ORIGIN_MM[1])
    struct.pack_into("<4f", hdr, 312, 0, 0, VOXEL_MM, ORIGIN_MM[2])
    hdr[344:348] = b"n+1\0"
    with gzip.open(path, "wb") as f:
        f.write(bytes(hdr) + b"\0\0\0\0" + mask.astype(np.uint8).tobytes(order="F"))


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
    nifti_mask_gz(f"{out}/mask.nii.gz", mask)
    centre = [ORIGIN_MM[a] + VOXEL_MM * BLOB_IJK[a] for a in range(3)]
    print(json.dumps({"centre_mm": centre, "radius_mm": BLOB_RADIUS * VOXEL_MM,
                      "voxels": int(mask.sum()), "blob_voxels": int(blob.sum())}))


if __name__ == "__main__":
    main(sys.argv[1])
