package org.nlspark.core.tile;

import java.io.Serializable;

/**
 * Runs one tile of a planned analysis: a pure function of (this runner, data, tile), so a Spark
 * retry or another partitioning gives the same bytes. One implementation per backend is chosen
 * once per job (the CPU kernels, or the GPU executor on {@code device}).
 */
public interface TileRunner extends Serializable {
  /**
   * @param data the analysis' {@link TileAnalysis#data()}, as shipped to this executor
   * @param device the GPU the task was given (ignored on the CPU)
   * @return the tile's partial result as bytes, for the analysis' {@link TileMerger}
   */
  byte[] run(Object data, TileSpec tile, int device);
}
