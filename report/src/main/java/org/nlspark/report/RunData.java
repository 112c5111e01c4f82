package org.nlspark.report;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.VertexSamples;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyReader;
import org.nlspark.core.io.OutputFormat;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.io.surface.MeshReader;
import org.nlspark.core.surface.SurfaceMesh;
import org.nlspark.core.tfce.MeshAdjacency;

/**
 * One finished run as the report sees it: its summary.json, its {@code .npy} outputs and, when
 * the inputs had a grid, the mask (mask.nii.gz beside the outputs, else the path summary.json's
 * {@code grid} entry names) and an optional mean image to draw under the maps.
 */
final class RunData {
  /** Section name: "" for a run at the top of the directory, else its sub-directory. */
  final String name;
  final Map<String, Object> summary;
  final Map<String, NpyArray> arrays = new LinkedHashMap<>();
  final NiftiMask mask;
  /** Background volume in file order (the underlay), or null to draw the mask. */
  final double[] background;
  /** What the background is, for the page ("the underlay mean.nii.gz"). */
  String backgroundName = "mask";
  /**
   * Surface data's mesh and in-mask vertices, read again from the paths summary.json names
   * ({@code inputs.surface}, {@code inputs.mask}); null for other inputs, or when they cannot
   * be read now (a note says so, and the maps are not drawn).
   */
  MeshAdjacency surface;
  final List<String> notes = new ArrayList<>();

  private RunData(String name, Map<String, Object> summary, NiftiMask mask, double[] background) {
    this.name = name;
    this.summary = summary;
    this.mask = mask;
    this.background = background;
  }

  /** The run whose summary.json is at {@code prefix + "summary.json"}, or null when none is. */
  @SuppressWarnings("unchecked")
  static RunData load(ReportFiles files, String prefix) throws IOException {
    return load(files, prefix, null, null);
  }

  /**
   * The same with an underlay (a 3-D NIfTI on the mask's grid, e.g. the mean of the inputs or
   * an anatomical image resampled to it) drawn in grey under the maps; null for none, when the
   * run's mean_image.nii.gz (if any) is drawn, else the mask.
   */
  @SuppressWarnings("unchecked")
  static RunData load(ReportFiles files, String prefix, byte[] underlay, String underlayName)
      throws IOException {
    byte[] json = files.read(prefix + "summary.json");
    if (json == null) {
      return null;
    }
    Object parsed;
    try {
      parsed = Json.parse(new String(json, StandardCharsets.UTF_8));
    } catch (InvalidInputException e) { // a truncated or edited file: name it
      throw new InvalidInputException("Cannot read " + prefix + "summary.json in "
          + files.location() + ": it is not valid JSON ("
          + e.getMessage().replaceFirst("^Cannot parse JSON: ", "") + "); is it truncated?");
    }
    if (!(parsed instanceof Map)) {
      throw new InvalidInputException("Cannot read " + prefix + "summary.json in "
          + files.location() + ": it must hold a JSON object, but holds: "
          + (parsed == null ? "null" : parsed.getClass().getSimpleName()));
    }
    if (!OutputFormat.isNlsparks(parsed)) {
      // the page would replace report.html in a directory nlspark did not write
      throw new InvalidInputException("Cannot write a report of " + files.location() + ": "
          + prefix + "summary.json there was not written by nlspark (it lacks \""
          + OutputFormat.KEY + "\"), and the report is written only beside nlspark's own"
          + " results; name the output directory of an nlspark run");
    }
    Map<String, Object> summary = (Map<String, Object>) parsed;
    NiftiMask mask = readMask(files, prefix, summary);
    double[] background = null;
    String backgroundName = "mask";
    if (mask != null && underlay != null) {
      background = readVolume(underlay, underlayName, mask.grid().voxels());
      if (background == null) {
        throw new InvalidInputException("Cannot use " + underlayName + " as the underlay: it is"
            + " not on the grid of the run's mask (" + mask.grid().dims()[0] + " x "
            + mask.grid().dims()[1] + " x " + mask.grid().dims()[2] + "); resample it to the"
            + " mask's grid first");
      }
      backgroundName = "underlay " + underlayName;
    } else {
      byte[] mean = files.read(prefix + "mean_image.nii.gz");
      if (mask != null && mean != null) {
        background = readVolume(mean, prefix + "mean_image.nii.gz", mask.grid().voxels());
        backgroundName = "mean image";
      }
    }
    String name = prefix.endsWith("/") ? prefix.substring(0, prefix.length() - 1) : prefix;
    RunData run = new RunData(name, summary, mask, background);
    run.backgroundName = background == null ? "mask" : backgroundName;
    run.surface = readSurface(files, summary, run.notes);
    for (String file : outputNames(summary)) {
      // the saved draws (samples.npy, B x V) are not drawn and can be large: not read
      if (!file.endsWith(".npy") || file.contains("/") || file.startsWith("samples")) {
        continue;
      }
      byte[] bytes = files.read(prefix + file);
      if (bytes == null) {
        run.notes.add(file + " is listed in summary.json but missing");
        continue;
      }
      // nlspark's own maps may hold NaN (a constant voxel has no t): drawn as such, not refused
      NpyArray a = NpyReader.readOutput(new ByteArrayInputStream(bytes), bytes.length,
          prefix + file, 0);
      run.arrays.put(file.substring(0, file.length() - 4), a);
    }
    run.dropMisshapenMaps();
    return run;
  }

  /**
   * A voxel map (every output but the per-replicate null_*) must have one value per voxel:
   * the mask's count, else observed's. One that does not (a file replaced by hand) is not
   * drawn against the wrong voxels; a note says so.
   */
  private void dropMisshapenMaps() {
    long voxels = mask != null ? mask.count()
        : arrays.containsKey("observed") ? arrays.get("observed").data().length : -1;
    if (voxels < 0) {
      return;
    }
    for (String name : new ArrayList<>(arrays.keySet())) {
      if (name.startsWith("null_")) {
        continue;
      }
      int n = arrays.get(name).data().length;
      if (n != voxels) {
        arrays.remove(name);
        notes.add(name + ".npy has " + n + " values but the run has " + voxels + " voxels;"
            + " it is not drawn");
      }
    }
  }

  static List<String> outputNames(Map<String, Object> summary) {
    Object list = summary.get("outputs");
    if (!(list instanceof List)) {
      list = summary.get("files");
    }
    List<String> names = new ArrayList<>();
    if (list instanceof List) {
      for (Object o : (List<?>) list) {
        names.add(String.valueOf(o));
      }
    }
    return names;
  }

  /** See {@link #surface}. */
  @SuppressWarnings("unchecked")
  private static MeshAdjacency readSurface(ReportFiles files, Map<String, Object> summary,
      List<String> notes) {
    if (!(summary.get("inputs") instanceof Map<?, ?> inputs)
        || !(inputs.get("surface") instanceof String given)) {
      return null;
    }
    // the qualified URIs the run resolved (a path given relative to another directory), else
    // the paths as given
    Map<?, ?> uris = inputs.get("mesh_uris") instanceof Map<?, ?> u ? u : Map.of();
    String meshPath = uris.get("surface") instanceof String s ? s : given;
    Object maskPath = uris.get("mask") instanceof String s ? s : inputs.get("mask");
    try {
      SurfaceMesh mesh = MeshReader.read(new ByteArrayInputStream(files.readPath(meshPath)),
          given); // named as the user gave it
      boolean[] keep = null;
      if (maskPath instanceof String m && !m.equals("every vertex of the surface")) {
        byte[] bytes = files.readPath(m);
        double[] values = VertexSamples.read(new ByteArrayInputStream(bytes), m).samples()[0];
        keep = new boolean[values.length];
        for (int v = 0; v < keep.length; v++) {
          keep[v] = values[v] != 0 && !Double.isNaN(values[v]);
        }
      }
      return MeshAdjacency.of(mesh, keep, null, null);
    } catch (IOException | RuntimeException e) {
      // moved since the run, or a relative path from another directory: the page says so
      boolean gone = e instanceof java.io.FileNotFoundException
          || e instanceof java.nio.file.NoSuchFileException;
      notes.add("The mesh " + given + (maskPath instanceof String m
          && !m.equals("every vertex of the surface") ? " (or the mask " + m + ")" : "")
          + " cannot be read now (" + (gone ? "no such file" : e.getMessage()) + " at "
          + meshPath + "), so the maps are not drawn on it");
      return null;
    }
  }

  static NiftiMask readMask(ReportFiles files, String prefix, Map<String, Object> summary)
      throws IOException {
    byte[] bytes = files.read(prefix + "mask.nii.gz");
    String name = prefix + "mask.nii.gz";
    if (bytes == null) {
      String path = gridMaskPath(summary.get("grid"));
      if (path == null) {
        return null;
      }
      try {
        bytes = files.readPath(path);
      } catch (IOException e) {
        // the mask moved or went since the run: the user's to put back
        throw new InvalidInputException("Cannot write a report of " + files.location() + ": "
            + prefix + "summary.json names the mask " + path + ", which cannot be read now ("
            + (e instanceof java.io.FileNotFoundException
                || e instanceof java.nio.file.NoSuchFileException ? "no such file"
                : String.valueOf(e.getMessage())) + "); put it back there, or copy it beside"
            + " the outputs as " + prefix + "mask.nii.gz", e);
      }
      name = path;
    }
    return NiftiMask.read(new ByteArrayInputStream(bytes), bytes.length, name);
  }

  /**
   * The mask path in summary.json's grid entry: {@code mask_uri} (a given mask, qualified), else
   * {@code mask_source} when it names a file, else the older forms (a string, or a "mask" member).
   */
  static String gridMaskPath(Object grid) {
    if (grid instanceof String) {
      return (String) grid;
    }
    if (grid instanceof Map) {
      Map<?, ?> g = (Map<?, ?>) grid;
      if (g.get("mask_uri") instanceof String) {
        return (String) g.get("mask_uri");
      }
      Object source = g.get("mask_source");
      if (source instanceof String && !source.equals("computed") && !source.equals("given")) {
        return (String) source;
      }
      Object m = g.get("mask");
      if (m instanceof String) {
        return (String) m;
      }
      if (m instanceof Map && ((Map<?, ?>) m).get("path") instanceof String) {
        return (String) ((Map<?, ?>) m).get("path");
      }
    }
    return null;
  }

  private static double[] readVolume(byte[] bytes, String name, int voxels) {
    try (NiftiReader r = NiftiReader.open(new ByteArrayInputStream(bytes), bytes.length, name)) {
      if (r.header().voxelsPerVolume() != voxels) {
        return null; // another grid: the mask is drawn instead
      }
      double[] v = new double[voxels];
      r.readVolume(v);
      return v;
    }
  }

  /** A per-voxel output (one value per analysed voxel), or null. */
  double[] voxelValues(String output) {
    NpyArray a = arrays.get(output);
    if (a == null || a.rank() != 1) {
      return null;
    }
    return a.data();
  }

  @SuppressWarnings("unchecked")
  Map<String, Object> section(String key) {
    Object o = summary.get(key);
    return o instanceof Map ? (Map<String, Object>) o : Map.of();
  }

  String command() {
    return String.valueOf(summary.getOrDefault("command", "?"));
  }

  /** "two", "greater" or "less" (permutation tests; two when not recorded). */
  String tail() {
    Object t = section("parameters").get("tail");
    return t == null ? "two" : String.valueOf(t);
  }
}
