package org.nlspark.spark.data;

import java.io.Serializable;
import java.util.Map;
import org.nlspark.core.backend.Backend;
import org.nlspark.core.memory.MemoryBudget;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.tile.TileMerger;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TileRunner;
import org.nlspark.core.tile.TileShape;

/**
 * An analysis together with how its samples travel (DESIGN §8), for analyses that are prepared
 * before the engine runs them (glm): either prepared from the shape of {@link #inputs()}, which
 * executors then read into voxel blocks, or prepared on samples already read here ({@link
 * #inputs()} null). {@link #ingest()} is where they are read, engine.ingest of summary.json.
 * The Spark engine runs {@link #analysis()}; every other method answers as it does.
 */
public final class DescribedAnalysis implements TileAnalysis {
  private final TileAnalysis analysis;
  private final DistributedInputs inputs;
  private final Ingest ingest;

  public DescribedAnalysis(TileAnalysis analysis, DistributedInputs inputs, Ingest ingest) {
    this.analysis = analysis;
    this.inputs = inputs;
    this.ingest = ingest;
  }

  public TileAnalysis analysis() {
    return analysis;
  }

  /** The samples as executors read them, or null when they were read on the driver. */
  public DistributedInputs inputs() {
    return inputs;
  }

  public Ingest ingest() {
    return ingest;
  }

  @Override
  public String command() {
    return analysis.command();
  }

  @Override
  public Serializable data() {
    return analysis.data();
  }

  @Override
  public Backend backend() {
    return analysis.backend();
  }

  @Override
  public Double requestedBudgetGb() {
    return analysis.requestedBudgetGb();
  }

  @Override
  public void preflight(MemoryBudget budget) {
    analysis.preflight(budget);
  }

  @Override
  public org.nlspark.core.memory.DriverMemory.Need driverMemory() {
    return analysis.driverMemory();
  }

  @Override
  public TileShape shape(MemoryBudget budget) {
    return analysis.shape(budget);
  }

  @Override
  public long bytesPerTile(int windowsPerTile) {
    return analysis.bytesPerTile(windowsPerTile);
  }

  @Override
  public int workers(MemoryBudget budget, int ceiling) {
    return analysis.workers(budget, ceiling);
  }

  @Override
  public TileRunner runner(TilePlan plan) {
    return analysis.runner(plan);
  }

  @Override
  public TileMerger merger(TilePlan plan) {
    return analysis.merger(plan);
  }

  @Override
  public Map<String, Object> describe() {
    return analysis.describe();
  }

  @Override
  public Map<String, Object> describe(TilePlan plan) {
    return analysis.describe(plan);
  }

  @Override
  public long replicates() {
    return analysis.replicates();
  }
}
