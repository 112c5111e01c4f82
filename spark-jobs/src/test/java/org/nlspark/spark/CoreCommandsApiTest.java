package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscResult;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/** The programmatic API of the ISC command reads through Hadoop and matches core's runner. */
class CoreCommandsApiTest {
  @TempDir Path dir;

  @Test
  void iscThroughTheApiEqualsCore() {
    int s = 5;
    int t = 30;
    int v = 7;
    double[] data = TestData.gaussian(3, s * t, v, 0);
    Path p = dir.resolve("bold.npy");
    NpyWriter.writeFloat64(p, new long[] {s, t, v}, data);
    SparkSession spark = SharedSpark.get();
    NlsparkOptions o = NlsparkOptions.builder().nullMethod("bootstrap").replicates(200).seed(7)
        .partitions(3).saveSamples(true).build();
    IscResult api = (IscResult) Nlspark.isc(spark, p.toUri().toString(), o).result;
    IscResult core = Isc.run(NpyReader.read(p, 3), o.toIscOptions());
    assertThat(api.isc).isEqualTo(core.isc);
    assertThat(api.p).isEqualTo(core.p);
    assertThat(api.samples).isEqualTo(core.samples).hasSize(200 * v);
    assertThat(Nlspark.toDataFrame(spark, api).count()).isEqualTo(v);
  }
}
