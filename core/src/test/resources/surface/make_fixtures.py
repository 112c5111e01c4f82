"""Writes the surface test files of core's tests with nibabel (the peer reader and writer).

Run from this directory with a Python that has nibabel and numpy:
    python make_fixtures.py
The mesh is a once-subdivided icosahedron (42 vertices, 80 triangles) of radius 50 mm; sample s
holds (s + 1) / 4 + v / 64 at vertex v, values that are exact in float32, so a reader is checked
to the bit.
"""
import numpy as np
import nibabel as nib
from nibabel.gifti import GiftiDataArray, GiftiImage


def icosphere():
    t = (1 + 5 ** 0.5) / 2
    v = [(-1, t, 0), (1, t, 0), (-1, -t, 0), (1, -t, 0), (0, -1, t), (0, 1, t),
         (0, -1, -t), (0, 1, -t), (t, 0, -1), (t, 0, 1), (-t, 0, -1), (-t, 0, 1)]
    f = [(0, 11, 5), (0, 5, 1), (0, 1, 7), (0, 7, 10), (0, 10, 11), (1, 5, 9), (5, 11, 4),
         (11, 10, 2), (10, 7, 6), (7, 1, 8), (3, 9, 4), (3, 4, 2), (3, 2, 6), (3, 6, 8),
         (3, 8, 9), (4, 9, 5), (2, 4, 11), (6, 2, 10), (8, 6, 7), (9, 8, 1)]
    v = [np.array(p, float) / np.linalg.norm(p) for p in v]
    mid = {}

    def middle(a, b):
        key = (min(a, b), max(a, b))
        if key not in mid:
            p = v[a] + v[b]
            v.append(p / np.linalg.norm(p))
            mid[key] = len(v) - 1
        return mid[key]

    faces = []
    for a, b, c in f:
        ab, bc, ca = middle(a, b), middle(b, c), middle(c, a)
        faces += [(a, ab, ca), (b, bc, ab), (c, ca, bc), (ab, bc, ca)]
    return (50 * np.array(v)).astype(np.float32), np.array(faces, np.int32)


coords, faces = icosphere()
mesh = GiftiImage(darrays=[
    GiftiDataArray(coords, intent="NIFTI_INTENT_POINTSET", datatype="NIFTI_TYPE_FLOAT32"),
    GiftiDataArray(faces, intent="NIFTI_INTENT_TRIANGLE", datatype="NIFTI_TYPE_INT32")])
nib.save(mesh, "ico42.surf.gii")
nib.freesurfer.write_geometry("ico42.white", coords, faces)

values = np.array([[(s + 1) / 4 + v / 64 for v in range(42)] for s in range(3)], np.float32)
encodings = ["ASCII", "B64BIN", "B64GZ"]
nib.save(GiftiImage(darrays=[
    GiftiDataArray(values[s], intent="NIFTI_INTENT_NONE", datatype="NIFTI_TYPE_FLOAT32",
                   encoding=encodings[s]) for s in range(3)]), "data.func.gii")
nib.save(GiftiImage(darrays=[
    GiftiDataArray(np.ascontiguousarray(values.T), intent="NIFTI_INTENT_NONE",
                   datatype="NIFTI_TYPE_FLOAT32", ordering="ColumnMajorOrder")]),
         "data-columns.func.gii")
for s in range(3):
    nib.save(GiftiImage(darrays=[GiftiDataArray(values[s], datatype="NIFTI_TYPE_FLOAT32")]),
             f"sub-{s + 1}.shape.gii")
mgh = nib.MGHImage(values.T.reshape(42, 1, 1, 3), np.eye(4))
nib.save(mgh, "data.mgh")
nib.save(mgh, "data.mgz")
mask = np.ones(42, np.int32)
mask[[0, 12, 13]] = 0
nib.save(GiftiImage(darrays=[GiftiDataArray(mask, intent="NIFTI_INTENT_LABEL",
                                            datatype="NIFTI_TYPE_INT32")]), "mask.label.gii")
