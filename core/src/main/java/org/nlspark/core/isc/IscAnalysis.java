package org.nlspark.core.isc;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.accumulate.TailSize;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyHeader;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.memory.BootstrapMemory;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.memory.Gb;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;

/**
 * ISC as an analysis of the pipeline: one tile per fixed voxel block (all replicates of the block
 * in one tile, since its surrogate and bootstrap folds share per-block precomputation), partials
 * are {@link Isc.BlockOutcome} bytes, and the merge is {@link Isc#merge}. Runs on the CPU.
 */
public final class IscAnalysis implements TileAnalysis {
  private final IscData data; // null when executors hold the series as voxel blocks
  private final int subjects;
  private final int timepoints;
  private final int voxels;
  private final Isc.Options options;
  private final Double memoryBudgetGb;

  /** The (subjects, timepoints, voxels) array every block reads. */
  public record IscData(double[] values, int subjects, int timepoints, int voxels)
      implements Serializable {}

  private IscAnalysis(IscData data, int subjects, int timepoints, int voxels,
      Isc.Options options, Double memoryBudgetGb) {
    this.data = data;
    this.subjects = subjects;
    this.timepoints = timepoints;
    this.voxels = voxels;
    this.options = options;
    this.memoryBudgetGb = memoryBudgetGb;
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
   * Checks the input; the engine then checks, for the bootstrap null, the memory the retained
   * tails (and saved samples) need on the driver (DESIGN §3.8) before any block is computed.
   *
   * @param memoryBudgetGb an explicit budget, or null to measure
   */
  public static IscAnalysis prepare(double[] values, int subjects, int timepoints, int voxels,
      Isc.Options o, Double memoryBudgetGb) {
    Isc.checkInput(values, subjects, timepoints, voxels);
    MemoryBudget.checkExplicit(memoryBudgetGb);
    return new IscAnalysis(new IscData(values, subjects, timepoints, voxels), subjects,
        timepoints, voxels, o, memoryBudgetGb);
  }

  /**
   * The same analysis prepared from the shape alone, for series that executors read into voxel
   * blocks (DESIGN §8): each block holds every subject's series of its voxels, rows (subject,
   * time point) in C order, so a tile needs nothing else; the readers refuse a non-finite
   * value (exit 2).
   */
  public static IscAnalysis prepareOnExecutors(int subjects, int timepoints, int voxels,
      Isc.Options o, Double memoryBudgetGb) {
    Isc.checkShape(subjects, timepoints, voxels);
    MemoryBudget.checkExplicit(memoryBudgetGb);
    return new IscAnalysis(null, subjects, timepoints, voxels, o, memoryBudgetGb);
  }

  public Isc.Options options() {
    return options;
  }

  @Override
  public String command() {
    return "isc";
  }

  /** The series whole, or null when executors hold them ({@link #prepareOnExecutors}). */
  @Override
  public Serializable data() {
    return data;
  }

  @Override
  public Backend backend() {
    return Backend.cpu("isc runs on the CPU");
  }

  @Override
  public Double requestedBudgetGb() {
    return memoryBudgetGb;
  }

  @Override
  public void preflight(MemoryBudget budget) {
    if (options.nullMethod() == IscNull.BOOTSTRAP) {
      BootstrapMemory.preflight(voxels, options.samples(), options.confidence(),
          options.saveSamples(), 1, budget);
    }
  }

  /** The GB the bootstrap null retains on the driver (what {@link #preflight} checks). */
  private double retainedGb() {
    return options.nullMethod() != IscNull.BOOTSTRAP ? 0 : Gb.fromBytes(
        BootstrapMemory.requiredBytes(voxels, options.samples(), options.confidence(),
            options.saveSamples(), 1));
  }

  /** The null distribution of maxima, with FWER. */
  @Override
  public org.nlspark.core.memory.DriverMemory.Need driverMemory() {
    return org.nlspark.core.memory.DriverMemory.nullDistributions(replicates(),
        options.fwer() ? 1 : 0);
  }

  @Override
  public long replicates() {
    return options.samples();
  }

  /** One tile per voxel block with all its replicates (they share per-block work). */
  @Override
  public TileShape shape(MemoryBudget budget) {
    return TileShape.perBlock(options.grid(), voxels, options.samples(), tailSize());
  }

  /**
   * The block's series (raw and a working copy) and the tails of its ISC values; from voxel
   * blocks also the block as the task reads it (every subject's series of its voxels in float64:
   * ISC pairs subjects within a voxel, so one task holds all of them).
   */
  @Override
  public long bytesPerTile(int windowsPerTile) {
    int vb = Math.min(options.grid().voxelBlock(), voxels);
    long perVoxel = (long) subjects * timepoints;
    return 8L * vb * ((data == null ? 3 : 2) * perVoxel + 4L * tailSize());
  }

  private int tailSize() {
    return TailSize.retained(options.samples(), options.confidence());
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    Isc.Options o = options;
    int s = subjects;
    int t = timepoints;
    int v = voxels;
    return (TileRunner) (input, tile, device) -> {
      if (input instanceof JobInputs held) { // the tile's voxel block (DESIGN §8)
        DataMatrix block = held.x();
        int from = o.grid().blockStart(tile.block());
        return Isc.heldBlock(block.columns(from, o.grid().blockEnd(tile.block(), v)), s, t,
            v, tile.block(), o).toBytes();
      }
      IscData d = (IscData) input;
      return Isc.block(d.values(), d.subjects(), d.timepoints(), d.voxels(), tile.block(), o)
          .toBytes();
    };
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    int voxels = this.voxels;
    Isc.Options o = options;
    // one tile per voxel block: a block's tile index is the block
    return TileMerger.collecting(plan, Isc.BlockOutcome::fromBytes, Isc.BlockOutcome::block,
        outs -> Isc.merge(outs, voxels, o));
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
    m.put("backend", backend().toMap("cpu"));
    m.put("precision", "float64");
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("subjects", subjects);
    input.put("timepoints", timepoints);
    input.put("voxels", voxels);
    m.put("input", input);
    Map<String, Object> resampling = new LinkedHashMap<>();
    resampling.put("scheme", options.nullMethod().cliName());
    resampling.put("replicates_drawn", options.samples());
    resampling.put("exact_enumeration", false);
    m.put("resampling", resampling);
    double retained = retainedGb();
    if (retained > 0) {
      m.put("bootstrap_retained_gb", retained);
    }
    return m;
  }
}
