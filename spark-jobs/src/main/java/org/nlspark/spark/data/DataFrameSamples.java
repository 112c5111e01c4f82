package org.nlspark.spark.data;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.apache.spark.api.java.JavaPairRDD;
import org.apache.spark.api.java.JavaRDD;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.util.LongAccumulator;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.errors.TaskFailures;
import org.nlspark.spark.io.DataFrameMatrices;
import scala.Tuple2;

/**
 * A Spark DataFrame (one row per sample, the values in an array column) as a {@link
 * SampleSource} whose read splits are the DataFrame's partitions (DESIGN §8): one pass counts
 * the rows of each partition (and checks nulls and lengths), then the executors cut their
 * partitions' rows into voxel blocks ({@link VoxelBlocks}); no row reaches the driver. A float
 * column stays float32; any other number column is cast to double in Spark, as {@link
 * DataFrameMatrices} does, so both give the same values. The broadcast path ({@link #readAll})
 * is {@link DataFrameMatrices#read} itself.
 *
 * <p>The DataFrame is computed twice (the count, then the cut) and again by a retried task: it
 * must give the same rows in the same order each time, as a read of files does.
 */
public final class DataFrameSamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final transient Dataset<Row> values; // the one column, selected and cast
  private final String column;
  private final String name;
  private final boolean float32;
  private final int voxels;
  private final int[] first; // per partition, then the total
  private final int[] nonEmpty; // the partitions that hold rows, in order
  private final int[] rank; // with orderBy: the sample of each row in the DataFrame's order

  private DataFrameSamples(Dataset<Row> values, String column, boolean float32, int voxels,
      int[] first, int[] nonEmpty) {
    this(values, column, float32, voxels, first, nonEmpty, null);
  }

  private DataFrameSamples(Dataset<Row> values, String column, boolean float32, int voxels,
      int[] first, int[] nonEmpty, int[] rank) {
    this.rank = rank;
    this.values = values;
    this.column = column;
    this.name = "the DataFrame's column " + column;
    this.float32 = float32;
    this.voxels = voxels;
    this.first = first;
    this.nonEmpty = nonEmpty;
  }

  /**
   * Describes {@code samples}' {@code column} with one Spark pass over it (row counts per
   * partition, nulls, lengths); refusals as {@link DataFrameMatrices#read} (exit 2).
   */
  public static DataFrameSamples describe(Dataset<Row> samples, String column) {
    return describe(samples, column, null);
  }

  /**
   * As {@link #describe(Dataset, String)}, the samples in the order of {@code orderBy} (null:
   * the DataFrame's): Spark sorts only the keys, with the row's place in the DataFrame as the
   * tie-break (a stable sort), the driver gets one rank per sample, O(samples), and each
   * partition's rows go to their ranks in the voxel blocks; no voxel value is collected.
   */
  public static DataFrameSamples describe(Dataset<Row> samples, String column, String orderBy) {
    ArrayType type = DataFrameMatrices.arrayColumn(samples, column);
    if (orderBy != null) {
      DataFrameMatrices.orderColumn(samples, orderBy);
    }
    boolean f32 = type.elementType().equals(DataTypes.FloatType);
    org.apache.spark.sql.Column values = f32 ? functions.col(column)
        : functions.col(column).cast(DataTypes.createArrayType(DataTypes.DoubleType))
            .alias(column);
    Dataset<Row> selected = orderBy == null ? samples.select(values)
        : samples.select(values, functions.col(orderBy));
    List<long[]> parts;
    try {
      parts = selected.javaRDD().mapPartitionsWithIndex(DataFrameSamples::scan, true).collect();
    } catch (Exception e) { // Spark throws its checked SparkException undeclared
      throw TaskFailures.unwrapAny(e);
    }
    String what = "the DataFrame's column " + column;
    int partitions = selected.javaRDD().getNumPartitions();
    int[] first = new int[partitions + 1];
    List<Integer> nonEmpty = new ArrayList<>();
    long total = 0;
    int width = -1;
    for (long[] p : parts) { // in partition order
      int index = (int) p[0];
      first[index] = (int) total;
      if (p[3] >= 0) { // the partition's first bad row: null, or a null element
        throw new InvalidInputException("Cannot read " + what + ": row " + (total + p[3])
            + (p[4] < 0 ? " is null; drop or fill it" : " has a null at position " + p[4]
                + "; fill it before resampling"));
      }
      if (p[1] > 0) {
        if (width < 0) {
          width = (int) p[2];
        } else if (p[2] != width) {
          throw new InvalidInputException("Cannot read " + what + ": row " + total + " has "
              + p[2] + " values, but row 0 has " + width + "; every sample needs the same"
              + " voxels");
        }
        if (p[5] >= 0) {
          throw new InvalidInputException("Cannot read " + what + ": row " + (total + p[5])
              + " has " + p[6] + " values, but row 0 has " + width + "; every sample needs"
              + " the same voxels");
        }
        nonEmpty.add(index);
      }
      total += p[1];
      if (total > Integer.MAX_VALUE - 8) {
        throw new InvalidInputException("Cannot read " + what + ": it has more than "
            + (Integer.MAX_VALUE - 8) + " rows");
      }
    }
    first[partitions] = (int) total;
    if (total == 0) {
      throw new InvalidInputException("Cannot read " + what + ": the DataFrame has no row");
    }
    int[] rank = orderBy == null ? null : ranks(selected, orderBy, (int) total);
    return new DataFrameSamples(selected, column, f32, width, first,
        nonEmpty.stream().mapToInt(Integer::intValue).toArray(), rank);
  }

  /** The rank of every row (in partition then row order) by the key in column 1, stable. */
  private static int[] ranks(Dataset<Row> selected, String orderBy, int total) {
    String index = "__nlspark_row";
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
        .add(selected.schema().fields()[1].copy(orderBy, selected.schema().fields()[1]
            .dataType(), true, org.apache.spark.sql.types.Metadata.empty()))
        .add(index, DataTypes.LongType);
    List<Row> sorted;
    try {
      JavaRDD<Row> keys = selected.javaRDD().zipWithIndex()
          .map(t -> org.apache.spark.sql.RowFactory.create(t._1().get(1), t._2()));
      sorted = selected.sparkSession().createDataFrame(keys, schema)
          .orderBy(functions.col(orderBy), functions.col(index)).select(index).collectAsList();
    } catch (Exception e) { // Spark throws its checked SparkException undeclared
      throw TaskFailures.unwrapAny(e);
    }
    if (sorted.size() != total) {
      throw new InvalidInputException("Cannot order the DataFrame by " + orderBy + ": it gave "
          + sorted.size() + " rows, but " + total + " when its rows were counted; the DataFrame"
          + " must give the same rows each time it is computed (persist or checkpoint it first)");
    }
    int[] rank = new int[total];
    for (int k = 0; k < total; k++) {
      rank[(int) sorted.get(k).getLong(0)] = k;
    }
    return rank;
  }

  /**
   * One partition's facts: index, rows, the first row's length, the first null row (local
   * index, -1 when none) and its null position (-1 for a null row), the first row of another
   * length than the partition's first (local index, -1) and that length.
   */
  private static Iterator<long[]> scan(int partition, Iterator<Row> rows) {
    long n = 0;
    long width = -1;
    long badRow = -1;
    long badPosition = -1;
    long raggedRow = -1;
    long raggedWidth = -1;
    while (rows.hasNext()) {
      Row r = rows.next();
      if (badRow < 0 && raggedRow < 0) {
        if (r.isNullAt(0)) {
          badRow = n;
        } else {
          List<Object> v = r.getList(0);
          if (width < 0) {
            width = v.size();
          } else if (v.size() != width) {
            raggedRow = n;
            raggedWidth = v.size();
          }
          for (int j = 0; j < v.size() && raggedRow != n; j++) {
            if (v.get(j) == null) {
              badRow = n;
              badPosition = j;
              break;
            }
          }
        }
      }
      n++;
    }
    return List.of(new long[] {partition, n, width, badRow, badPosition, raggedRow,
        raggedWidth}).iterator();
  }

  /** The slices of every voxel block, cut by the executors from their partitions' rows. */
  JavaPairRDD<Integer, byte[]> slices(int group, Grid grid, LongAccumulator readNanos) {
    int[] starts = first;
    int[] ranks = rank;
    int v = voxels;
    boolean f32 = float32;
    String what = name;
    JavaRDD<Row> rows = values.javaRDD();
    return rows.mapPartitionsWithIndex((p, it) -> cut(group, p, it, starts, ranks, v, f32, what,
        grid, readNanos), true).mapToPair(t -> t);
  }

  private static Iterator<Tuple2<Integer, byte[]>> cut(int group, int partition,
      Iterator<Row> rows, int[] first, int[] rank, int v, boolean f32, String what, Grid grid,
      LongAccumulator readNanos) {
    long start = System.nanoTime();
    int from = first[partition];
    int count = first[partition + 1] - from;
    if (count == 0) {
      return java.util.Collections.emptyIterator();
    }
    VoxelBlocks.SplitBuffer buffer = new VoxelBlocks.SplitBuffer(count, v);
    float[] f = f32 ? new float[v] : null;
    double[] d = f32 ? null : new double[v];
    int s = from;
    while (rows.hasNext()) {
      if (s >= from + count) {
        throw changed(what, partition);
      }
      Row r = rows.next();
      List<Object> values = r.isNullAt(0) ? null : r.getList(0);
      if (values == null || values.size() != v) {
        throw changed(what, partition);
      }
      for (int j = 0; j < v; j++) {
        Object value = values.get(j);
        if (value == null) {
          throw changed(what, partition);
        }
        double x = ((Number) value).doubleValue();
        if (!Double.isFinite(x)) {
          throw new InvalidInputException("Cannot read " + what + ": row " + s + " has " + x
              + " at position " + j + "; every value must be finite");
        }
        if (f32) {
          f[j] = (Float) value;
        } else {
          d[j] = x;
        }
      }
      int sample = rank == null ? s : rank[s];
      if (f32) {
        buffer.float32(sample, f);
      } else {
        buffer.float64(sample, d);
      }
      s++;
    }
    if (s != from + count) {
      throw changed(what, partition);
    }
    if (readNanos != null) {
      readNanos.add(System.nanoTime() - start);
    }
    return VoxelBlocks.slices(buffer, group, grid, v, readNanos);
  }

  private static InvalidInputException changed(String what, int partition) {
    return new InvalidInputException("Cannot read " + what + ": partition " + partition
        + " gave other rows than when its rows were counted; the DataFrame must give the same"
        + " rows each time it is computed (persist or checkpoint it first)");
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int samples() {
    return first[first.length - 1];
  }

  @Override
  public int voxels() {
    return voxels;
  }

  @Override
  public NiftiMask mask() {
    return null;
  }

  /** One split per partition that holds rows. */
  @Override
  public int splits() {
    return nonEmpty.length;
  }

  @Override
  public int firstSample(int split) {
    return first[nonEmpty[split]];
  }

  @Override
  public int splitSamples(int split) {
    return first[nonEmpty[split] + 1] - first[nonEmpty[split]];
  }

  @Override
  public boolean float32() {
    return float32;
  }

  /** Splits are read by {@link #slices} from the DataFrame's partitions, never by path. */
  @Override
  public void read(int split, Opener files, Sink sink) {
    throw new IllegalStateException("[BUG] " + name + " is read from its partitions");
  }

  /** The broadcast path: the rows collected, as {@link DataFrameMatrices#read}. */
  @Override
  public DataMatrix readAll(Opener files) {
    if (values == null) {
      throw new IllegalStateException("[BUG] " + name + " can only be collected on the driver");
    }
    DataMatrix read = DataFrameMatrices.read(values, column, null);
    if (rank == null) {
      return read;
    }
    int n = read.rows();
    double[] in = read.values();
    double[] out = new double[in.length];
    for (int i = 0; i < n; i++) {
      System.arraycopy(in, i * voxels, out, rank[i] * voxels, voxels);
    }
    return DataMatrix.of(n, voxels, out, name);
  }
}
