"""Checks the per-inference parts of a report.html as headless Chromium saw them (the JSON of
report-browser-check.mjs) against the output directory's .npy files: each part's line gives the
count numpy finds in its p map, "nothing survives" appears exactly where nothing does, the
montages carry the orientation letters of the neurological convention, and the planted blob
(at +x and +y mm) is drawn in the right half of its axial slice and of its coronal slice, and
in the anterior (right) half of its sagittal slice. Prints PASS/FAIL lines and a RESULT line.
Usage: report_browser_parts.py PAGE.json OUTPUT_DIR PLANTED.json tfce|glm|nothing"""
import json
import re
import sys

import numpy as np

LABELS = {"axial": ["L", "R", "A", "P"], "coronal": ["L", "R", "S", "I"],
          "sagittal": ["P", "A", "S", "I"]}
P_MAPS = {"max-T": "p_fwer", "TFCE": "p_fwer_tfce", "cluster extent": "p_fwer_cluster"}


def main(page_json, out_dir, planted_json, mode):
    page = json.load(open(page_json))
    planted = json.load(open(planted_json))
    passed = failed = 0

    def check(ok, what):
        nonlocal passed, failed
        print(("PASS " if ok else "FAIL ") + what)
        passed += bool(ok)
        failed += not ok

    parts = page["parts"]
    kinds = [(p["statistic"], p["inference"]) for p in parts]
    expected = {"tfce": [("observed", "max-T"), ("observed", "TFCE")],
                "glm": [("tstat1", "max-T"), ("tstat2", "max-T")],
                "nothing": [("observed", "max-T")]}[mode]
    check(kinds == expected, f"parts {kinds} (expected {expected})")
    for p in parts:
        suffix = "" if p["statistic"] == "observed" else "_" + p["statistic"]
        values = np.load(f"{out_dir}/{P_MAPS[p['inference']]}{suffix}.npy")
        n = int(np.sum(values < 0.05))
        name = f"{p['statistic']} {p['inference']}"
        if n > 0:
            m = re.search(r": (\d+) voxels p_fwer < 0\.05", p["line"])
            check(m is not None and int(m.group(1)) == n,
                  f"{name}: the line says {m.group(1) if m else None} voxels, numpy {n}")
            check(p["nothing"] is None and p["maps"] > 0, f"{name}: maps drawn, no 'nothing'")
        else:
            check("nothing survives at FWER 0.05" in p["line"]
                  and p["nothing"] is not None
                  and p["nothing"].startswith("Nothing survives at FWER 0.05")
                  and p["maps"] == 0,
                  f"{name}: numpy finds none and the page says so ({p['nothing']!r}),"
                  f" no map drawn")
    if mode == "nothing":
        check(not page["maps"], "no montage on a page where nothing survives")
        check(any("nothing survives" in f for f in page["findings"]),
              f"the findings say nothing survives: {page['findings']}")
    else:
        surviving = [m for m in page["maps"] if m["inference"] is not None]
        check(len(surviving) >= 3, f"{len(surviving)} montages in the parts")
        centre = planted["centre_mm"]
        for m in surviving:
            check(m["labels"] == LABELS[m["view"]], f"{m['statistic']} {m['inference']}"
                  f" {m['view']}: letters {m['labels']} (expected {LABELS[m['view']]})")
        for view, through, across in (("axial", 2, 0), ("coronal", 1, 0), ("sagittal", 0, 1)):
            m = next((m for m in surviving if m["view"] == view), None)
            if m is None:
                check(False, f"an {view} montage")
                continue
            # the slice nearest the blob's centre along the view's axis
            s = int(np.argmin([abs(v - centre[through]) for v in m["slicesMm"]]))
            plane = m["planes"][s]
            ok = plane["count"] > 0 and (plane["cx"] > plane["x0"] + plane["w"] / 2) \
                == (centre[across] > 0)
            side = "right" if centre[across] > 0 else "left"
            check(ok, f"{view} slice at {m['slicesMm'][s]} mm: the blob at {'xyz'[across]} ="
                  f" {centre[across]:+.0f} mm is drawn in the {side} half ({plane})")
        axial = next((m for m in surviving if m["view"] == "axial"), None)
        check(axial is not None and "the subject's left on the left" in axial["caption"],
              f"axial caption names the convention: {axial and axial['caption']}")
    print(f"RESULT {passed} {failed}")
    return failed


if __name__ == "__main__":
    sys.exit(1 if main(*sys.argv[1:]) else 0)
