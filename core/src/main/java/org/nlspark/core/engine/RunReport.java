package org.nlspark.core.engine;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.TilePlan;

/**
 * A finished run: the result and how it was computed. {@link #summary()} is the body of
 * summary.json (DESIGN §6), the same whichever engine ran it.
 */
public final class RunReport {
  public static final String VERSION = "0.1.0";

  public final PreparedJob job;
  public final TilePlan plan;
  public final Result result;
  public final String engine;
  public final int parallelism;
  public final double wallSeconds;
  public final double kernelSeconds;
  public final long flops;
  public final Map<String, Object> engineFacts;

  public RunReport(PreparedJob job, TilePlan plan, Result result, String engine, int parallelism,
      double wallSeconds, double kernelSeconds, long flops, Map<String, Object> engineFacts) {
    this.job = job;
    this.plan = plan;
    this.result = result;
    this.engine = engine;
    this.parallelism = parallelism;
    this.wallSeconds = wallSeconds;
    this.kernelSeconds = kernelSeconds;
    this.flops = flops;
    this.engineFacts = engineFacts;
  }

  public Backend backend() {
    return job.backend;
  }

  /** GEMM GFLOP/s over the run's wall time. */
  public double gflops() {
    return wallSeconds > 0 ? flops / wallSeconds / 1e9 : 0;
  }

  public Map<String, Object> summary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", job.spec.analysis().command());
    m.put("parameters", job.spec.toMap());
    m.put("seed", job.spec.seed());
    Map<String, Object> backend = new LinkedHashMap<>();
    backend.put("requested", job.spec.backend());
    backend.put("used", job.backend.kind().name().toLowerCase(java.util.Locale.ROOT));
    backend.put("device", job.backend.deviceName());
    backend.put("reason", job.backend.selectionReason());
    m.put("backend", backend);
    m.put("blas", Blas.describe());
    m.put("precision", job.spec.precision().label());
    m.put("input", inputShape());
    m.put("resampling", job.resampling.toMap());
    m.put("tile_plan", plan.toMap());
    m.put("result", result.facts());
    Map<String, Object> timing = new LinkedHashMap<>();
    timing.put("wall_seconds", wallSeconds);
    timing.put("kernel_seconds", kernelSeconds);
    timing.put("overhead_seconds", Math.max(0, wallSeconds - kernelSeconds / Math.max(1,
        Math.min(parallelism, plan.tileCount()))));
    timing.put("gemm_flops", flops);
    timing.put("gemm_gflops_per_second", gflops());
    m.put("timings", timing);
    Map<String, Object> engineMap = new LinkedHashMap<>();
    engineMap.put("name", engine);
    engineMap.put("parallelism", parallelism);
    engineMap.putAll(engineFacts);
    m.put("engine", engineMap);
    if (job.preflightGb > 0) {
      m.put("bootstrap_retained_gb", job.preflightGb);
    }
    Map<String, Object> versions = new LinkedHashMap<>();
    versions.put("nlspark", VERSION);
    versions.put("java", System.getProperty("java.version"));
    m.put("versions", versions);
    return m;
  }

  private Map<String, Object> inputShape() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("samples", job.inputs.x().rows());
    if (job.inputs.y() != null) {
      m.put("samples2", job.inputs.y().rows());
    }
    m.put("voxels", job.inputs.voxels());
    return m;
  }
}
