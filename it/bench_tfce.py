"""TFCE benchmark helper for it/bench-tfce.sh (numpy + scipy only).

  python3 bench_tfce.py make DIR SEED      writes DIR/mask.npy and DIR/map.npy (float64, 3-D)
  python3 bench_tfce.py loop DIR TAIL      times the textbook loop, writes DIR/python-TAIL.npy
  python3 bench_tfce.py compare A.npy B.npy RTOL

The map is a 2 mm MNI-sized grid (91 x 109 x 91) with an ellipsoid brain mask of about
230,000 voxels and smooth Gaussian noise (sigma 2 voxels) scaled like a t map, plus one
positive and one negative blob. The loop is nilearn's calculate_tfce: 100 thresholds from
np.linspace(0, max, 101)[1:], each labelled with scipy.ndimage.label and face connectivity,
cluster sizes by bincount, E = 0.5, H = 2, the step not multiplied in.
"""
import sys
import time

import numpy as np
from scipy import ndimage

SHAPE = (91, 109, 91)


def make(out_dir, seed):
    rng = np.random.default_rng(seed)
    i, j, k = np.indices(SHAPE, dtype=float)
    ci, cj, ck = 45.0, 54.0, 40.0
    mask = ((i - ci) / 36.0) ** 2 + ((j - cj) / 45.0) ** 2 + ((k - ck) / 34.0) ** 2 <= 1.0
    noise = ndimage.gaussian_filter(rng.standard_normal(SHAPE), sigma=2.0)
    noise /= noise[mask].std()
    blob = lambda a, b, c, r: np.exp(-((i - a) ** 2 + (j - b) ** 2 + (k - c) ** 2) / (2 * r * r))
    stat = 1.5 * noise + 4.0 * blob(30, 40, 40, 5) - 3.5 * blob(60, 70, 35, 4)
    stat[~mask] = 0.0
    np.save(f"{out_dir}/mask.npy", mask.astype(np.float64))
    np.save(f"{out_dir}/map.npy", stat.astype(np.float64))
    print(f"mask voxels: {int(mask.sum())}", file=sys.stderr)


def textbook_tfce(arr3d, two_sided, E=0.5, H=2.0):
    bin_struct = ndimage.generate_binary_structure(3, 1)
    max_score = np.nanmax(np.abs(arr3d)) if two_sided else np.nanmax(arr3d)
    score_threshs = np.linspace(0, max_score, 101)[1:]
    tfce = np.zeros_like(arr3d)
    for sign in ([-1, 1] if two_sided else [1]):
        temp = arr3d * sign
        for thresh in score_threshs:
            temp[temp < thresh] = 0
            labeled, _ = ndimage.label(temp, bin_struct)
            flat = labeled.ravel()
            nz = np.flatnonzero(flat)
            lab = flat[nz]
            counts = np.bincount(lab)
            step = np.zeros(flat.shape)
            step[nz] = (sign * (counts ** E) * (thresh ** H))[lab]
            tfce += step.reshape(arr3d.shape)
    return tfce


def loop(out_dir, tail):
    mask = np.load(f"{out_dir}/mask.npy") != 0
    stat = np.load(f"{out_dir}/map.npy")
    times = []
    cpu = []
    for _ in range(2):
        t0 = time.perf_counter()
        c0 = time.process_time()
        tfce = textbook_tfce(stat, tail == "two")
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    np.save(f"{out_dir}/python-{tail}.npy", tfce[mask])  # C order = NiftiMasker order
    print(f'{{"tail": "{tail}", "python_best_ms": {1000 * min(times):.1f}, '
          f'"python_cpu_best_ms": {1000 * min(cpu):.1f}}}')


def compare(a_path, b_path, rtol):
    a = np.load(a_path)
    b = np.load(b_path)
    if a.shape != b.shape:
        sys.exit(f"shapes differ: {a.shape} vs {b.shape}")
    nz = b != 0
    if np.any(a[~nz] != 0):
        sys.exit(f"{int(np.sum(a[~nz] != 0))} voxels are non-zero in {a_path} but zero in {b_path}")
    rel = np.abs(a[nz] - b[nz]) / np.abs(b[nz])
    worst = float(rel.max()) if rel.size else 0.0
    print(f'{{"max_relative_difference": {worst:.3e}, "nonzero_voxels": {int(nz.sum())}}}')
    if not worst <= rtol:
        sys.exit(f"TFCE maps differ: max relative difference {worst:.3e} > {rtol}")


if __name__ == "__main__":
    cmd = sys.argv[1]
    if cmd == "make":
        make(sys.argv[2], int(sys.argv[3]))
    elif cmd == "loop":
        loop(sys.argv[2], sys.argv[3])
    elif cmd == "compare":
        compare(sys.argv[2], sys.argv[3], float(sys.argv[4]))
    else:
        sys.exit(f"unknown command: {cmd}")
