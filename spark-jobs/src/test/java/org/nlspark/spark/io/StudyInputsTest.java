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
import org.nlspark.core.InvalidInputException;
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
  void resolveIsSerializableAndLoadsTheSameAfterARoundTrip() throws Exception {
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
    StudyInputs.Loaded a = study.load(conf);
    StudyInputs.Loaded b = copy.load(conf);
    assertThat(b.x.values()).isEqualTo(a.x.values());
    assertThat(a.x.rows()).isEqualTo(2);
    assertThat(a.x.values()).containsExactly(1, 2, 3, 4, 5, 6, 7, 8, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void theDefaultMaskSpansBothGroups() throws Exception {
    NiftiMask g = full(0);
    // Voxel 7 is zero in group 1 and non-zero in group 2; voxel 0 is zero everywhere.
    image("g1/s1.nii.gz", g, 0, 2, 3, 4, 5, 6, 7, 0);
    image("g1/s2.nii.gz", g, 0, 3, 4, 5, 6, 7, 8, 0);
    image("g2/s1.nii.gz", g, 0, 1, 1, 1, 1, 1, 1, 5);
    StudyInputs study = StudyInputs.resolve(conf, dir.resolve("g1").toString(),
        dir.resolve("g2").toString(), null, null, null);
    StudyInputs.Loaded l = study.load(conf);
    assertThat(l.mask.count()).isEqualTo(7);
    assertThat(l.x.values()).containsExactly(2, 3, 4, 5, 6, 7, 0, 3, 4, 5, 6, 7, 8, 0);
    assertThat(l.y.values()).containsExactly(1, 1, 1, 1, 1, 1, 5);
  }

  @Test
  void groupsOnDifferentGridsAndNaNsAreRefused() throws Exception {
    image("g1/s1.nii.gz", full(0), 1, 2, 3, 4, 5, 6, 7, 8);
    image("g2/s1.nii.gz", full(0.5), 1, 2, 3, 4, 5, 6, 7, 8);
    StudyInputs study = StudyInputs.resolve(conf, dir.resolve("g1").toString(),
        dir.resolve("g2").toString(), null, null, null);
    assertThatThrownBy(() -> study.load(conf)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--input2").hasMessageContaining("g2/s1.nii.gz")
        .hasMessageContaining("affine differs by 0.5");
    Path mask = image("mask.nii.gz", full(0), 1, 1, 1, 1, 1, 1, 1, 1);
    image("nan/s1.nii.gz", full(0), 1, 2, Float.NaN, 4, 5, 6, 7, 8);
    StudyInputs withNaN = StudyInputs.resolve(conf, dir.resolve("nan").toString(), null,
        mask.toString(), null, null);
    assertThatThrownBy(() -> withNaN.load(conf)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("NaN").hasMessageContaining("(row 0, column 2)");
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
