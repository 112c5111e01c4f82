package org.nlspark.core.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.Version;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.result.Findings;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;

/**
 * A finished run of any analysis: the result and how it was computed. {@link #summary()} is the
 * body of summary.json (DESIGN §6), one schema for every command and either engine; the writer
 * adds the write time ({@link #summary(double)}), so wall = setup + compute + merge + write.
 */
public final class RunReport {
  /** nlspark's version, from the build ({@link Version}). */
  public static final String VERSION = Version.NLSPARK;

  public final TileAnalysis analysis;
  public final TilePlan plan;
  public final Result result;
  public final String engine;
  public final int parallelism;
  /** Validation is before the engine; setup is planning, shipping the inputs and the merger. */
  public final double setupSeconds;
  public final double computeSeconds;
  public final double mergeSeconds;
  public final double kernelSeconds;
  public final long flops;
  public final Map<String, Object> engineFacts;
  private NiftiMask mask;
  private String maskSource;
  private org.nlspark.core.tfce.MeshAdjacency surface;
  private String surfaceMapSuffix;
  private org.nlspark.core.surface.Grayordinates grayordinates;
  private Map<String, Object> inputs;
  private java.util.List<String> inputWarnings = java.util.List.of();
  private String backendRequested;

  public RunReport(TileAnalysis analysis, TilePlan plan, Result result, String engine,
      int parallelism, double setupSeconds, double computeSeconds, double mergeSeconds,
      double kernelSeconds, long flops, Map<String, Object> engineFacts) {
    this.analysis = analysis;
    this.plan = plan;
    this.result = result;
    this.engine = engine;
    this.parallelism = parallelism;
    this.setupSeconds = setupSeconds;
    this.computeSeconds = computeSeconds;
    this.mergeSeconds = mergeSeconds;
    this.kernelSeconds = kernelSeconds;
    this.flops = flops;
    this.engineFacts = engineFacts;
  }

  /**
   * The same run with another result (maps added after the run: FDR, FSL's names, the tail
   * approximation), every fact of the inputs kept: the one place a report is copied.
   */
  public RunReport withResult(Result other) {
    RunReport r = new RunReport(analysis, plan, other, engine, parallelism, setupSeconds,
        computeSeconds, mergeSeconds, kernelSeconds, flops, engineFacts);
    r.mask = mask;
    r.maskSource = maskSource;
    r.surface = surface;
    r.surfaceMapSuffix = surfaceMapSuffix;
    r.grayordinates = grayordinates;
    r.inputs = inputs;
    r.inputWarnings = inputWarnings;
    r.backendRequested = backendRequested;
    return r;
  }

  /** The grid and mask of image inputs (null for .npy); set by the image readers. */
  public RunReport mask(NiftiMask mask) { this.mask = mask; return this; }
  public NiftiMask mask() { return mask; }

  /**
   * The mesh of surface inputs (null otherwise) and the file type their maps are written in
   * ({@code .func.gii} or {@code .mgh}, the input's own).
   */
  public RunReport surface(org.nlspark.core.tfce.MeshAdjacency mesh, String mapSuffix) {
    this.surface = mesh;
    this.surfaceMapSuffix = mapSuffix;
    return this;
  }

  public org.nlspark.core.tfce.MeshAdjacency surface() { return surface; }
  public String surfaceMapSuffix() { return surfaceMapSuffix; }

  /** CIFTI inputs' brain models, whose full space {@link #surface()} is; maps go out as CIFTI. */
  public RunReport grayordinates(org.nlspark.core.surface.Grayordinates g) {
    this.grayordinates = g;
    return this;
  }

  public org.nlspark.core.surface.Grayordinates grayordinates() { return grayordinates; }

  /** Where the mask came from: the mask file, "computed" (DESIGN §8 default), or null. */
  public RunReport maskSource(String source) { this.maskSource = source; return this; }
  public String maskSource() { return maskSource; }

  /**
   * The inputs as summary.json's {@code inputs} records them (files, sample order), or null, and
   * what they warn of (a sample order by bytes that the numbers in the names contradict).
   */
  public RunReport inputs(Map<String, Object> described, java.util.List<String> warnings) {
    this.inputs = described;
    this.inputWarnings = java.util.List.copyOf(warnings);
    return this;
  }

  public Map<String, Object> inputs() { return inputs; }
  public java.util.List<String> inputWarnings() { return inputWarnings; }

  /**
   * The {@code --backend} the user gave, where the analysis does not record it (the CPU-only
   * isc, timeseries-correlation and ridge-bootstrap say "cpu" whatever was asked); null: as
   * the analysis records it.
   */
  public RunReport backendRequested(String requested) {
    this.backendRequested = requested;
    return this;
  }

  public String backendRequested() { return backendRequested; }

  public Backend backend() {
    return analysis.backend();
  }

  /** The prepared resampling job, or null for the analyses that are not one (isc, ...). */
  public VoxelwiseAnalysis job() {
    return analysis instanceof VoxelwiseAnalysis ? (VoxelwiseAnalysis) analysis : null;
  }

  public String command() {
    return analysis.command();
  }

  /** Setup + compute + merge, in seconds (the write is not in yet). */
  public double wallSeconds() {
    return setupSeconds + computeSeconds + mergeSeconds;
  }

  /** GEMM GFLOP/s over the run's wall time. */
  public double gflops() {
    double wall = wallSeconds();
    return wall > 0 ? flops / wall / 1e9 : 0;
  }

  /** What the map's elements are: "vertices" on a mesh, else (CIFTI voxels only) "voxels". */
  public String elements() {
    return surface != null && !surface.voxelsOnly() ? "vertices" : "voxels";
  }

  /**
   * Findings of surface inputs name their elements vertices, and each peak its mesh vertex and
   * that vertex's coordinates (mm): "peak_voxel" is the peak's place in the masked map.
   */
  @SuppressWarnings("unchecked")
  private void onSurface(Object node) {
    if (node instanceof Map<?, ?> map) {
      Map<String, Object> e = (Map<String, Object>) map;
      if (e.get("peak_voxel") instanceof Number n && n.intValue() >= 0
          && n.intValue() < surface.voxels()) {
        int vertex = surface.vertexOf(n.intValue());
        e.put("elements", elements());
        if (e.containsKey("cluster_threshold")) {
          e.put("cluster_statistic", "z"); // on a surface clusters form on z of t (PALM)
        }
        e.put("peak_vertex", vertex);
        if (grayordinates != null) {
          e.put("peak_grayordinate", grayordinates.place(vertex));
        }
        if (surface.mesh() != null) {
          e.put("peak_mm", surface.mesh().coordinate(vertex));
        }
      }
      for (Object v : new java.util.ArrayList<>(e.values())) {
        onSurface(v);
      }
    } else if (node instanceof java.util.List<?> list) {
      for (Object v : list) {
        onSurface(v);
      }
    }
  }

  /** summary.json before the outputs are written. */
  public Map<String, Object> summary() {
    return summary(0);
  }

  /** summary.json with the time the writer took to write the outputs. */
  public Map<String, Object> summary(double writeSeconds) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", analysis.command());
    m.putAll(analysis.describe(plan));
    if (backendRequested != null && m.get("backend") instanceof Map
        && !backendRequested.equals(((Map<?, ?>) m.get("backend")).get("requested"))) {
      Map<String, Object> b = new LinkedHashMap<>();
      ((Map<?, ?>) m.get("backend")).forEach((k, v) -> b.put(String.valueOf(k), v));
      b.put("requested", backendRequested);
      b.put("reason", backendRequested + ": " + b.get("reason"));
      m.put("backend", b);
    }
    m.put("blas", Blas.describe());
    m.put("tile_plan", plan.toMap());
    m.put("result", result.facts());
    Map<String, Object> findings = Findings.of(result, m, mask);
    if (surface != null && findings != null) {
      onSurface(findings);
    }
    if (surface != null && findings != null) {
      findings.put("elements", elements());
    }
    m.put("findings", findings);
    if (inputs != null) {
      m.put("inputs", inputs);
    }
    m.put("warnings", RunWarnings.of(this));
    java.util.List<String> notes = RunWarnings.resultNotes(this);
    if (!notes.isEmpty()) {
      m.put("result_notes", notes); // the result line's short sentences (only when there are any)
    }
    Map<String, Object> timing = new LinkedHashMap<>();
    timing.put("wall_seconds", wallSeconds() + writeSeconds);
    timing.put("setup_seconds", setupSeconds);
    timing.put("compute_seconds", computeSeconds);
    timing.put("merge_seconds", mergeSeconds);
    timing.put("write_seconds", writeSeconds);
    timing.put("kernel_seconds", kernelSeconds);
    timing.put("gemm_flops", flops);
    timing.put("gemm_gflops_per_second", gflops());
    m.put("timings", timing);
    Map<String, Object> engineMap = new LinkedHashMap<>();
    engineMap.put("name", engine);
    engineMap.put("parallelism", parallelism);
    engineMap.putAll(engineFacts);
    m.put("engine", engineMap);
    Map<String, Object> versions = new LinkedHashMap<>();
    versions.put("nlspark", VERSION);
    versions.put("java", System.getProperty("java.version"));
    m.put("versions", versions);
    return m;
  }
}
