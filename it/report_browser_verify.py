"""Checks what headless Chromium saw on a report.html (the JSON of report-browser-check.mjs)
against the output directory's .npy files. Prints one line per check, PASS or FAIL, and exits
with the number of failures (0 when all passed).
Usage: report_browser_verify.py PAGE.json OUTPUT_DIR [PLANTED.json]"""
import json
import math
import re
import sys

import numpy as np


def main(page_json, out_dir, planted_json=None):
    page = json.load(open(page_json))
    failed = 0
    passed = 0

    def check(ok, what):
        nonlocal failed, passed
        print(("PASS " if ok else "FAIL ") + what)
        if ok:
            passed += 1
        else:
            failed += 1

    check(page["sections"] >= 1, f"page loads with {page['sections']} section(s): {page['title']}")
    check(not page["consoleErrors"], f"no console errors {page['consoleErrors'][:3]}")
    outside = [u for u in page["requests"] if not u.startswith(("file:", "data:"))]
    check(not outside, f"nothing fetched from the network {outside[:3]}")
    check(len(page["imgs"]) >= 1, f"{len(page['imgs'])} images on the page")
    for img in page["imgs"]:
        check(img["decoded"] and img["naturalWidth"] == img["width"] > 0
              and img["naturalHeight"] == img["height"] > 0,
              f"image '{img['alt']}' decodes at {img['naturalWidth']}x{img['naturalHeight']}"
              f" (declared {img['width']}x{img['height']})")
    check(len(page["counts"]) >= 1, f"{len(page['counts'])} counts on the page")
    for c in page["counts"]:
        if c["file"]:
            values = np.load(f"{out_dir}/{c['file']}")
            expected = int(np.sum(values < c["alpha"]))
            what = f"{c['file']} < {c['alpha']}"
        else:
            lo = np.load(f"{out_dir}/{c['lower']}")
            hi = np.load(f"{out_dir}/{c['upper']}")
            expected = int(np.sum((lo > 0) | (hi < 0)))
            what = "intervals excluding 0"
        check(int(c["text"]) == expected, f"count {what}: page {c['text']}, numpy {expected}")
    if planted_json:
        planted = json.load(open(planted_json))
        centre = planted["centre_mm"]
        radius = planted["radius_mm"]
        check(len(page["peaks"]) >= 1, f"{len(page['peaks'])} clusters listed")
        if page["peaks"]:
            peak = [float(v) for v in page["peaks"][0].split(",")]
            d = math.dist(peak, centre)
            check(d <= radius, f"largest cluster's peak {peak} mm is {d:.1f} mm from the planted"
                  f" centre {centre} (radius {radius})")
        m = re.search(r"at \((-?\d+), (-?\d+), (-?\d+)\) mm", " ".join(page["findings"]))
        check(m is not None, f"findings line names mm: {page['findings']}")
        if m:
            d = math.dist([float(v) for v in m.groups()], centre)
            check(d <= radius + 1, f"findings line's peak is {d:.1f} mm from the planted centre")
    print(f"RESULT {passed} {failed}")
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(*sys.argv[1:]) else 0)
