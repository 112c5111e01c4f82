package org.nlspark.core.timeseries;

import java.io.Serializable;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;

/**
 * Time-series correlation against surrogates as an analysis of the pipeline: one tile per fixed
 * voxel block (every surrogate of the block, folded window by window), partials are the block's
 * observed r, exceedance counts and per-replicate maxima, merged exactly. Runs on the CPU.
 */
public final class TimeSeriesAnalysis implements TileAnalysis {
  private final TimeSeriesCorrelation.Data data;
  private final TimeSeriesCorrelation.Options options;
  private final Double memoryBudgetGb;
  // X lives on executors as voxel blocks (data.x() is null); y and its surrogates are here
  private final boolean onExecutors;

  TimeSeriesAnalysis(TimeSeriesCorrelation.Data data, TimeSeriesCorrelation.Options options,
      Double memoryBudgetGb, boolean onExecutors) {
    this.data = data;
    this.options = options;
    this.memoryBudgetGb = MemoryBudget.checkExplicit(memoryBudgetGb);
    this.onExecutors = onExecutors;
  }

  /** The same analysis run within {@code --memory-budget-gb} (null: the engine measures). */
  public TimeSeriesAnalysis withRequestedBudgetGb(Double gb) {
    return new TimeSeriesAnalysis(data, options, gb, onExecutors);
  }

  @Override
  public String command() {
    return "timeseries-correlation";
  }

  /** X, y and the surrogates; null when executors hold X as voxel blocks. */
  @Override
  public Serializable data() {
    return onExecutors ? null : data;
  }

  @Override
  public Backend backend() {
    return Backend.cpu("timeseries-correlation runs on the CPU");
  }

  @Override
  public Double requestedBudgetGb() {
    return memoryBudgetGb;
  }

  /** The null distribution of maxima, with FWER. */
  @Override
  public org.nlspark.core.memory.DriverMemory.Need driverMemory() {
    return org.nlspark.core.memory.DriverMemory.nullDistributions(replicates(),
        options.fwer() ? 1 : 0);
  }

  @Override
  public long replicates() {
    return options.permutations();
  }

  /** One tile per voxel block with every surrogate (folded window by window). */
  @Override
  public TileShape shape(MemoryBudget budget) {
    return TileShape.perBlock(options.grid(), data.voxels(), options.permutations(), 0);
  }

  /**
   * The block standardised, its lag table (circle shifts), a window of nulls, the maxima; from
   * voxel blocks also the block as the task reads it (float64) and the surrogates it carries.
   */
  @Override
  public long bytesPerTile(int windowsPerTile) {
    int vb = Math.min(options.grid().voxelBlock(), data.voxels());
    int t = data.timepoints();
    long held = onExecutors ? 8L * vb * t + 8L * data.surrogates().length : 0;
    return 8L * vb * (2L * t + options.grid().window()) + 8L * options.permutations() + held;
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    TimeSeriesCorrelation.Options o = options;
    if (onExecutors) {
      TimeSeriesCorrelation.Data d = data; // y and the surrogates travel with the tiles
      return (TileRunner) (input, tile, device) -> {
        DataMatrix x = ((JobInputs) input).x(); // the tile's voxel block (DESIGN §8)
        int from = o.grid().blockStart(tile.block());
        int to = o.grid().blockEnd(tile.block(), d.voxels());
        return TimeSeriesCorrelation.block(d, x.columns(from, to), to - from, 0, tile.block(),
            o).toBytes();
      };
    }
    return (TileRunner) (input, tile, device) ->
        TimeSeriesCorrelation.block((TimeSeriesCorrelation.Data) input, tile.block(), o)
            .toBytes();
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    int voxels = data.voxels();
    TimeSeriesCorrelation.Options o = options;
    // one tile per voxel block: a block's tile index is the block
    int block = options.grid().voxelBlock();
    return TileMerger.collecting(plan, TimeSeriesCorrelation.BlockOut::fromBytes,
        out -> out.from() / block, outs -> TimeSeriesCorrelation.merge(outs, voxels, o));
  }

  @Override
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    Map<String, Object> params = new LinkedHashMap<>();
    params.put("method", options.method().cliName());
    params.put("permutations", options.permutations());
    params.put("tail", options.tail().name().toLowerCase(Locale.ROOT));
    params.put("fwer", options.fwer());
    m.put("parameters", params);
    m.put("seed", options.seed());
    m.put("backend", backend().toMap("cpu"));
    m.put("precision", "float64");
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("timepoints", data.timepoints());
    input.put("voxels", data.voxels());
    m.put("input", input);
    Map<String, Object> resampling = new LinkedHashMap<>();
    resampling.put("scheme", options.method().cliName() + " surrogates of the target");
    resampling.put("replicates_drawn", options.permutations());
    resampling.put("exact_enumeration", false);
    m.put("resampling", resampling);
    return m;
  }
}
