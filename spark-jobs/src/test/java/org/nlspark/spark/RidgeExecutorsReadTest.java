package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.nlspark.spark.SameOutputs.assertSameOutputs;
import static org.nlspark.spark.SameOutputs.bits;
import static org.nlspark.spark.SameOutputs.float32;
import static org.nlspark.spark.SameOutputs.ingestOf;

import java.nio.file.Path;
import java.util.List;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.result.Output;
import org.nlspark.core.ridge.RidgeAnalysis;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 for ridge-bootstrap: every replicate's SVD takes all of X, so there are no voxel
 * blocks; with spark.nlspark.ingest=blocks (or auto above blocks-min-bytes) each task reads X, Y
 * and X_test whole where it runs, and the driver only their headers (its broadcast is the
 * description). Outputs equal the driver-read (broadcast) run's bytes for 1, 3 and 7 partitions
 * and a retried task, and core's run on the same values; a 1-D target and predictions too.
 */
class RidgeExecutorsReadTest {
  @TempDir Path dir;

  private final SparkSession spark = SharedSpark.get();

  @AfterEach
  void resetConf() {
    spark.conf().unset(NlsparkConf.INGEST);
    spark.conf().unset(NlsparkConf.TEST_FAIL_ONCE_TILE);
  }

  private static double[] widened(float[] f) {
    double[] d = new double[f.length];
    for (int i = 0; i < f.length; i++) {
      d[i] = f[i];
    }
    return d;
  }

  private RunReport ridge(String ingest, Integer partitions, Path x, Path y, Path xTest,
      NlsparkOptions o) {
    spark.conf().set(NlsparkConf.INGEST, ingest);
    return Nlspark.ridgeBootstrap(spark, x.toString(), y.toString(),
        xTest == null ? null : xTest.toString(), o.toBuilder().partitions(partitions).build());
  }

  @Test
  void executorsReadTheInputsAndGiveTheDriverReadBytesForAnyPartitioningAndARetry()
      throws Exception {
    int n = 2000;
    int p = 40;
    int targets = 3;
    float[] x = float32(TestData.gaussian(71, n, p, 0));
    double[] beta = TestData.gaussian(72, p, targets, 0);
    double[] noise = TestData.gaussian(73, n, targets, 0);
    double[] y = new double[n * targets];
    for (int i = 0; i < n; i++) {
      for (int t = 0; t < targets; t++) {
        double s = 0.5 * noise[i * targets + t];
        for (int j = 0; j < p; j++) {
          s += x[i * p + j] * beta[j * targets + t];
        }
        y[i * targets + t] = s;
      }
    }
    float[] xTest = float32(TestData.gaussian(74, 10, p, 0));
    Path xPath = dir.resolve("x32.npy");
    NpyWriter.writeFloat32(xPath, new long[] {n, p}, x);
    Path yPath = dir.resolve("y.npy");
    NpyWriter.writeFloat64(yPath, new long[] {n, targets}, y);
    double[] y1 = new double[n];
    for (int i = 0; i < n; i++) {
      y1[i] = y[i * targets];
    }
    Path y1Path = dir.resolve("y1.npy");
    NpyWriter.writeFloat64(y1Path, new long[] {n}, y1);
    Path testPath = dir.resolve("xtest32.npy");
    NpyWriter.writeFloat32(testPath, new long[] {10, p}, xTest);
    NlsparkOptions o = NlsparkOptions.builder().replicates(300).seed(5).saveSamples(true).build();
    Path[][] runs = {{yPath, null}, {yPath, testPath}, {y1Path, null}};
    for (Path[] run : runs) {
      String what = run[0].getFileName() + (run[1] == null ? "" : " predictions");
      RunReport base = ridge("broadcast", null, xPath, run[0], run[1], o);
      assertThat(ingestOf(base).get("mode")).isEqualTo("broadcast");
      long driverRead = (Long) base.engineFacts.get("broadcast_bytes");
      assertThat(driverRead).isGreaterThan(8L * n * p);
      for (Integer parts : new Integer[] {null, 1, 3, 7}) {
        RunReport read = ridge("blocks", parts, xPath, run[0], run[1], o);
        assertThat(ingestOf(read).get("mode")).isEqualTo("executors");
        // the broadcast is the inputs' description (paths, shapes, a Hadoop configuration),
        // not their values
        long described = (Long) read.engineFacts.get("broadcast_bytes");
        assertThat(described).isLessThan(8L * n * p);
        assertSameOutputs(base.result.outputs(), read.result.outputs(),
            what + ", partitions " + parts);
      }
      // core's run on the same values in memory
      double[] ys = run[0] == yPath ? y : y1;
      List<Output> expected = RidgeBootstrap.run(new RidgeAnalysis.Data(widened(x), n, p,
          ys, run[0] == yPath ? targets : 1, run[1] == null ? null : widened(xTest),
          run[1] == null ? 0 : 10), o.toRidgeOptions()).outputs();
      assertSameOutputs(expected, base.result.outputs(), what + ", core reference");
    }
    RunReport base = ridge("broadcast", null, xPath, yPath, null, o);
    RunReport retried = SharedSpark.retriedOnce(spark, 1,
        () -> ridge("blocks", 3, xPath, yPath, null, o));
    assertSameOutputs(base.result.outputs(), retried.result.outputs(), "retried");
    assertThat(base.plan.tileCount()).isGreaterThan(1);
  }
}
