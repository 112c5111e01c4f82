package org.nlspark.spark.data;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.spark.Partitioner;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.rdd.ShuffledRDD;
import org.apache.spark.storage.StorageLevel;
import org.apache.spark.util.LongAccumulator;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.tile.Grid;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/**
 * The data plane of DESIGN §8: executors read the samples' splits, cut each masked sample into
 * the grid's voxel blocks, and one shuffle assembles every block (samples x block) in the
 * partition that will run its tiles. The result is persisted (in memory where it fits beside the
 * tiles, else on local disk: the engine's choice) so all replicate windows of a block (and a
 * retried task) read it where it is; the driver sees none of it.
 */
public final class VoxelBlocks {
  private VoxelBlocks() {}

  /**
   * The persisted block RDD, keyed by block index, partitioned by {@link BlockPartitioner}
   * (contiguous runs of blocks). Lazy: the first action reads the files.
   */
  public static JavaPairRDD<Integer, VoxelBlock> build(JavaSparkContext jsc,
      DistributedInputs inputs, Grid grid, int partitions, SampleSource.Opener files,
      LongAccumulator readNanos, StorageLevel storage) {
    int voxels = inputs.x().voxels();
    int blocks = grid.blocks(voxels);
    List<int[]> splits = new ArrayList<>();
    List<JavaPairRDD<Integer, byte[]>> frames = new ArrayList<>();
    for (int g = 0; g < inputs.groups(); g++) {
      if (inputs.group(g) instanceof DataFrameSamples frame) { // its partitions are the splits
        frames.add(frame.slices(g, grid, readNanos));
        continue;
      }
      for (int s = 0; s < inputs.group(g).splits(); s++) {
        splits.add(new int[] {g, s});
      }
    }
    int[] rows = new int[inputs.groups()];
    for (int g = 0; g < rows.length; g++) {
      rows[g] = inputs.group(g).samples();
    }
    BlockPartitioner partitioner = new BlockPartitioner(Math.min(partitions, blocks), blocks);
    // One byte[] record per (split, block); partitionBy streams them to the block's partition
    // (no grouping into per-key buffers), where each goes straight into its block's array.
    JavaPairRDD<Integer, byte[]> slices = null;
    if (!splits.isEmpty()) {
      slices = jsc.parallelize(splits, splits.size())
          .flatMapToPair(split -> cut(inputs, split[0], split[1], grid, files, readNanos));
    }
    for (JavaPairRDD<Integer, byte[]> frame : frames) {
      slices = slices == null ? frame : slices.union(frame);
    }
    return shuffle(slices, partitioner)
        .mapPartitionsToPair(it -> assemble(it, grid, voxels, rows), true)
        .persist(storage);
  }

  /**
   * Refuses (exit 3) before anything is read when the executor heap cannot hold even one sample
   * per running task: a task reads at least one sample of every voxel and holds it about three
   * times over (the bytes read, the values, the split's buffer, which a float64 source widens
   * to float64 beside its float32), and an executor runs {@code slotsPerExecutor} tasks at once.
   * Only this floor is checked (splits hold more samples when they fit); the tiles' budget is
   * the planner's.
   */
  public static void requireOneSamplePerTask(DistributedInputs inputs, long executorHeapBytes,
      long reservedBytes, int slotsPerExecutor, String heapAdvice) {
    SampleSource x = inputs.x();
    long perVoxel = inputs.float32() ? 12 : 28;
    long perTask = perVoxel * x.voxels();
    long needed = perTask * slotsPerExecutor;
    long usable = executorHeapBytes - reservedBytes;
    if (needed <= usable) {
      return;
    }
    long heapMiB = (needed + reservedBytes + (1 << 20) - 1) >> 20;
    throw new org.nlspark.core.ResourceRefusedException(String.format(java.util.Locale.ROOT,
        "Cannot read %s into voxel blocks: each task reads at least one sample of %d voxels,"
        + " about %d MiB with its copies, and the %d tasks an executor runs at once need %d MiB,"
        + " beyond the %d MiB its heap of %d MiB leaves after Spark's reserved %d MiB; a heap of"
        + " at least %d MiB would do (%s)", x.name(), x.voxels(), perTask >> 20,
        slotsPerExecutor, needed >> 20, Math.max(0, usable) >> 20, executorHeapBytes >> 20,
        reservedBytes >> 20, heapMiB, heapAdvice));
  }

  /**
   * {@code slices} moved to their blocks' partitions, as {@code partitionBy} would, with
   * {@link SliceSerializer} for the shuffle's records instead of the session's serializer.
   */
  static JavaPairRDD<Integer, byte[]> shuffle(JavaPairRDD<Integer, byte[]> slices,
      Partitioner partitioner) {
    ClassTag<Integer> keys = ClassTag$.MODULE$.apply(Integer.class);
    ClassTag<byte[]> values = ClassTag$.MODULE$.apply(byte[].class);
    ShuffledRDD<Integer, byte[], byte[]> shuffled =
        new ShuffledRDD<>(slices.rdd(), partitioner, keys, values, values);
    shuffled.setSerializer(new SliceSerializer());
    return JavaPairRDD.fromRDD(shuffled, keys, values);
  }

  /**
   * Reads one split and cuts its samples into one slice per voxel block, each cut when the
   * shuffle asks for it; the reading and cutting time goes to {@code readNanos}.
   */
  static Iterator<Tuple2<Integer, byte[]>> cut(DistributedInputs inputs, int group, int split,
      Grid grid, SampleSource.Opener files, LongAccumulator readNanos) {
    long start = System.nanoTime();
    SampleSource source = inputs.group(group);
    int v = source.voxels();
    SplitBuffer buffer = new SplitBuffer(source.splitSamples(split), v);
    source.read(split, files, buffer);
    if (readNanos != null) {
      readNanos.add(System.nanoTime() - start);
    }
    return slices(buffer, group, grid, v, readNanos);
  }

  /**
   * One slice of {@code buffer} per voxel block and run of consecutive samples (one run unless
   * the source places its rows by rank, as a Parquet table sorted by --order-by does), each cut
   * when the shuffle asks for it.
   */
  static Iterator<Tuple2<Integer, byte[]>> slices(SplitBuffer buffer, int group, Grid grid,
      int v, LongAccumulator readNanos) {
    int blocks = grid.blocks(v);
    int runs = buffer.runs();
    return new Iterator<>() {
      private int b;
      private int run;

      @Override
      public boolean hasNext() {
        return b < blocks && runs > 0;
      }

      @Override
      public Tuple2<Integer, byte[]> next() {
        if (!hasNext()) {
          throw new java.util.NoSuchElementException();
        }
        long t = System.nanoTime();
        int from = grid.blockStart(b);
        byte[] slice = buffer.slice(group, run, from, grid.blockEnd(b, v) - from);
        Tuple2<Integer, byte[]> out = new Tuple2<>(b, slice);
        if (++run == runs) {
          run = 0;
          b++;
        }
        if (readNanos != null) {
          readNanos.add(System.nanoTime() - t);
        }
        return out;
      }
    };
  }

  /** Assembles the blocks of one partition from its slices, in any order; emits them by index. */
  static Iterator<Tuple2<Integer, VoxelBlock>> assemble(Iterator<Tuple2<Integer, byte[]>> it,
      Grid grid, int voxels, int[] rows) {
    TreeMap<Integer, VoxelBlock.Assembly> open = new TreeMap<>();
    while (it.hasNext()) {
      Tuple2<Integer, byte[]> t = it.next();
      int b = t._1();
      open.computeIfAbsent(b, k -> {
        int from = grid.blockStart(k);
        return new VoxelBlock.Assembly(k, from, grid.blockEnd(k, voxels) - from, rows);
      }).add(t._2());
    }
    List<Tuple2<Integer, VoxelBlock>> out = new ArrayList<>(open.size());
    for (Map.Entry<Integer, VoxelBlock.Assembly> e : open.entrySet()) {
      out.add(new Tuple2<>(e.getKey(), e.getValue().build()));
    }
    return out.iterator();
  }

  /**
   * A split's samples (count x voxels) in float32 until a float64 sample arrives, in the order
   * they arrive, each with its sample index: runs of consecutive indices become one slice each.
   */
  static final class SplitBuffer implements SampleSource.Sink {
    private final int count;
    private final int v;
    private final int[] sampleOf; // per row held, in arrival order
    private int held;
    private int[] runStarts; // rows where a run starts, and held at the end
    private float[] f;
    private double[] d;

    SplitBuffer(int count, int v) {
      this.count = count;
      this.v = v;
      this.sampleOf = new int[count];
      this.f = new float[Math.multiplyExact(count, v)];
    }

    private int next(int sample) {
      if (held >= count) {
        throw new IllegalStateException("[BUG] a read split of " + count + " samples got more");
      }
      runStarts = null;
      sampleOf[held] = sample;
      return held++ * v;
    }

    @Override
    public void float32(int sample, float[] values) {
      int at = next(sample);
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
      System.arraycopy(values, 0, d, next(sample), v);
    }

    /** Runs of rows whose samples are consecutive. */
    int runs() {
      if (runStarts == null) {
        int[] starts = new int[held + 1];
        int n = 0;
        for (int r = 0; r < held; r++) {
          if (r == 0 || sampleOf[r] != sampleOf[r - 1] + 1) {
            starts[n++] = r;
          }
        }
        starts[n] = held;
        runStarts = java.util.Arrays.copyOf(starts, n + 1);
      }
      return runStarts.length - 1;
    }

    byte[] slice(int group, int run, int from, int width) {
      runs();
      int r0 = runStarts[run];
      int rows = runStarts[run + 1] - r0;
      return d != null ? Slice.of(group, sampleOf[r0], rows, d, v, from, width, r0)
          : Slice.of(group, sampleOf[r0], rows, f, v, from, width, r0);
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
