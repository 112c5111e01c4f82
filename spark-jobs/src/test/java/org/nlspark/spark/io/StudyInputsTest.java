package org.nlspark.spark.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.hadoop.conf.Configuration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;

class StudyInputsTest {
  @TempDir Path dir;
  private final Configuration conf = new Configuration();

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

  @Test
  void resolveIsSerializableAndReadsNoSample() throws Exception {
    NiftiMask g = full(0);
    image("a/s1.nii.gz", g, 1, 2, 3, 4, 5, 6, 7, 8);
    image("a/s2.nii.gz", g, 2, 3, 4, 5, 6, 7, 8, 9);
    StudyInputs study = StudyInputs.resolve(conf, dir.resolve("a").toString(), null, null, null,
        null);
    assertThat(study.x().format).isEqualTo(StudyInputs.Format.NIFTI);
    assertThat(study.x().files).hasSize(2);
    assertThat(study.maskSource()).isEqualTo(StudyInputs.MASK_COMPUTED);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
      out.writeObject(study);
    }
    StudyInputs copy;
    try (ObjectInputStream in =
        new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
      copy = (StudyInputs) in.readObject();
    }
    assertThat(copy.x().files).isEqualTo(study.x().files);
    assertThat(copy.referenceHeader().grid().difference(study.referenceHeader().grid(), "first"))
        .isNull();
  }

  @Test
  void formatsAreToldByNameAndContent() throws Exception {
    Files.createDirectories(dir.resolve("table"));
    Files.write(dir.resolve("table/part-0.parquet"), new byte[] {1});
    Files.writeString(dir.resolve("table/_SUCCESS"), "");
    assertThat(StudyInputs.source(conf, dir.resolve("table").toString(), "--input").format)
        .isEqualTo(StudyInputs.Format.PARQUET);
    assertThat(StudyInputs.source(conf, dir.resolve("x.npy").toString(), "--input").format)
        .isEqualTo(StudyInputs.Format.NPY);
    assertThatThrownBy(() -> StudyInputs.checkOptions("x.npy", "m.nii.gz", null, null))
        .hasMessageContaining("has no grid");
    assertThatThrownBy(() -> StudyInputs.checkOptions("x.npy", null, null, "subject"))
        .hasMessageContaining("--order-by").hasMessageContaining("Parquet inputs only");
    StudyInputs.checkOptions("list.txt", "m.nii.gz", null, null); // decided when resolved
  }
}
