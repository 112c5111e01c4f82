"""Runs every code cell of notebooks/quickstart_python.py (Databricks source format) in order,
in one namespace, under real pyspark, with stand-ins for Databricks' display(...) and
dbutils.widgets (NB_<name> in the environment overrides a widget's default). A cell that
raises fails the test, naming the cell."""

import os

import pytest

from conftest import REPO

NOTEBOOK = os.path.join(REPO, "notebooks", "quickstart_python.py")


def code_cells(path):
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    assert lines[0] == "# Databricks notebook source", "%s is not a Databricks notebook" % path
    cells, current = [], []
    for line in lines[1:] + ["# COMMAND ----------"]:
        if line == "# COMMAND ----------":
            if any(l.strip() and not l.startswith("# MAGIC") for l in current):
                cells.append("\n".join(current))
            current = []
        else:
            current.append(line)
    return cells


class Widgets:
    def __init__(self, overrides):
        self.values, self.overrides = {}, overrides

    def text(self, name, default, label=""):
        self.values[name] = self.overrides.get(name, default)

    def get(self, name):
        return self.values[name]


class DbUtils:
    def __init__(self, overrides):
        self.widgets = Widgets(overrides)


def test_every_cell_runs(spark, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    shown = []
    namespace = {"spark": spark, "display": shown.append,
                 "dbutils": DbUtils({"output": str(tmp_path / "out"), "permutations": "200"})}
    cells = code_cells(NOTEBOOK)
    assert len(cells) >= 5
    for i, cell in enumerate(cells, 1):
        try:
            exec(compile(cell, "%s, cell %d" % (NOTEBOOK, i), "exec"), namespace)
        except Exception as e:
            pytest.fail("notebook quickstart_python, cell %d failed: %r" % (i, e))
    assert shown, "no figure was displayed"
    assert os.path.isfile(tmp_path / "out" / "one-sample" / "tfce.nii.gz")
    assert os.path.isfile(tmp_path / "out" / "bootstrap" / "mean.npy")
