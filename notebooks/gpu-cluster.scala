// Databricks notebook source
// MAGIC %md
// MAGIC # nlspark on a GPU cluster
// MAGIC
// MAGIC The quickstart's two jobs with `backend = auto`: on a cluster created from
// MAGIC `conf/databricks/cluster.json` (single-GPU workers, RAPIDS plugin) the tiles run on the
// MAGIC executors' GPUs; elsewhere `auto` falls back to CPU and says why, so this notebook also
// MAGIC runs on a CPU-only cluster or a laptop. Nothing here asks for a GPU explicitly: use
// MAGIC `backend("gpu")` to make a missing GPU an error instead.

// COMMAND ----------

dbutils.widgets.text("samples", "40", "Samples (subjects)")
dbutils.widgets.text("voxels", "20000", "Voxels")
dbutils.widgets.text("replicates", "2000", "Bootstrap samples / permutations")
dbutils.widgets.text("seed", "7", "Seed")
dbutils.widgets.text("output", "dbfs:/tmp/nlspark/gpu-cluster", "Output folder")

val nSamples = dbutils.widgets.get("samples").toInt
val nVoxels = dbutils.widgets.get("voxels").toInt
val replicates = dbutils.widgets.get("replicates").toLong
val seed = dbutils.widgets.get("seed").toLong
val output = dbutils.widgets.get("output")

// COMMAND ----------

// MAGIC %md
// MAGIC ## Environment report
// MAGIC What `nlspark env` prints, on the driver and on each executor: whether a GPU is usable,
// MAGIC what `auto` resolves to, the BLAS in use and the memory budgets. The cluster's GPU
// MAGIC settings come from `spark.executor.resource.gpu.amount` and the RAPIDS plugin.

// COMMAND ----------

import org.nlspark.core.backend.GpuProbes
import org.nlspark.core.engine.DeviceReport
import scala.collection.JavaConverters._

def reportRow(where: String): (String, String) = {
  val r = DeviceReport.collect(GpuProbes.system())
  (where, r.toMap.asScala.map { case (k, v) => s"$k=$v" }.mkString(", "))
}

val conf = spark.sparkContext.getConf
println("spark.plugins = " + conf.get("spark.plugins", "(none)"))
println("spark.executor.resource.gpu.amount = " +
  conf.get("spark.executor.resource.gpu.amount", "(none)"))
println("spark.task.resource.gpu.amount = " + conf.get("spark.task.resource.gpu.amount", "(none)"))

val slots = math.max(1, spark.sparkContext.defaultParallelism)
val executorReports = spark.sparkContext
  .parallelize(0 until slots, slots)
  .map(_ => reportRow("executor " + org.apache.spark.SparkEnv.get.executorId))
  .collect()
  .distinct
display(spark.createDataFrame(reportRow("driver") +: executorReports).toDF("where", "report"))

// COMMAND ----------

// MAGIC %md
// MAGIC ## Data, then the bootstrap on `auto`
// MAGIC The backend actually used is in the run report and in `summary.json`. GPU results may
// MAGIC differ from CPU ones in the last bits, never in which replicates were drawn.

// COMMAND ----------

import org.nlspark.core.data.DataMatrix
import org.nlspark.spark.api.{Nlspark, NlsparkOptions}

val rng = new java.util.SplittableRandom(seed)
val values = Array.tabulate(nSamples * nVoxels) { i =>
  (if (i % nVoxels < nVoxels / 10) 0.5 else 0.0) + rng.nextGaussian()
}
val x = DataMatrix.of(nSamples, nVoxels, values, "synthetic")

val options = NlsparkOptions.builder().backend("auto").replicates(replicates).seed(seed).build()
val boot = Nlspark.bootstrap(spark, x, options.toBuilder().statistic("mean").build())
println(s"bootstrap ran on: ${boot.backend()} in ${boot.wallSeconds} s")
display(Nlspark.toDataFrame(spark, boot.result).orderBy("voxel").limit(10))

// COMMAND ----------

// MAGIC %md
// MAGIC ## One-sample permutation test on `auto`

// COMMAND ----------

val test = Nlspark.oneSample(spark, x,
  options.toBuilder().statistic("t").build())
println(s"one-sample ran on: ${test.backend()} in ${test.wallSeconds} s, " +
  f"${test.gflops()}%.2f GFLOP/s")
display(Nlspark.toDataFrame(spark, test.result).orderBy("p").limit(10))

// COMMAND ----------

val bootDir = Nlspark.write(boot, output + "/bootstrap", true)
val testDir = Nlspark.write(test, output + "/one-sample", true)
println(s"results: $bootDir, $testDir")
