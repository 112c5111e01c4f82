package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * TFCE and cluster inference through the API on Spark, with the grid given by the image-mask seam
 * ({@link NlsparkOptions#mask(NiftiMask)}, built in code here): outputs are bit-identical for 1, 3
 * and 7 partitions, for a retried task, and to core's LocalEngine (DESIGN §5).
 */
class TfceSparkTest {
  static final int NX = 8;
  static final int NY = 7;
  static final int NZ = 6;
  /** Small cells, so a run has several voxel blocks and enough tiles to fail one. */
  static final Grid GRID = new Grid(64, 32);

  @TempDir Path dir;

  static NiftiMask mask() {
    NiftiHeader header = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(NX, NY, NZ)
        .build();
    SplittableRandom r = new SplittableRandom(5);
    boolean[] selected = new boolean[NX * NY * NZ];
    for (int f = 0; f < selected.length; f++) {
      selected[f] = r.nextDouble() > 0.15;
    }
    return NiftiMask.fromSelection(header, selected, "mask");
  }

  /** Samples x mask voxels: noise, a positive blob and a negative one. */
  static DataMatrix data(NiftiMask mask, int n, long seed) {
    int v = mask.count();
    double[] noise = TestData.gaussian(seed, n, v, 0);
    for (int s = 0; s < n; s++) {
      for (int voxel = 0; voxel < v; voxel++) {
        int[] ijk = mask.ijk(voxel);
        double effect = ijk[0] < 4 && ijk[1] < 4 ? 1.2 : ijk[0] >= 5 && ijk[2] >= 3 ? -1.0 : 0;
        noise[s * v + voxel] += effect;
      }
    }
    return DataMatrix.of(n, v, noise, "test");
  }

  static NlsparkOptions options(NiftiMask mask) {
    return NlsparkOptions.builder().mask(mask).tfce(true).clusterThreshold(2.5).replicates(300)
        .seed(4).grid(GRID).backend("cpu").build();
  }

  static void assertSame(Result expected, Result actual, String what) {
    List<String> names = new ArrayList<>();
    expected.outputs().forEach(o -> names.add(o.name()));
    List<String> other = new ArrayList<>();
    actual.outputs().forEach(o -> other.add(o.name()));
    assertThat(other).as(what).isEqualTo(names);
    for (Output o : expected.outputs()) {
      assertThat(actual.output(o.name())).as(what + ": " + o.name()).isEqualTo(o.values());
    }
  }

  @Test
  void oneSampleIsBitIdenticalForAnyPartitioningRetryAndLocalEngine() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    DataMatrix x = data(mask, 12, 21);
    RunReport base = Nlspark.oneSample(spark, x, options(mask));
    assertThat(base.plan.tileCount()).isGreaterThan(2);
    assertThat(base.result.output("tfce")).hasSize(mask.count());
    assertThat(base.result.output("null_max_tfce")).hasSize(300);
    assertThat(base.result.output("p_fwer_cluster")).hasSize(mask.count());

    RunReport local = new LocalEngine(3, GRID, 1).run(TfceAnalysis.prepare(
        options(mask).toSpec(Analysis.ONE_SAMPLE), JobInputs.of(x), 3, GRID, MaskGrid.of(mask),
        WholeMapSettings.of(true, 2.5)));
    assertSame(base.result, local.result, "LocalEngine");
    for (int partitions : new int[] {1, 3, 7}) {
      assertSame(base.result,
          Nlspark.oneSample(spark, x, options(mask).toBuilder().partitions(partitions)
              .build()).result,
          partitions + " partitions");
    }

    SharedSpark.withRetriedTile(spark, 2, () -> {
      assertSame(base.result, Nlspark.oneSample(spark, x, options(mask)).result, "retried");
    });

    int found = 0;
    for (double p : base.result.output("p_fwer_tfce")) {
      found += p < 0.05 ? 1 : 0;
    }
    assertThat(found).as("voxels of the blobs found by TFCE").isGreaterThan(10);
  }

  @Test
  void twoSampleAndCorrelationRunWholeMapsAndWriteEveryOutput() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    DataMatrix x = data(mask, 10, 22);
    DataMatrix y = DataMatrix.of(9, mask.count(), TestData.gaussian(23, 9, mask.count(), 0),
        "y");
    RunReport two = Nlspark.twoSample(spark, x, y, options(mask).toBuilder().tail(Tail.UPPER)
        .build());
    RunReport two3 = Nlspark.twoSample(spark, x, y, options(mask).toBuilder().tail(Tail.UPPER)
        .partitions(3).build());
    assertSame(two.result, two3.result, "two-sample, 3 partitions");

    double[] target = new double[10];
    for (int i = 0; i < target.length; i++) {
      target[i] = i * 0.7 + (i % 3);
    }
    RunReport corr = Nlspark.correlation(spark, x, target, options(mask).toBuilder()
        .statistic("spearman").build());
    Path out = dir.resolve("corr");
    Nlspark.write(corr, out.toString(), false);
    for (String name : new String[] {"observed", "p", "p_fwer", "null_max", "tfce", "p_tfce",
        "p_fwer_tfce", "null_max_tfce", "cluster_size", "p_fwer_cluster", "null_max_cluster"}) {
      assertThat(out.resolve(name + ".npy")).as(name).exists();
    }
    String summary = Files.readString(out.resolve("summary.json"));
    assertThat(summary).contains("\"layout\": \"whole_maps_per_replicate_window\"")
        .contains("\"tfce_device\": \"executor cpu\"").contains("\"whole_map_inference\"");
    assertThat(TestData.outputValues(out.resolve("tfce.npy")))
        .isEqualTo(corr.result.output("tfce"));
  }

  @Test
  void niftiFilesWithAMaskRunTfceAsTheMaskedMatrixDoes() throws Exception {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    DataMatrix x = data(mask, 14, 11);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < x.rows(); s++) {
      float[] values = new float[x.cols()];
      for (int v = 0; v < values.length; v++) {
        values[v] = (float) x.values()[s * x.cols() + v];
      }
      Path p = dir.resolve(String.format("s%02d.nii.gz", s));
      org.nlspark.core.io.nifti.NiftiWriter.writeMap(p, mask, values, 0f);
      list.append(p.getFileName()).append('\n');
    }
    Path listFile = Files.writeString(dir.resolve("subjects.txt"), list.toString());
    Path maskFile = dir.resolve("mask.nii.gz");
    org.nlspark.core.io.nifti.NiftiWriter.writeMask(maskFile, mask);
    // The same values as float32, widened exactly: what the files hold.
    double[] widened = new double[x.values().length];
    for (int i = 0; i < widened.length; i++) {
      widened[i] = (float) x.values()[i];
    }
    DataMatrix stored = DataMatrix.of(x.rows(), x.cols(), widened, "stored");
    RunReport matrix = Nlspark.oneSample(spark, stored, options(mask));
    RunReport files = Nlspark.oneSample(spark, listFile.toString(),
        options(mask).toBuilder().mask(null).maskFile(maskFile.toString()).build());
    assertThat(files.mask().count()).isEqualTo(mask.count());
    assertSame(matrix.result, files.result, "NIfTI list with --mask");
    assertThat(files.result.outputs().stream().map(Output::name))
        .contains("tfce", "p_fwer_tfce", "cluster_size");
  }

  @Test
  void withoutAGridTfceIsAUsageError() {
    SparkSession spark = SharedSpark.get();
    NiftiMask mask = mask();
    DataMatrix x = data(mask, 8, 24);
    assertThatThrownBy(() -> Nlspark.oneSample(spark, x, options(mask).toBuilder().mask(null)
        .build()))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("needs a mask image");
    assertThatThrownBy(() -> NlsparkOptions.builder().clusterThreshold(0.0).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--cluster-threshold must be finite and > 0")
        .hasMessageEndingWith("but was: 0.0");
  }
}
