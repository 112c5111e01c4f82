// Databricks notebook source
// MAGIC %md
// MAGIC # nlspark quickstart
// MAGIC
// MAGIC Bootstrap confidence intervals and a one-sample sign-flip permutation test over a
// MAGIC samples × voxels matrix, run as Spark jobs through `org.nlspark.spark.api.Nlspark`.
// MAGIC
// MAGIC **Cluster setup:** attach the nlspark application jar (`nlspark-spark-3.5_2.12-*-app.jar`)
// MAGIC as a cluster library. Any Databricks Runtime with Spark 3.5 (Scala 2.12) works; no GPU
// MAGIC is needed. The data set is generated here, so the notebook runs without any upload.

// COMMAND ----------

// MAGIC %md
// MAGIC ## Parameters
// MAGIC Small by default so the notebook runs in a minute on a single node. `output` is where
// MAGIC the `.npy` results and `summary.json` are written (any Hadoop URI: `dbfs:/`, `s3a://`,
// MAGIC `gs://`, `abfss://`).

// COMMAND ----------

dbutils.widgets.text("samples", "20", "Samples (subjects)")
dbutils.widgets.text("voxels", "3000", "Voxels")
dbutils.widgets.text("replicates", "1000", "Bootstrap samples / permutations")
dbutils.widgets.text("seed", "2024", "Seed")
dbutils.widgets.text("output", "dbfs:/tmp/nlspark/quickstart", "Output folder")

val nSamples = dbutils.widgets.get("samples").toInt
val nVoxels = dbutils.widgets.get("voxels").toInt
val replicates = dbutils.widgets.get("replicates").toLong
val seed = dbutils.widgets.get("seed").toLong
val output = dbutils.widgets.get("output")

// COMMAND ----------

// MAGIC %md
// MAGIC ## A synthetic data set
// MAGIC Gaussian noise with a true effect (+0.8) in the first tenth of the voxels. The values
// MAGIC come from a seeded generator, so every run of the notebook sees the same data.

// COMMAND ----------

import org.nlspark.core.data.DataMatrix

val rng = new java.util.SplittableRandom(seed)
val values = Array.tabulate(nSamples * nVoxels) { i =>
  val voxel = i % nVoxels
  (if (voxel < nVoxels / 10) 0.8 else 0.0) + rng.nextGaussian()
}
val x = DataMatrix.of(nSamples, nVoxels, values, "synthetic")
println(s"data: ${x.rows()} samples x ${x.cols()} voxels")

// COMMAND ----------

// MAGIC %md
// MAGIC ## Bootstrap: mean with a 95% percentile interval
// MAGIC Same as `nlspark bootstrap --stat mean --samples B --seed S` on the command line.

// COMMAND ----------

import org.nlspark.spark.api.{Nlspark, NlsparkOptions}

val boot = Nlspark.bootstrap(spark, x,
  NlsparkOptions.builder().statistic("mean").replicates(replicates).seed(seed).build())
val bootTable = Nlspark.toDataFrame(spark, boot.result)
display(bootTable.orderBy("voxel").limit(10))

// COMMAND ----------

// MAGIC %md
// MAGIC ## One-sample permutation test (sign flips), FWER by max statistic

// COMMAND ----------

val test = Nlspark.oneSample(spark, x,
  NlsparkOptions.builder().statistic("t").replicates(replicates).seed(seed).build())
val testTable = Nlspark.toDataFrame(spark, test.result)
display(testTable.orderBy("p").limit(10))

// COMMAND ----------

// MAGIC %md
// MAGIC ## How many voxels survive?
// MAGIC With the effect in the first tenth of the voxels, most of those should have small
// MAGIC p-values and few of the others should.

// COMMAND ----------

import org.apache.spark.sql.functions.{col, sum, when}

val effectVoxels = nVoxels / 10
val summaryTable = testTable
  .withColumn("has_effect", col("voxel") < effectVoxels)
  .groupBy("has_effect")
  .agg(
    sum(when(col("p") < 0.05, 1).otherwise(0)).as("p_below_0.05"),
    sum(when(col("p_fwer") < 0.05, 1).otherwise(0)).as("p_fwer_below_0.05"))
  .orderBy("has_effect")
display(summaryTable)
val hits = summaryTable.where(col("has_effect")).first().getLong(1)
require(hits > effectVoxels / 2,
  s"Cannot confirm the planted effect: only $hits of $effectVoxels voxels have p < 0.05")

// COMMAND ----------

// MAGIC %md
// MAGIC ## Save the results
// MAGIC Writes the `.npy` outputs and `summary.json` (parameters, seed, backend, tile plan,
// MAGIC timings) exactly as the command line does.

// COMMAND ----------

val bootDir = Nlspark.write(boot, output + "/bootstrap", true)
val testDir = Nlspark.write(test, output + "/one-sample", true)
println(s"bootstrap results: $bootDir")
println(s"one-sample results: $testDir")
println(s"backend: ${test.backend()}, tiles: ${test.plan.tiles().size()}, wall: ${test.wallSeconds} s")
