# Databricks notebook source
# MAGIC %md
# MAGIC # nlspark quickstart (Python)
# MAGIC
# MAGIC A one-sample permutation test with TFCE and a bootstrap over a small synthetic study of
# MAGIC brain images, from Python, then the same analysis through the nilearn drop-in
# MAGIC (`nlspark.nilearn.non_parametric_inference`), plotted with nilearn.
# MAGIC
# MAGIC **Cluster setup:** a Databricks Runtime with Spark 3.5; install the `nlspark` wheel
# MAGIC (it carries the application jar) and `nilearn` as cluster libraries, or attach the
# MAGIC application jar and `%pip install` the wheel. No GPU is needed; the data are generated
# MAGIC here, so the notebook runs without any upload.

# COMMAND ----------

# MAGIC %md
# MAGIC ## Parameters
# MAGIC Small by default so that the notebook runs in a minute on a single node. `output` is a
# MAGIC folder on the driver (on Databricks `/dbfs/...` reaches DBFS).

# COMMAND ----------

dbutils.widgets.text("subjects", "16", "Subjects")
dbutils.widgets.text("permutations", "500", "Permutations / bootstrap samples")
dbutils.widgets.text("seed", "2024", "Seed")
dbutils.widgets.text("output", "/dbfs/tmp/nlspark/quickstart_python", "Output folder")

n_subjects = int(dbutils.widgets.get("subjects"))
permutations = int(dbutils.widgets.get("permutations"))
seed = int(dbutils.widgets.get("seed"))
output = dbutils.widgets.get("output")

# COMMAND ----------

# MAGIC %md
# MAGIC ## A synthetic study
# MAGIC One 3-D image per subject on a 3 mm grid: noise, with a true effect (+1) in a 12 mm cube.
# MAGIC Seeded, so every run sees the same data.

# COMMAND ----------

import nibabel as nib
import numpy as np

rng = np.random.default_rng(seed)
shape = (16, 18, 14)
affine = np.diag([3.0, 3.0, 3.0, 1.0])
affine[:3, 3] = [-24.0, -27.0, -21.0]
images = []
for _ in range(n_subjects):
    data = rng.normal(size=shape)
    data[6:10, 7:11, 5:9] += 1.0
    images.append(nib.Nifti1Image(data.astype(np.float32), affine))
print("study: %d images of %s voxels" % (len(images), shape))

# COMMAND ----------

# MAGIC %md
# MAGIC ## One-sample permutation test with TFCE
# MAGIC Same as `nlspark one-sample --input LIST --tfce --permutations P --seed S`; the maps come
# MAGIC back as numpy arrays (`result.maps`) and as nibabel images on the study's grid
# MAGIC (`result.images`).

# COMMAND ----------

import nlspark

test = nlspark.one_sample(images, permutations=permutations, tfce=True, seed=seed, spark=spark)
print(test)
print(test.stdout or "")
hits = int((test["p_fwer_tfce"] < 0.05).sum())
print("voxels with TFCE FWER p < 0.05: %d (the planted cube has 64)" % hits)
assert hits >= 32, "Cannot confirm the planted effect: only %d voxels survive" % hits

# COMMAND ----------

# MAGIC %md
# MAGIC ## Bootstrap of the mean
# MAGIC The same images, as a (subjects, voxels) array this time: any input form works.

# COMMAND ----------

x = np.stack([img.get_fdata().ravel() for img in images])
boot = nlspark.bootstrap(x, samples=permutations, seed=seed, spark=spark)
inside = np.ravel_multi_index(np.nonzero(np.pad(np.ones((4, 4, 4)), ((6, 6), (7, 7), (5, 5)))),
                              shape)
print("mean in the cube %.2f, 95%% CI half-width %.2f" % (
    boot["mean"][inside].mean(), ((boot["ci_upper"] - boot["ci_lower"]) / 2)[inside].mean()))

# COMMAND ----------

# MAGIC %md
# MAGIC ## The nilearn drop-in
# MAGIC A nilearn user changes one import: `from nlspark.nilearn import non_parametric_inference`
# MAGIC instead of `from nilearn.glm.second_level import non_parametric_inference`.

# COMMAND ----------

import pandas as pd
from nilearn import plotting

from nlspark.nilearn import non_parametric_inference

design = pd.DataFrame({"intercept": np.ones(n_subjects)})
out = non_parametric_inference(images, design_matrix=design, n_perm=permutations, tfce=True,
                               random_state=seed)
display_fig = plotting.plot_stat_map(out["logp_max_tfce"], threshold=1.3, display_mode="ortho",
                                     cut_coords=(0, 0, 0),
                                     title="-log10 FWER p (TFCE), nlspark")
display(display_fig.frame_axes.figure)
print("largest -log10 p: %.2f" % out["logp_max_tfce"].get_fdata().max())

# COMMAND ----------

# MAGIC %md
# MAGIC ## Save the results
# MAGIC The `.npy` and `.nii.gz` outputs, `summary.json` and `report.html`, as the command line
# MAGIC writes them.

# COMMAND ----------

import os

print("one-sample results:", test.write(os.path.join(output, "one-sample"), overwrite=True))
print("bootstrap results:", boot.write(os.path.join(output, "bootstrap"), overwrite=True))
