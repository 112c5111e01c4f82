package org.nlspark.core.tile;

import java.io.Serializable;

/**
 * One unit of work: one voxel block x a contiguous run of replicate windows. Tiles are numbered in
 * (block, window) order; a Spark partition or a thread runs one or more whole tiles.
 */
public record TileSpec(int index, int block, int firstWindow, int windowCount)
    implements Serializable {}
