package org.nlspark.report;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyWriter;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.stats.PValues;

/**
 * A finished one-sample output directory on a small grid: an ellipsoid mask, a blob of strong
 * positive t around {@link #BLOB_IJK}, noise elsewhere, p and p_fwer by core's rule from a
 * synthetic null of maxima, mask.nii.gz and summary.json as a run writes them.
 */
final class GridFixture {
  static final int[] DIMS = {14, 16, 12};
  static final double VOXEL_MM = 2.0;
  static final double[] ORIGIN_MM = {-14, -18, -10};
  static final int[] BLOB_IJK = {4, 10, 6};
  static final double BLOB_RADIUS_VOXELS = 2.0;
  static final int PERMUTATIONS = 400;

  final NiftiMask mask;
  final double[] observed;
  final double[] p;
  final double[] pFwer;
  final double[] nullMax;

  private GridFixture(NiftiMask mask, double[] observed, double[] p, double[] pFwer,
      double[] nullMax) {
    this.mask = mask;
    this.observed = observed;
    this.p = p;
    this.pFwer = pFwer;
    this.nullMax = nullMax;
  }

  static double[][] affine() {
    return new double[][] {
      {VOXEL_MM, 0, 0, ORIGIN_MM[0]}, {0, VOXEL_MM, 0, ORIGIN_MM[1]},
      {0, 0, VOXEL_MM, ORIGIN_MM[2]}, {0, 0, 0, 1}};
  }

  static double[] blobCentreMm() {
    return Clusters.toMm(affine(), BLOB_IJK);
  }

  static NiftiMask mask() {
    NiftiHeader header = NiftiHeader.builder().shape(DIMS[0], DIMS[1], DIMS[2])
        .pixdim(1, VOXEL_MM, VOXEL_MM, VOXEL_MM, 1, 1, 1, 1)
        .sform(2, new double[][] {affine()[0], affine()[1], affine()[2]}).build();
    boolean[] selected = new boolean[DIMS[0] * DIMS[1] * DIMS[2]];
    for (int k = 0; k < DIMS[2]; k++) {
      for (int j = 0; j < DIMS[1]; j++) {
        for (int i = 0; i < DIMS[0]; i++) {
          double x = (i - 6.5) / 6.5;
          double y = (j - 7.5) / 7.5;
          double z = (k - 5.5) / 5.5;
          selected[i + DIMS[0] * (j + DIMS[1] * k)] = x * x + y * y + z * z <= 1.0;
        }
      }
    }
    return NiftiMask.fromSelection(header, selected, "fixture mask");
  }

  static boolean inBlob(int[] ijk) {
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
      d2 += (ijk[a] - BLOB_IJK[a]) * (double) (ijk[a] - BLOB_IJK[a]);
    }
    return d2 <= BLOB_RADIUS_VOXELS * BLOB_RADIUS_VOXELS;
  }

  static GridFixture make(long seed) {
    NiftiMask mask = mask();
    SplittableRandom r = new SplittableRandom(seed);
    int v = mask.count();
    double[] observed = new double[v];
    double[] p = new double[v];
    for (int n = 0; n < v; n++) {
      observed[n] = gaussian(r) + (inBlob(mask.ijk(n)) ? 8.0 : 0.0);
      // a monotone stand-in for the uncorrected p of |t|
      p[n] = Math.min(1.0, Math.exp(-0.8 * observed[n] * observed[n]) + 1.0 / (PERMUTATIONS + 1));
    }
    double[] nullMax = new double[PERMUTATIONS];
    for (int d = 0; d < PERMUTATIONS; d++) {
      double max = 0;
      for (int n = 0; n < v; n++) {
        max = Math.max(max, Math.abs(gaussian(r)));
      }
      nullMax[d] = max;
    }
    double[] keys = new double[v];
    for (int n = 0; n < v; n++) {
      keys[n] = Math.abs(observed[n]);
    }
    double[] pFwer = PValues.fwer(nullMax, keys, false);
    return new GridFixture(mask, observed, p, pFwer, nullMax);
  }

  static double gaussian(SplittableRandom r) {
    double u = 1.0 - r.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * r.nextDouble());
  }

  /** Writes the run into {@code dir} (created), with or without mask.nii.gz. */
  void write(Path dir, boolean withMask) throws IOException {
    Files.createDirectories(dir);
    npy(dir.resolve("observed.npy"), observed);
    npy(dir.resolve("p.npy"), p);
    npy(dir.resolve("p_fwer.npy"), pFwer);
    npy(dir.resolve("null_max.npy"), nullMax);
    List<String> outputs = new ArrayList<>(List.of("null_max.npy", "observed.npy", "p.npy",
        "p_fwer.npy"));
    if (withMask) {
      NiftiWriter.writeMask(dir.resolve("mask.nii.gz"), mask);
      outputs.add("mask.nii.gz");
    }
    outputs.add("summary.json");
    Map<String, Object> s = new LinkedHashMap<>();
    s.put(org.nlspark.core.io.OutputFormat.KEY, org.nlspark.core.io.OutputFormat.CURRENT);
    s.put("command", "one-sample");
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("statistic", "t");
    params.put("permutations", PERMUTATIONS);
    params.put("tail", "two");
    s.put("parameters", params);
    s.put("seed", 7);
    s.put("input", Map.of("samples", 20, "voxels", mask.count()));
    s.put("blas", "test BLAS");
    int at = 0;
    for (int n = 1; n < observed.length; n++) {
      if (Math.abs(observed[n]) > Math.abs(observed[at])) {
        at = n;
      }
    }
    Map<String, Object> findings = new LinkedHashMap<>();
    findings.put("p_below_0_05", Report.countBelow(p, 0.05));
    findings.put("p_below_0_01", Report.countBelow(p, 0.01));
    findings.put("p_fwer_below_0_05", Report.countBelow(pFwer, 0.05));
    findings.put("p_fwer_below_0_01", Report.countBelow(pFwer, 0.01));
    findings.put("statistic", "observed");
    findings.put("max_abs_statistic", observed[at]);
    findings.put("max_abs_statistic_voxel", at);
    s.put("findings", findings);
    s.put("command_line", "nlspark one-sample --input 'data/X.npy' --stat t");
    s.put("outputs", outputs);
    Files.writeString(dir.resolve("summary.json"), Json.write(s) + "\n", StandardCharsets.UTF_8);
  }

  static void npy(Path path, double[] values) throws IOException {
    try (OutputStream out = Files.newOutputStream(path)) {
      NpyWriter.writeFloat64(out, new long[] {values.length}, values);
    }
  }
}
