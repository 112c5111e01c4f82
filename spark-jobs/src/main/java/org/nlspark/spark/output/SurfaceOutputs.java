package org.nlspark.spark.output;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.FreeSurfer;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.result.Output;
import org.nlspark.core.tfce.MeshAdjacency;

/**
 * The maps of surface inputs in the inputs' own format (DESIGN §6): each per-vertex output as a
 * GIFTI {@code .func.gii} (inputs in GIFTI), an MGH {@code .mgh} (inputs in MGH/MGZ), on every
 * vertex of the mesh, or a CIFTI {@code .dscalar.nii} with the inputs' brain models (CIFTI
 * inputs: the grayordinates only), vertices outside the mask 0 (1 for p-values, as {@link NiftiOutputs}), so
 * that FreeSurfer, Workbench and nilearn overlay them on the mesh. The {@code .npy} files keep
 * the masked vertices in vertex order.
 */
public final class SurfaceOutputs {
  private SurfaceOutputs() {}

  /** Whether an output is a per-vertex map of the report's mesh. */
  public static boolean isMap(Output o, MeshAdjacency mesh) {
    return mesh != null && o.shape().length == 1 && o.shape()[0] == mesh.voxels()
        && !o.name().startsWith("null_max") && !o.name().equals("samples");
  }

  /** The surface files a report writes besides its .npy files, in writing order. */
  public static List<String> fileNames(RunReport report) {
    List<String> names = new ArrayList<>();
    for (Output o : report.result.outputs()) {
      if (isMap(o, report.surface())) {
        names.add(o.name() + report.surfaceMapSuffix());
      }
    }
    return names;
  }

  /** Writes the report's per-vertex maps into {@code out}, prefixed by {@code prefix}. */
  public static void write(HadoopOutput.OutputDir out, String prefix, RunReport report) {
    MeshAdjacency mesh = report.surface();
    boolean mgh = ".mgh".equals(report.surfaceMapSuffix());
    boolean cifti = report.grayordinates() != null;
    for (Output o : report.result.outputs()) {
      if (isMap(o, mesh)) {
        float[] values = mesh.toMesh(o.values(), NiftiOutputs.outside(o.name()));
        out.writeWith(prefix + o.name() + report.surfaceMapSuffix(), stream -> {
          if (cifti) {
            Cifti.writeMap(stream, report.grayordinates(), o.name(), values);
          } else if (mgh) {
            FreeSurfer.writeMgh(stream, values);
          } else {
            Gifti.writeMap(stream, o.name(), values);
          }
        });
      }
    }
  }

  /**
   * Writes the mesh ({@code surface}: a {@code .surf.gii}) and the vertex mask ({@code mask}:
   * 1 in, 0 out, a {@code .func.gii}) under the names {@code files} gives them by role.
   */
  public static void writeMeshFiles(HadoopOutput.OutputDir out, RunReport report,
      Map<String, String> files) {
    MeshAdjacency mesh = report.surface();
    if (files.containsKey("surface")) {
      out.writeWith(files.get("surface"), stream -> Gifti.writeMesh(stream, mesh.mesh()));
    }
    if (files.containsKey("mask")) {
      double[] in = new double[mesh.voxels()];
      java.util.Arrays.fill(in, 1);
      float[] mask = mesh.toMesh(in, 0);
      out.writeWith(files.get("mask"), stream -> Gifti.writeMap(stream, "mask", mask));
    }
  }

  /**
   * {@code summary} with {@code inputs.mesh_uris} naming the files written beside the outputs
   * ({@link #writeMeshFiles}; relative to the output directory, where the report reads them).
   */
  @SuppressWarnings("unchecked")
  public static Map<String, Object> withMeshFiles(Map<String, Object> summary,
      Map<String, String> files) {
    if (files.isEmpty() || !(summary.get("inputs") instanceof Map<?, ?> inputs)) {
      return summary;
    }
    Map<String, Object> in = new LinkedHashMap<>((Map<String, Object>) inputs);
    Map<String, Object> uris = in.get("mesh_uris") instanceof Map<?, ?> u
        ? new LinkedHashMap<>((Map<String, Object>) u) : new LinkedHashMap<>();
    uris.putAll(files);
    in.put("mesh_uris", uris);
    Map<String, Object> out = new LinkedHashMap<>(summary);
    out.put("inputs", in);
    return out;
  }

  /** The suffix of the maps of inputs whose first file is {@code firstFile}. */
  public static String suffixFor(String firstFile) {
    return Cifti.isCiftiName(firstFile) ? ".dscalar.nii"
        : FreeSurfer.isMghName(firstFile) ? ".mgh" : ".func.gii";
  }
}
