package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.JobInputs;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.StudyInputs;

/**
 * Resolved inputs ({@link StudyInputs}) as the sources the engine reads ({@link Sources}): the
 * default mask computed by the executors over both groups, values in voxel order, grid and NaN
 * refusals naming the input and file.
 */
class StudySourcesTest {
  @TempDir Path dir;
  private final SparkSession spark = SharedSpark.get();
  private final Configuration conf = spark.sparkContext().hadoopConfiguration();
  private final HadoopOpener files = new HadoopOpener(conf);

  /** A 2 x 2 x 2 grid; every voxel selected, so maps are whole volumes in voxel order. */
  private static NiftiMask full(double shiftZ) {
    NiftiHeader h = NiftiHeader.builder().shape(2, 2, 2)
        .sform(2, new double[][] {{2, 0, 0, 0}, {0, 2, 0, 0}, {0, 0, 2, shiftZ}}).build();
    return NiftiMask.fromSelection(h, new boolean[] {true, true, true, true, true, true, true,
        true}, "full");
  }

  private Path image(String name, NiftiMask grid, float... voxelOrderValues) throws Exception {
    Path p = dir.resolve(name);
    Files.createDirectories(p.getParent());
    NiftiWriter.writeMap(p, grid, voxelOrderValues, 0f);
    return p;
  }

  private StudyInputs resolve(String x, String y, String mask) {
    return StudyInputs.resolve(conf, dir.resolve(x).toString(),
        y == null ? null : dir.resolve(y).toString(), mask, null, null);
  }

  @Test
  void aResolvedStudyReadsTheSameAfterARoundTrip() throws Exception {
    NiftiMask g = full(0);
    image("a/s1.nii.gz", g, 1, 2, 3, 4, 5, 6, 7, 8);
    image("a/s2.nii.gz", g, 2, 3, 4, 5, 6, 7, 8, 9);
    StudyInputs study = resolve("a", null, null);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(study);
    }
    StudyInputs copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (StudyInputs) in.readObject();
    }
    JobInputs a = Sources.of(spark, study, null).load(files);
    JobInputs b = Sources.of(spark, copy, null).load(files);
    assertThat(b.x().values()).isEqualTo(a.x().values());
    assertThat(a.x().rows()).isEqualTo(2);
    assertThat(a.x().values()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void theDefaultMaskSpansBothGroups() throws Exception {
    NiftiMask g = full(0);
    // Voxel 7 is zero in group 1 and non-zero in group 2; voxel 0 is zero everywhere.
    image("g1/s1.nii.gz", g, 0, 2, 3, 4, 5, 6, 7, 0);
    image("g1/s2.nii.gz", g, 0, 3, 4, 5, 6, 7, 8, 0);
    image("g2/s1.nii.gz", g, 0, 1, 1, 1, 1, 1, 1, 5);
    DistributedInputs inputs = Sources.of(spark, resolve("g1", "g2", null), null);
    assertThat(inputs.mask().count()).isEqualTo(7);
    JobInputs l = inputs.load(files);
    assertThat(l.x().values()).containsExactly(2, 3, 4, 5, 6, 7, 0, 3, 4, 5, 6, 7, 8, 0);
    assertThat(l.y().values()).containsExactly(1, 1, 1, 1, 1, 1, 5);
  }

  @Test
  void groupsOnDifferentGridsAndNaNsAreRefused() throws Exception {
    image("g1/s1.nii.gz", full(0), 1, 2, 3, 4, 5, 6, 7, 8);
    image("g2/s1.nii.gz", full(0.5), 1, 2, 3, 4, 5, 6, 7, 8);
    StudyInputs study = resolve("g1", "g2", null);
    assertThatThrownBy(() -> Sources.of(spark, study, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--input2").hasMessageContaining("g2/s1.nii.gz")
        .hasMessageContaining("affine differs by 0.5");
    Path mask = image("mask.nii.gz", full(0), 1, 1, 1, 1, 1, 1, 1, 1);
    image("nan/s1.nii.gz", full(0), 1, 2, Float.NaN, 4, 5, 6, 7, 8);
    StudyInputs withNaN = resolve("nan", null, mask.toString());
    assertThatThrownBy(() -> Sources.of(spark, withNaN, null).load(files))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("s1.nii.gz").hasMessageContaining("NaN at voxel (i, j, k) = (");
  }
}
