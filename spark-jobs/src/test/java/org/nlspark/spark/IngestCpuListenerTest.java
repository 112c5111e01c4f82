package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.nlspark.spark.bench.ScaleCheck;
import org.nlspark.spark.engine.SparkEngine;
import scala.Tuple2;

/**
 * The scale check's task-CPU count of the ingest: the executor CPU time of every task of the
 * jobs described as reading samples into voxel blocks (both stages of a shuffle), and of no
 * other job, against a plain listener's sum over all tasks.
 */
class IngestCpuListenerTest {

  @Test
  void sumsTheTasksOfTheIngestJobsOnly() throws Exception {
    SparkSession spark = SharedSpark.get();
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    AtomicLong all = new AtomicLong();
    AtomicLong tasks = new AtomicLong();
    SparkListener plain = new SparkListener() {
      @Override
      public void onTaskEnd(SparkListenerTaskEnd e) {
        all.addAndGet(e.taskMetrics().executorCpuTime());
        tasks.incrementAndGet();
      }
    };
    ScaleCheck.IngestCpu ingest = new ScaleCheck.IngestCpu();
    spark.sparkContext().addSparkListener(plain);
    spark.sparkContext().addSparkListener(ingest);
    String old = spark.sparkContext().getLocalProperty("spark.job.description");
    try {
      spark.sparkContext().listenerBus().waitUntilEmpty();
      long before = all.get();
      long tasksBefore = tasks.get();
      spark.sparkContext().setJobDescription("test" + SparkEngine.INGEST_JOB_MARK + "3 blocks");
      long sum = shuffled(jsc, 3);
      assertThat(sum).isEqualTo(3 * 2_000_000L * 1_999_999L / 2);
      spark.sparkContext().listenerBus().waitUntilEmpty();
      long marked = all.get() - before;
      assertThat(tasks.get() - tasksBefore).as("tasks of both stages").isEqualTo(3 + 3);
      spark.sparkContext().setJobDescription("not the ingest");
      shuffled(jsc, 2);
      spark.sparkContext().listenerBus().waitUntilEmpty();
      assertThat(all.get() - before).as("the other job's tasks ran").isGreaterThan(marked);
      assertThat(ingest.seconds()).isEqualTo(marked / 1e9);
      assertThat(marked).isPositive();
    } finally {
      spark.sparkContext().setJobDescription(old);
      spark.sparkContext().removeSparkListener(ingest);
      spark.sparkContext().removeSparkListener(plain);
    }
  }

  /** A job of two stages (a shuffle of {@code parts} partitions) that burns some CPU. */
  private static long shuffled(JavaSparkContext jsc, int parts) {
    List<Integer> keys = Arrays.asList(0, 1, 2, 3, 4, 5).subList(0, parts);
    return jsc.parallelize(keys, parts)
        .mapToPair(k -> {
          long s = 0;
          for (long i = 0; i < 2_000_000L; i++) {
            s += i;
          }
          return new Tuple2<>(k, s);
        })
        .partitionBy(new org.apache.spark.HashPartitioner(parts))
        .map(t -> t._2())
        .fold(0L, Long::sum);
  }
}
