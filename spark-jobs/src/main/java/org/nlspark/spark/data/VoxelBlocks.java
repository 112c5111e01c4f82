package org.nlspark.spark.data;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.tile.Grid;
import scala.Tuple2;

/**
 * The data plane of DESIGN §8: executors read the samples' splits, cut each masked sample into
 * the grid's voxel blocks, and one shuffle assembles every block (samples x block) in the
 * partition that will run its tiles. The result is persisted MEMORY_AND_DISK so all replicate
 * windows of a block (and a retried task) read it where it is; the driver sees none of it.
 */
public final class VoxelBlocks {
  private VoxelBlocks() {}

  /**
   * The persisted block RDD, keyed by block index, partitioned by {@link BlockPartitioner}
   * (contiguous runs of blocks). Lazy: the first action reads the files.
   */
  public static JavaPairRDD<Integer, VoxelBlock> build(JavaSparkContext jsc,
      DistributedInputs inputs, Grid grid, int partitions, SampleSource.Opener files,
      LongAccumulator readNanos) {
    int voxels = inputs.x().voxels();
    int blocks = grid.blocks(voxels);
    List<int[]> splits = new ArrayList<>();
    for (int g = 0; g < inputs.groups(); g++) {
      for (int s = 0; s < inputs.group(g).splits(); s++) {
        splits.add(new int[] {g, s});
      }
    }
    int[] rows = new int[inputs.groups()];
    for (int g = 0; g < rows.length; g++) {
      rows[g] = inputs.group(g).samples();
    }
    BlockPartitioner partitioner = new BlockPartitioner(Math.min(partitions, blocks), blocks);
    return jsc.parallelize(splits, Math.max(1, splits.size()))
        .flatMapToPair(split -> {
          long start = System.nanoTime();
          Iterator<Tuple2<Integer, Slice>> slices = cut(inputs, split[0], split[1], grid, files);
          readNanos.add(System.nanoTime() - start);
          return slices;
        })
        .groupByKey(partitioner)
        .mapPartitionsToPair(it -> assemble(it, grid, voxels, rows), true)
        .persist(StorageLevel.MEMORY_AND_DISK());
  }

  /** Reads one split and cuts its samples into one slice per voxel block. */
  static Iterator<Tuple2<Integer, Slice>> cut(DistributedInputs inputs, int group, int split,
      Grid grid, SampleSource.Opener files) {
    SampleSource source = inputs.group(group);
    int first = source.firstSample(split);
    int count = source.splitSamples(split);
    int v = source.voxels();
    SplitBuffer buffer = new SplitBuffer(first, count, v);
    source.read(split, files, buffer);
    List<Tuple2<Integer, Slice>> out = new ArrayList<>(grid.blocks(v));
    for (int b = 0; b < grid.blocks(v); b++) {
      int from = grid.blockStart(b);
      int width = grid.blockEnd(b, v) - from;
      out.add(new Tuple2<>(b, buffer.slice(group, from, width)));
    }
    return out.iterator();
  }

  private static Iterator<Tuple2<Integer, VoxelBlock>> assemble(
      Iterator<Tuple2<Integer, Iterable<Slice>>> it, Grid grid, int voxels, int[] rows) {
    return new Iterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public Tuple2<Integer, VoxelBlock> next() {
        Tuple2<Integer, Iterable<Slice>> t = it.next();
        int b = t._1();
        int from = grid.blockStart(b);
        return new Tuple2<>(b, VoxelBlock.assemble(b, from, grid.blockEnd(b, voxels) - from,
            rows, t._2()));
      }
    };
  }

  /** A split's samples (count x voxels) in float32 until a float64 sample arrives. */
  static final class SplitBuffer implements SampleSource.Sink {
    private final int first;
    private final int count;
    private final int v;
    private float[] f;
    private double[] d;

    SplitBuffer(int first, int count, int v) {
      this.first = first;
      this.count = count;
      this.v = v;
      this.f = new float[Math.multiplyExact(count, v)];
    }

    @Override
    public void float32(int sample, float[] values) {
      int at = (sample - first) * v;
      if (d == null) {
        System.arraycopy(values, 0, f, at, v);
      } else {
        for (int j = 0; j < v; j++) {
          d[at + j] = values[j];
        }
      }
    }

    @Override
    public void float64(int sample, double[] values) {
      if (d == null) {
        d = new double[f.length];
        for (int i = 0; i < f.length; i++) {
          d[i] = f[i];
        }
        f = null;
      }
      System.arraycopy(values, 0, d, (sample - first) * v, v);
    }

    Slice slice(int group, int from, int width) {
      if (d != null) {
        double[] out = new double[count * width];
        for (int r = 0; r < count; r++) {
          System.arraycopy(d, r * v + from, out, r * width, width);
        }
        return new Slice(group, first, count, null, out);
      }
      float[] out = new float[count * width];
      for (int r = 0; r < count; r++) {
        System.arraycopy(f, r * v + from, out, r * width, width);
      }
      return new Slice(group, first, count, out, null);
    }
  }

  /** Contiguous runs of blocks per partition: block b goes to b * partitions / blocks. */
  public static final class BlockPartitioner extends Partitioner {
    private static final long serialVersionUID = 1L;
    private final int partitions;
    private final int blocks;

    public BlockPartitioner(int partitions, int blocks) {
      this.partitions = Math.max(1, partitions);
      this.blocks = Math.max(1, blocks);
    }

    @Override
    public int numPartitions() {
      return partitions;
    }

    @Override
    public int getPartition(Object key) {
      return (int) ((long) (Integer) key * partitions / blocks);
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof BlockPartitioner p && p.partitions == partitions && p.blocks == blocks;
    }

    @Override
    public int hashCode() {
      return 31 * partitions + blocks;
    }
  }
}
