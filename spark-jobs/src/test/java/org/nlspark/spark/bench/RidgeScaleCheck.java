package org.nlspark.spark.bench;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.cli.SparkSessions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * ridge-bootstrap in the scale check of DESIGN §8 (run by it/scale-check.sh): every replicate's
 * SVD takes all of X, so there are no voxel blocks; each task reads X and Y whole where it runs.
 * On the cluster, with a driver heap smaller than Y as float64, the driver reads the headers
 * only; the outputs must be byte-identical to the driver-read (broadcast) run in one JVM with a
 * large heap.
 *
 * <pre>
 *   data DIR N P TARGETS SEED   writes DIR/ridge-x.npy (float32, N x P) and DIR/ridge-y.npy
 *                               (float32, N x TARGETS: Y = X B + noise)
 *   reference DIR OUT R SEED GB  one JVM, local Spark, X and Y read on the driver (broadcast)
 *   cluster DIR OUT R SEED GB   the Spark session spark-submit gives; each task reads X and Y
 * </pre>
 *
 * <p>GB is --memory-budget-gb: the ridge rule of DESIGN §3.7 charges each replicate three times
 * X and Y in float64, which a study larger than the driver's heap exceeds in any default budget;
 * the budget sizes the tiles only, never the bits.
 */
public final class RidgeScaleCheck {
  static final double ALPHA = 1.0;

  private RidgeScaleCheck() {}

  public static void main(String[] args) throws Exception {
    if (args.length != 6 || !List.of("data", "reference", "cluster").contains(args[0])) {
      System.err.println("usage: RidgeScaleCheck data DIR N P TARGETS SEED"
          + " | reference DIR OUT R SEED GB | cluster DIR OUT R SEED GB");
      System.exit(2);
    }
    switch (args[0]) {
      case "data" -> data(Path.of(args[1]), Integer.parseInt(args[2]),
          Integer.parseInt(args[3]), Integer.parseInt(args[4]), Long.parseLong(args[5]));
      default -> run(args[0], args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]), Double.parseDouble(args[5]));
    }
  }

  /** X standard normal, B standard normal (P x TARGETS), Y = X B + N(0, 1), all float32. */
  static void data(Path dir, int n, int p, int targets, long seed) throws Exception {
    SplittableRandom r = new SplittableRandom(seed);
    float[] x = new float[n * p];
    for (int i = 0; i < x.length; i++) {
      x[i] = (float) r.nextGaussian();
    }
    double[] b = new double[p * targets];
    for (int i = 0; i < b.length; i++) {
      b[i] = r.nextGaussian();
    }
    float[] y = new float[n * targets];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < targets; t++) {
        double s = r.nextGaussian();
        for (int j = 0; j < p; j++) {
          s += x[i * p + j] * b[j * targets + t];
        }
        y[i * targets + t] = (float) s;
      }
    }
    Files.createDirectories(dir);
    NpyWriter.writeFloat32(dir.resolve("ridge-x.npy"), new long[] {n, p}, x);
    NpyWriter.writeFloat32(dir.resolve("ridge-y.npy"), new long[] {n, targets}, y);
    System.out.printf(Locale.ROOT, "ridge data: X %d x %d, Y %d x %d (%.2f GB as float64)%n",
        n, p, n, targets, 8.0 * n * targets / 1e9);
  }

  /**
   * One ridge bootstrap of the weights: in {@code reference} a local Spark in this JVM with
   * the inputs read on the driver; in {@code cluster} the session spark-submit gives, each task
   * reading the inputs. Prints the run's row for the script's table.
   */
  static void run(String mode, String dir, String out, long samples, long seed,
      double budgetGb) {
    long start = System.nanoTime();
    boolean reference = mode.equals("reference");
    SparkSession.Builder builder = SparkSessions.dataPlaneDefaults(SparkSession.builder());
    if (reference) {
      builder.master("local[2]").appName("scale-check-ridge-reference")
          .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
          .config("spark.ui.enabled", "false");
    }
    SparkSession spark = builder.getOrCreate();
    spark.conf().set(NlsparkConf.INGEST, reference ? "broadcast" : "blocks");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    RunReport report = Nlspark.ridgeBootstrap(spark, dir + "/ridge-x.npy", dir + "/ridge-y.npy",
        null, NlsparkOptions.builder().alpha(ALPHA).replicates(samples).seed(seed)
            .memoryBudgetGb(budgetGb).build());
    Nlspark.write(conf, report, report.summary(), out, true);
    printRow(reference ? "ridge-reference" : "ridge", report, start);
    spark.stop();
  }

  /** The run's row of the script's table ({@link ScaleCheck#printRow}; no ingest stage). */
  static void printRow(String run, RunReport report, long startNanos) {
    Map<String, Object> input = ScaleCheck.section(report.summary(), "input");
    System.out.printf(Locale.ROOT, "ridge ingest: %s%n",
        ScaleCheck.section(ScaleCheck.section(report.summary(), "engine"), "ingest").get("mode"));
    ScaleCheck.printRow(run, "ridge-bootstrap " + input.get("features") + " features",
        ((Number) input.get("samples")).longValue(), ((Number) input.get("targets")).longValue(),
        "-", report, startNanos);
  }

}
