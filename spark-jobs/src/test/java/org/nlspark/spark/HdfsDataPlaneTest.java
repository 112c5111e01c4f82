package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * DESIGN §8 with a real HDFS (Hadoop's MiniDFSCluster: a NameNode and a DataNode in this JVM):
 * 3-D .nii.gz subjects, their list and the mask on hdfs://, read by executors into voxel blocks,
 * outputs written to hdfs://, and every output byte-identical to the same study run from the
 * local file system through the driver (broadcast) path.
 */
class HdfsDataPlaneTest {
  static final int N = 11;

  @TempDir static Path tmp;
  static MiniDFSCluster cluster;
  static FileSystem hdfs;

  @BeforeAll
  static void startHdfs() throws Exception {
    Configuration conf = new Configuration();
    conf.set(MiniDFSCluster.HDFS_MINIDFS_BASEDIR, tmp.resolve("dfs").toString());
    conf.set("dfs.namenode.rpc-address", "127.0.0.1:0");
    conf.set("dfs.datanode.address", "127.0.0.1:0");
    conf.set("dfs.datanode.http.address", "127.0.0.1:0");
    conf.set("dfs.datanode.ipc.address", "127.0.0.1:0");
    conf.set("dfs.namenode.http-address", "127.0.0.1:0");
    cluster = new MiniDFSCluster.Builder(conf).numDataNodes(1).build();
    cluster.waitActive();
    hdfs = cluster.getFileSystem();
  }

  @AfterAll
  static void stopHdfs() {
    if (cluster != null) {
      cluster.shutdown(true);
    }
  }

  private static void put(Path local, String remote) throws Exception {
    try (InputStream in = Files.newInputStream(local);
        OutputStream out = hdfs.create(new org.apache.hadoop.fs.Path(remote))) {
      in.transferTo(out);
    }
  }

  private static Map<String, byte[]> npyFiles(FileSystem fs, String dir) throws Exception {
    Map<String, byte[]> out = new TreeMap<>();
    for (FileStatus s : fs.listStatus(new org.apache.hadoop.fs.Path(dir))) {
      if (s.getPath().getName().endsWith(".npy")) {
        try (InputStream in = fs.open(s.getPath())) {
          out.put(s.getPath().getName(), in.readAllBytes());
        }
      }
    }
    return out;
  }

  @Test
  void oneSampleReadsImagesFromHdfsAndWritesOutputsThereIdenticalToTheLocalRun()
      throws Exception {
    NiftiHeader geometry = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(14, 12, 9)
        .sform(1, new double[][] {{-3, 0, 0, 30}, {0, 3, 0, -40}, {0, 0, 3, -10}}).build();
    double[] m = new double[14 * 12 * 9];
    for (int i = 0; i < m.length; i++) {
      m[i] = i % 9 == 4 ? 0 : 1;
    }
    NiftiMask mask = NiftiMask.fromImage(geometry, m, "mask");
    Path local = Files.createDirectories(tmp.resolve("study"));
    NiftiWriter.writeMask(Files.newOutputStream(local.resolve("mask.nii.gz")), mask);
    double[] g = TestData.gaussian(17, N, mask.count(), 0.4);
    List<String> names = new ArrayList<>();
    for (int s = 0; s < N; s++) {
      float[] v = new float[mask.count()];
      for (int j = 0; j < v.length; j++) {
        v[j] = (float) g[s * v.length + j];
      }
      String name = "sub-" + s + ".nii.gz";
      NiftiWriter.writeMap(local.resolve(name), mask, v, 0f);
      names.add(name);
    }
    Files.writeString(local.resolve("subjects.txt"), String.join("\n", names) + "\n");
    String root = hdfs.getUri() + "/study";
    for (String f : Files.list(local).map(p -> p.getFileName().toString()).toList()) {
      put(local.resolve(f), root + "/" + f);
    }

    SparkSession spark = SharedSpark.get();
    NlsparkOptions options = NlsparkOptions.builder().statistic("t").replicates(200).seed(5)
        .fwer(true).partitions(3).build();
    try {
      spark.conf().set(NlsparkConf.INGEST, "broadcast");
      RunReport localRun = Nlspark.oneSample(spark, local.resolve("subjects.txt").toString(),
          options.toBuilder().maskFile(local.resolve("mask.nii.gz").toString()).build());
      String localOut = tmp.resolve("out-local").toString();
      Nlspark.write(localRun, localOut, false);

      spark.conf().set(NlsparkConf.INGEST, "blocks");
      RunReport hdfsRun = Nlspark.oneSample(spark, root + "/subjects.txt",
          options.toBuilder().maskFile(root + "/mask.nii.gz").build());
      @SuppressWarnings("unchecked")
      Map<String, Object> ingest = (Map<String, Object>) hdfsRun.engineFacts.get("ingest");
      assertThat(ingest.get("mode")).isEqualTo("blocks");
      assertThat(ingest.get("precision")).isEqualTo("float32");
      String hdfsOut = root + "/out";
      Nlspark.write(spark.sparkContext().hadoopConfiguration(), hdfsRun, hdfsRun.summary(),
          hdfsOut, false);

      Map<String, byte[]> expected = npyFiles(FileSystem.getLocal(new Configuration()),
          localOut);
      Map<String, byte[]> actual = npyFiles(hdfs, hdfsOut);
      assertThat(expected).containsKeys("p.npy", "observed.npy");
      assertThat(actual.keySet()).isEqualTo(expected.keySet());
      for (String name : expected.keySet()) {
        assertThat(actual.get(name)).as(name).isEqualTo(expected.get(name));
      }
      assertThat(hdfs.exists(new org.apache.hadoop.fs.Path(hdfsOut + "/summary.json"))).isTrue();
    } finally {
      spark.conf().unset(NlsparkConf.INGEST);
    }
  }
}
