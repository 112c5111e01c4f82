package org.nlspark.core.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * One 4-D image per subject into the (subjects, timepoints, voxels) array: C order, voxels in
 * nilearn's order, nibabel's scaling; headers off the grid or of another length refused.
 */
class SeriesImagesTest {
  private static final int NX = 3;
  private static final int NY = 2;
  private static final int NZ = 2;
  private static final double[][] SFORM = {{2, 0, 0, -3}, {0, 2, 0, -2}, {0, 0, 2, -1}};

  @TempDir Path dir;

  /** Big-endian int16, scaled by 0.5 and +1: value(s, t, f) = (100 s + 10 t + f) / 2 + 1. */
  private String subject(int s, int timepoints, int nz) throws IOException {
    NiftiHeader h = NiftiHeader.builder().order(ByteOrder.BIG_ENDIAN)
        .datatype(NiftiDatatype.INT16).shape(NX, NY, nz, timepoints).scaling(0.5, 1)
        .sform(4, SFORM).build();
    int n = NX * NY * nz;
    ByteBuffer data = ByteBuffer.allocate(2 * n * timepoints).order(ByteOrder.BIG_ENDIAN);
    for (int t = 0; t < timepoints; t++) {
      for (int f = 0; f < n; f++) {
        data.putShort((short) (100 * s + 10 * t + f));
      }
    }
    Path p = dir.resolve("sub-" + s + "-" + timepoints + "-" + nz + ".nii");
    try (OutputStream out = Files.newOutputStream(p)) {
      out.write(h.toBytes());
      out.write(data.array());
    }
    return p.toString();
  }

  private static NiftiMask mask() {
    NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(NX, NY, NZ)
        .sform(4, SFORM).build();
    double[] values = new double[NX * NY * NZ];
    for (int f : new int[] {1, 4, 6, 11}) {
      values[f] = 1;
    }
    return NiftiMask.fromImage(h, values, "mask");
  }

  @Test
  void readsEverySubjectsMaskedSeriesInCOrderWithTheFilesScaling() throws IOException {
    List<String> files = List.of(subject(0, 5, NZ), subject(1, 5, NZ), subject(2, 5, NZ));
    NiftiMask mask = mask();
    SeriesImages images = SeriesImages.describe("--input list", files, SampleSourceTest.LOCAL,
        mask);
    assertThat(images.subjects()).isEqualTo(3);
    assertThat(images.timepoints()).isEqualTo(5);
    double[] x = images.read(SampleSourceTest.LOCAL, mask);
    assertThat(x).hasSize(3 * 5 * 4);
    // Voxel order walks i, then j, then k fastest: file index f = i + 3 (j + 2 k).
    int[] order = {mask.fileIndex(0), mask.fileIndex(1), mask.fileIndex(2), mask.fileIndex(3)};
    assertThat(order).containsExactly(6, 1, 4, 11);
    for (int s = 0; s < 3; s++) {
      for (int t = 0; t < 5; t++) {
        for (int v = 0; v < 4; v++) {
          assertThat(x[(s * 5 + t) * 4 + v]).isEqualTo((100 * s + 10 * t + order[v]) * 0.5 + 1);
        }
      }
    }
    // The default mask: every voxel is finite, and non-zero in some volume.
    assertThat(images.defaultMask(SampleSourceTest.LOCAL).count()).isEqualTo(NX * NY * NZ);
  }

  @Test
  void refusesAnotherLengthOrGridNamingTheFile() throws IOException {
    String first = subject(0, 5, NZ);
    String shorter = subject(1, 4, NZ);
    assertThatThrownBy(() -> SeriesImages.describe("--input l", List.of(first, shorter),
        SampleSourceTest.LOCAL, null)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot use " + shorter + " as subject 1 of --input l: it has 4"
            + " time points, but " + first + " has 5");
    String other = subject(2, 5, NZ + 1);
    assertThatThrownBy(() -> SeriesImages.describe("--input l", List.of(first, other),
        SampleSourceTest.LOCAL, null)).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(other).hasMessageContaining("dims (3,2,3) vs first image");
    assertThatThrownBy(() -> SeriesImages.describe("--input l", List.of(other),
        SampleSourceTest.LOCAL, mask())).isInstanceOf(InvalidInputException.class)
        .hasMessageContaining(other).hasMessageContaining("dims (3,2,3) vs mask (3,2,2)");
  }
}
