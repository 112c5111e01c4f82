package org.nlspark.core.isc;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.backend.BackendKind;
import org.nlspark.core.engine.PreparedJob;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.MemoryProbe;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;

/**
 * ISC as an analysis of the pipeline: one tile per fixed voxel block (all replicates of the block
 * in one tile, since its surrogate and bootstrap folds share per-block precomputation), partials
 * are {@link Isc.BlockOutcome} bytes, and the merge is {@link Isc#merge}. Runs on the CPU.
 */
public final class IscAnalysis implements TileAnalysis {
  private final IscData data;
  private final Isc.Options options;
  private final MemoryBudget budget;
  private final double preflightGb;

  /** The (subjects, timepoints, voxels) array every block reads. */
  public record IscData(double[] values, int subjects, int timepoints, int voxels)
      implements Serializable {}

  private IscAnalysis(IscData data, Isc.Options options, MemoryBudget budget,
      double preflightGb) {
    this.data = data;
    this.options = options;
    this.budget = budget;
    this.preflightGb = preflightGb;
  }

  /** Validates a 3-D array as read from {@code --input}. */
  public static IscAnalysis prepare(NpyArray input, Isc.Options o, Double memoryBudgetGb) {
    if (input.rank() != 3) {
      throw new InvalidInputException("Cannot run isc: --input must be 3-D (subjects,"
          + " timepoints, voxels), but has shape " + NpyHeader.formatShape(input.shape()));
    }
    return prepare(input.data(), input.dim(0), input.dim(1), input.dim(2), o, memoryBudgetGb);
  }

  /**
   * Checks the input and, for the bootstrap null, the memory the retained tails (and saved
   * samples) need on the driver (DESIGN §3.8) before any block is computed.
   *
   * @param memoryBudgetGb an explicit budget, or null to measure
   */
  public static IscAnalysis prepare(double[] values, int subjects, int timepoints, int voxels,
      Isc.Options o, Double memoryBudgetGb) {
    Isc.checkInput(values, subjects, timepoints, voxels);
    MemoryBudget budget = MemoryBudget.resolve(memoryBudgetGb, BackendKind.CPU,
        MemoryProbe.system(), false);
    double required = 0;
    if (o.nullMethod() == IscNull.BOOTSTRAP) {
      required = BootstrapMemory.preflight(voxels, o.samples(), o.confidence(), o.saveSamples(),
          1, budget);
    }
    return new IscAnalysis(new IscData(values, subjects, timepoints, voxels), o, budget,
        required);
  }

  public Isc.Options options() {
    return options;
  }

  @Override
  public String command() {
    return "isc";
  }

  @Override
  public Serializable data() {
    return data;
  }

  @Override
  public Backend backend() {
    return Backend.cpu("isc runs on the CPU");
  }

  @Override
  public MemoryBudget budget() {
    return budget;
  }

  @Override
  public long replicates() {
    return options.samples();
  }

  @Override
  public TilePlan plan(MemoryBudget perTile, int parallelism) {
    int vb = Math.min(options.grid().voxelBlock(), data.voxels());
    long perVoxel = (long) data.subjects() * data.timepoints();
    int k = BootstrapMemory.retainedTailSize(options.samples(), options.confidence());
    // the block's series (raw and a working copy) and the tails of its ISC values
    long bytes = 8L * vb * (2 * perVoxel + 4L * k);
    int windows = options.grid().windows(options.samples());
    return new TilePlan(options.grid(), data.voxels(), options.samples(), windows,
        Math.max(1, parallelism), bytes, k, perTile.gb(), perTile.source().describe());
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    Isc.Options o = options;
    return (TileRunner) (input, tile, device) -> {
      IscData d = (IscData) input;
      return Isc.block(d.values(), d.subjects(), d.timepoints(), d.voxels(), tile.block(), o)
          .toBytes();
    };
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    int voxels = data.voxels();
    Isc.Options o = options;
    return TileMerger.collecting(Isc.BlockOutcome::fromBytes, outs -> Isc.merge(outs, voxels, o));
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("summary", options.summary().cliName());
    params.put("metric", options.metric().cliName());
    params.put("null", options.nullMethod().cliName());
    params.put(options.nullMethod() == IscNull.BOOTSTRAP ? "samples" : "permutations",
        options.samples());
    params.put("confidence", options.confidence());
    params.put("tail", options.tail().name().toLowerCase(java.util.Locale.ROOT));
    params.put("fwer", options.fwer());
    params.put("save_samples", options.saveSamples());
    m.put("parameters", params);
    m.put("seed", options.seed());
    m.put("backend", PreparedJob.backendMap("cpu", backend()));
    m.put("precision", "float64");
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("subjects", data.subjects());
    input.put("timepoints", data.timepoints());
    input.put("voxels", data.voxels());
    m.put("input", input);
    Map<String, Object> resampling = new LinkedHashMap<>();
    resampling.put("scheme", options.nullMethod().cliName());
    resampling.put("replicates_drawn", options.samples());
    resampling.put("exact_enumeration", false);
    m.put("resampling", resampling);
    if (preflightGb > 0) {
      m.put("bootstrap_retained_gb", preflightGb);
    }
    return m;
  }
}
