package org.nlspark.spark.output;

import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.result.Output;
import org.nlspark.spark.io.StudyInputs;
import org.nlspark.spark.io.UserPaths;

/**
 * Which outputs of a run on a grid are also written as {@code NAME.nii.gz} maps (DESIGN §8),
 * their fill value outside the mask, and the {@code grid} entry of summary.json. Maps are made
 * from the merged per-voxel results only (O(voxels) each), never from samples.
 */
public final class NiftiOutputs {
  /** The default mask's file name in the outputs. */
  public static final String MASK_FILE = "mask.nii.gz";

  private NiftiOutputs() {}

  /**
   * Whether an output is a per-voxel map: one value per mask voxel, and not replicate-indexed
   * ({@code null_max*}) nor the bootstrap draws ({@code samples}), which stay {@code .npy}.
   */
  public static boolean isMap(Output o, NiftiMask mask) {
    return mask != null && o.shape().length == 1 && o.shape()[0] == mask.count()
        && !o.name().startsWith("null_max") && !o.name().equals("samples");
  }

  /** Whether an output holds p-values ({@code p}, {@code p_fwer}, {@code p_*}; q of --fdr). */
  public static boolean isPValue(String name) {
    return name.equals("p") || name.startsWith("p_") || name.equals("q") || name.startsWith("q_");
  }

  /** Outside the mask: 1 for p-value maps (nothing found there), 0 for statistics. */
  public static float outside(String name) {
    return isPValue(name) ? 1f : 0f;
  }

  /** The NIfTI files a report writes besides its .npy files, in writing order. */
  public static List<String> fileNames(RunReport report) {
    List<String> names = new ArrayList<>();
    NiftiMask mask = report.mask();
    if (mask == null) {
      return names;
    }
    for (Output o : report.result.outputs()) {
      if (isMap(o, mask)) {
        names.add(o.name() + ".nii.gz");
      }
    }
    if (writesMask(report)) {
      names.add(MASK_FILE);
    }
    return names;
  }

  /** The mask is written when it was computed (a given mask is the user's own file). */
  public static boolean writesMask(RunReport report) {
    return report.mask() != null
        && StudyInputs.MASK_COMPUTED.equals(report.maskSource());
  }

  /**
   * Writes the report's maps (and a computed mask) into {@code out}, prefixed by {@code prefix}
   * ("" or "sub/").
   */
  public static void write(HadoopOutput.OutputDir out, String prefix, RunReport report) {
    NiftiMask mask = report.mask();
    if (mask == null) {
      return;
    }
    for (Output o : report.result.outputs()) {
      if (isMap(o, mask)) {
        double[] v = o.values();
        float[] f = new float[v.length];
        for (int i = 0; i < v.length; i++) {
          f[i] = (float) v[i];
        }
        out.writeNiftiMap(prefix + o.name() + ".nii.gz", mask, f, outside(o.name()));
      }
    }
    if (writesMask(report)) {
      out.writeNiftiMask(prefix + MASK_FILE, mask);
    }
  }

  /** summary.json's {@code grid}: dims, affine, mask source and mask voxel count. */
  public static Map<String, Object> grid(NiftiMask mask, String maskSource) {
    return grid(mask, maskSource, null);
  }

  /**
   * The same, plus {@code mask_uri}: a given mask's fully qualified path, so that a report made
   * later, from another working directory, finds the mask the run used.
   */
  public static Map<String, Object> grid(NiftiMask mask, String maskSource, Configuration conf) {
    Map<String, Object> m = new LinkedHashMap<>();
    int[] d = mask.grid().dims();
    m.put("dims", List.of(d[0], d[1], d[2]));
    List<List<Double>> affine = new ArrayList<>();
    for (double[] row : mask.grid().affine()) {
      affine.add(List.of(row[0], row[1], row[2], row[3]));
    }
    m.put("affine", affine);
    m.put("affine_source", mask.geometry().affineSource());
    m.put("mask_source", maskSource == null ? "given" : maskSource);
    m.put("mask_voxels", mask.count());
    if (mask.droppedNonFinite() >= 0) { // a default mask: what it left out, and why
      Map<String, Object> left = new LinkedHashMap<>();
      left.put("non_finite", mask.droppedNonFinite());
      left.put("zero_in_every_sample", mask.droppedAllZero());
      m.put("mask_left_out", left);
    }
    if (conf != null && maskSource != null && !StudyInputs.MASK_COMPUTED.equals(maskSource)) {
      try {
        Path p = UserPaths.toPath(maskSource, "--mask");
        m.put("mask_uri", p.getFileSystem(conf).makeQualified(p).toString());
      } catch (IOException | RuntimeException e) {
        // no URI: the report then looks for the mask beside the outputs only
      }
    }
    return m;
  }
}
