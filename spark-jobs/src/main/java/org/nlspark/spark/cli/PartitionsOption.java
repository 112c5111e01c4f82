package org.nlspark.spark.cli;

import picocli.CommandLine.Option;

/** {@code --partitions}, only on the commands that run Spark tasks. */
public final class PartitionsOption {
  @Option(names = "--partitions", paramLabel = "N", order = 110,
      description = "Spark partitions for the tiles (default: four per task slot, one for a short permutation run, more for large voxel blocks; at most one per tile)")
  Integer partitions;
}
