package org.nlspark.spark.cli;

import java.nio.charset.StandardCharsets;
import java.util.SplittableRandom;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.spark.output.HadoopOutput;

/**
 * The demo's synthetic study: {@value #SUBJECTS} subjects on a 40 × 48 × 40 grid of 4 mm voxels
 * with an MNI-like affine, N(0, 1) noise inside a brain-shaped ellipsoid mask (0 outside), and
 * an effect of {@value #EFFECT} SD in a sphere (the planted blob) of radius {@value #BLOB_RADIUS}
 * voxels. Same seed, same files.
 */
final class DemoStudy {
  static final int SUBJECTS = 40;
  static final int NX = 40;
  static final int NY = 48;
  static final int NZ = 40;
  static final double VOXEL_MM = 4;
  /** RAS+ millimetres of voxel (i, j, k); x flipped as in MNI152 templates. */
  static final double[][] AFFINE = {{-4, 0, 0, 78}, {0, 4, 0, -112}, {0, 0, 4, -70}};
  static final double EFFECT = 1.0;
  static final double BLOB_RADIUS = 3.0;
  /** The blob's centre in voxels: left hemisphere, anterior, superior of the centre. */
  static final int[] BLOB = {13, 31, 23};

  private DemoStudy() {}

  /** The grid's header: float32, sform and qform both the affine above (codes 4, MNI). */
  static NiftiHeader geometry() {
    // The qform of diag(-4, 4, 4): qfac -1 (pixdim[0]) flips z, so the rotation is diag(-1, 1,
    // -1), 180 degrees about y: quaternion (b, c, d) = (0, 1, 0).
    return NiftiHeader.builder().datatype(NiftiDatatype.FLOAT32).shape(NX, NY, NZ)
        .pixdim(-1, VOXEL_MM, VOXEL_MM, VOXEL_MM, 1, 1, 1, 1)
        .qform(4, new double[] {0, 1, 0}, new double[] {AFFINE[0][3], AFFINE[1][3],
            AFFINE[2][3]})
        .sform(4, AFFINE).xyztUnits(2).descrip("nlspark demo").build();
  }

  /** The ellipsoid: semi-axes of 16, 20 and 15 voxels (64, 80, 60 mm), about 20,000 voxels. */
  static NiftiMask mask() {
    boolean[] selected = new boolean[NX * NY * NZ];
    for (int k = 0; k < NZ; k++) {
      for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
          double d = sq((i - 19.5) / 16) + sq((j - 23.5) / 20) + sq((k - 19.5) / 15);
          selected[i + NX * (j + NY * k)] = d <= 1;
        }
      }
    }
    return NiftiMask.fromSelection(geometry(), selected, "the demo mask");
  }

  private static double sq(double x) {
    return x * x;
  }

  /** Whether mask voxel {@code n} is in the planted blob. */
  static boolean isPlanted(NiftiMask mask, int n) {
    int[] ijk = mask.ijk(n);
    return sq(ijk[0] - BLOB[0]) + sq(ijk[1] - BLOB[1]) + sq(ijk[2] - BLOB[2])
        <= BLOB_RADIUS * BLOB_RADIUS;
  }

  /** One subject's values per mask voxel (voxel order); subjects drawn in order from one stream. */
  static float[] subject(NiftiMask mask, SplittableRandom random) {
    float[] v = new float[mask.count()];
    for (int n = 0; n < v.length; n++) {
      double value = gaussian(random) + (isPlanted(mask, n) ? EFFECT : 0.0);
      // A value of exactly 0 would read as outside the brain to a default mask.
      v[n] = value == 0 ? Float.MIN_NORMAL : (float) value;
    }
    return v;
  }

  private static double gaussian(SplittableRandom r) {
    // Box-Muller; one value per call keeps the stream simple to reproduce.
    double u = 1.0 - r.nextDouble();
    double w = r.nextDouble();
    return Math.sqrt(-2.0 * StrictMath.log(u)) * StrictMath.cos(2.0 * Math.PI * w);
  }

  /** The effect map (EFFECT in the blob, 0 elsewhere), the ground truth to compare maps with. */
  static float[] truth(NiftiMask mask) {
    float[] v = new float[mask.count()];
    for (int n = 0; n < v.length; n++) {
      v[n] = isPlanted(mask, n) ? (float) EFFECT : 0f;
    }
    return v;
  }

  static String fileName(int subject) {
    return String.format(java.util.Locale.ROOT, "sub-%02d.nii.gz", subject + 1);
  }

  /**
   * Writes the study under {@code prefix} of {@code out}: the subjects, mask.nii.gz,
   * effect.nii.gz and subjects.txt (the list, relative names, in subject order).
   */
  static void write(HadoopOutput.OutputDir out, String prefix, NiftiMask mask, long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    StringBuilder list = new StringBuilder();
    for (int s = 0; s < SUBJECTS; s++) {
      out.writeNiftiMap(prefix + fileName(s), mask, subject(mask, random), 0f);
      list.append(fileName(s)).append('\n');
    }
    out.writeNiftiMask(prefix + "mask.nii.gz", mask);
    out.writeNiftiMap(prefix + "effect.nii.gz", mask, truth(mask), 0f);
    out.writeBytes(prefix + "subjects.txt", list.toString().getBytes(StandardCharsets.UTF_8));
  }
}
