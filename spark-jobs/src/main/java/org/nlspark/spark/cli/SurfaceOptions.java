package org.nlspark.spark.cli;

import java.util.ArrayList;
import java.util.List;
import org.nlspark.spark.api.NlsparkOptions;
import picocli.CommandLine.Option;

/**
 * The meshes of surface data (DESIGN §8), declared once for every command that takes images:
 * {@code --surface} for GIFTI and MGH data, {@code --surface-left}/{@code --surface-right} for
 * CIFTI's two cortices, {@code --vertex-area} for either.
 */
public final class SurfaceOptions {
  @Option(names = "--surface", paramLabel = "MESH", order = 5,
      description = "the mesh of surface data (GIFTI .func.gii/.shape.gii or FreeSurfer"
          + " .mgh/.mgz inputs): a GIFTI .surf.gii or a FreeSurfer surface (lh.white); TFCE and"
          + " clusters join vertices through its triangles, extents in mm2")
  String surface;

  @Option(names = "--surface-left", paramLabel = "MESH", order = 5,
      description = "the left cortex mesh of CIFTI data (.dscalar.nii, .dtseries.nii inputs):"
          + " a .surf.gii of the surface its CORTEX_LEFT model numbers")
  String surfaceLeft;

  @Option(names = "--surface-right", paramLabel = "MESH", order = 5,
      description = "the right cortex mesh of CIFTI data (its CORTEX_RIGHT model)")
  String surfaceRight;

  @Option(names = "--vertex-area", paramLabel = "AREA", order = 5,
      description = "with a mesh: each vertex's area in mm2 (a GIFTI, MGH or CIFTI file of one"
          + " value per vertex, as PALM's -s surf area; default: a third of its triangles'"
          + " areas)")
  String vertexArea;

  /** Sets the mesh files on a run's options. */
  void applyTo(NlsparkOptions.Builder o) {
    o.surfaceFile(surface).vertexAreaFile(vertexArea).surfaceLeftFile(surfaceLeft)
        .surfaceRightFile(surfaceRight);
  }

  /** The files named, for the rule that --overwrite never replaces an input. */
  List<String> paths() {
    List<String> all = new ArrayList<>();
    for (String f : new String[] {surface, surfaceLeft, surfaceRight, vertexArea}) {
      if (f != null) {
        all.add(f);
      }
    }
    return all;
  }
}
