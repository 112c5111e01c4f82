package org.nlspark.spark;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.GZIPOutputStream;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;

/**
 * A small seeded study on a grid, written the ways nlspark reads it. The masked matrix is
 * computed here independently of nlspark's mask code: voxel n is the n-th masked voxel walked
 * {@code for i: for j: for k} (nilearn's order), the file index is {@code i + nx*(j + ny*k)}.
 */
final class NiftiStudy {
  static final int NX = 6;
  static final int NY = 5;
  static final int NZ = 4;
  static final double[][] SFORM = {{-3, 0, 0, 9}, {0, 3, 0, -12}, {0, 0, 3, -6.5}};

  final int subjects;
  /** Per subject, the volume in file order (float32); 0 outside the mask. */
  final float[][] volumes;
  final boolean[] inMask; // file order
  final int maskCount;

  NiftiStudy(long seed, int subjects, double shift) {
    this.subjects = subjects;
    int n = NX * NY * NZ;
    inMask = new boolean[n];
    int count = 0;
    for (int f = 0; f < n; f++) {
      int i = f % NX;
      int j = (f / NX) % NY;
      int k = f / (NX * NY);
      // An off-centre ellipsoid, so that the order of i, j, k matters.
      double d = sq((i - 2.2) / 3.0) + sq((j - 2.0) / 2.4) + sq((k - 1.4) / 2.0);
      inMask[f] = d <= 1.0;
      count += inMask[f] ? 1 : 0;
    }
    maskCount = count;
    SplittableRandom r = new SplittableRandom(seed);
    volumes = new float[subjects][n];
    for (int s = 0; s < subjects; s++) {
      for (int f = 0; f < n; f++) {
        if (inMask[f]) {
          float v = (float) (r.nextGaussian() + ((f % 3 == 0) ? shift : 0));
          volumes[s][f] = v == 0 ? 1e-3f : v;
        }
      }
    }
  }

  private static double sq(double x) {
    return x * x;
  }

  /** File indices of the mask voxels in nilearn's order. */
  int[] maskOrder() {
    int[] order = new int[maskCount];
    int next = 0;
    for (int i = 0; i < NX; i++) {
      for (int j = 0; j < NY; j++) {
        for (int k = 0; k < NZ; k++) {
          int f = i + NX * (j + NY * k);
          if (inMask[f]) {
            order[next++] = f;
          }
        }
      }
    }
    return order;
  }

  /** subjects x mask voxels, row-major, widened from float32. */
  double[] masked() {
    int[] order = maskOrder();
    double[] x = new double[subjects * maskCount];
    for (int s = 0; s < subjects; s++) {
      for (int n = 0; n < maskCount; n++) {
        x[s * maskCount + n] = volumes[s][order[n]];
      }
    }
    return x;
  }

  float[] row(int s) {
    int[] order = maskOrder();
    float[] v = new float[maskCount];
    for (int n = 0; n < maskCount; n++) {
      v[n] = volumes[s][order[n]];
    }
    return v;
  }

  static NiftiHeader header(NiftiDatatype type, long... shape) {
    return NiftiHeader.builder().datatype(type).shape(shape).pixdim(1, 3, 3, 3, 1, 1, 1, 1)
        .sform(4, SFORM).qform(0, new double[3], new double[3]).build();
  }

  /** A float32 .nii.gz of the given volumes (3-D for one, else 4-D). */
  static void write(Path p, NiftiHeader header, float[]... vols) {
    try {
      Files.createDirectories(p.toAbsolutePath().getParent());
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
        out.write(header.toBytes());
        for (float[] v : vols) {
          ByteBuffer b = ByteBuffer.allocate(4 * v.length).order(ByteOrder.LITTLE_ENDIAN);
          b.asFloatBuffer().put(v);
          out.write(b.array());
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  void writeSubject(Path p, int s) {
    write(p, header(NiftiDatatype.FLOAT32, NX, NY, NZ), volumes[s]);
  }

  void write4d(Path p) {
    write(p, header(NiftiDatatype.FLOAT32, NX, NY, NZ, subjects), volumes);
  }

  void writeMask(Path p) {
    byte[] m = new byte[inMask.length];
    for (int f = 0; f < m.length; f++) {
      m[f] = (byte) (inMask[f] ? 1 : 0);
    }
    try {
      Files.createDirectories(p.toAbsolutePath().getParent());
      ByteArrayOutputStream bytes = new ByteArrayOutputStream();
      bytes.write(header(NiftiDatatype.UINT8, NX, NY, NZ).toBytes());
      bytes.write(m);
      try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(p))) {
        out.write(bytes.toByteArray());
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
