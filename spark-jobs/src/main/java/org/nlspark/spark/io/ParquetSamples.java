package org.nlspark.spark.io;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetFileReader;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.hadoop.util.HadoopInputFile;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.spark.io.HadoopOpener;

/**
 * A Parquet input in file-name then row order as a {@link SampleSource} (DESIGN §8): the driver
 * reads the files' footers (row counts, schema) and one row for the number of voxels; each
 * split is one file, read where the task runs. Rows are decoded as {@link ParquetMatrices} does
 * (the same column rules and messages); an array of float stays float32. Sorted by {@code
 * --order-by} ({@link #orderedBy}), a split still reads one file and sends each row to its rank
 * (runs of consecutive ranks travel as one slice per voxel block).
 */
public final class ParquetSamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final String[] files; // non-empty files, in sample order
  private final int[] firstRow; // first sample of each file; firstRow[files.length] = samples
  private final int voxels;
  private final String column;
  private final boolean float32;
  private final int[] rank; // with --order-by: the sample of each row in file then row order

  private ParquetSamples(String name, String[] files, int[] firstRow, int voxels, String column,
      boolean float32) {
    this(name, files, firstRow, voxels, column, float32, null);
  }

  private ParquetSamples(String name, String[] files, int[] firstRow, int voxels, String column,
      boolean float32, int[] rank) {
    this.rank = rank;
    this.name = name;
    this.files = files;
    this.firstRow = firstRow;
    this.voxels = voxels;
    this.column = column;
    this.float32 = float32;
  }

  /** Describes a resolved Parquet input from its footers and its first row. */
  public static ParquetSamples describe(Configuration conf, StudyInputs.Source source,
      String column) {
    List<String> kept = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    boolean float32 = false;
    for (String file : source.files) {
      String what = source.flag + " " + file;
      try (ParquetFileReader reader = ParquetFileReader.open(
          HadoopInputFile.fromPath(new Path(file), conf))) {
        long n = reader.getRecordCount();
        if (kept.isEmpty() && n > 0) {
          float32 = elementType(reader.getFooter().getFileMetaData().getSchema(), column)
              == PrimitiveType.PrimitiveTypeName.FLOAT;
        }
        if (n > 0) {
          kept.add(file);
          rows.add(n);
        }
      } catch (IOException | RuntimeException e) {
        throw unreadable(what, e);
      }
    }
    if (kept.isEmpty()) {
      throw new InvalidInputException("Cannot read " + source.flag + " " + source.uri
          + ": its Parquet files hold no row; write one row per sample");
    }
    int[] first = new int[kept.size() + 1];
    long total = 0;
    for (int i = 0; i < kept.size(); i++) {
      total += rows.get(i);
      if (total > Integer.MAX_VALUE) {
        throw new InvalidInputException("Cannot read " + source.flag + " " + source.uri
            + ": it holds more than " + Integer.MAX_VALUE + " rows (samples)");
      }
      first[i + 1] = (int) total;
    }
    String firstFile = kept.get(0);
    int voxels;
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
        new Path(firstFile)).withConf(conf).build()) {
      voxels = ParquetMatrices.array(reader.read(), column, source.flag + " " + firstFile, 0)
          .length;
    } catch (IOException | RuntimeException e) {
      throw unreadable(source.flag + " " + firstFile, e);
    }
    return new ParquetSamples(source.flag + " " + source.uri, kept.toArray(new String[0]),
        first, voxels, column, float32);
  }

  /** The non-empty files, in file-name order: the read splits. */
  public List<String> files() {
    return List.of(files);
  }

  /**
   * The {@code --order-by} keys of one file's rows, in row order (one number or string per
   * sample), read with only that column: what executors send for the ranking.
   */
  public static List<Object> keys(Configuration conf, String file, String what, String orderBy) {
    Configuration projected = new Configuration(conf);
    List<Object> keys = new ArrayList<>();
    try (ParquetFileReader footer = ParquetFileReader.open(HadoopInputFile.fromPath(
        new Path(file), conf))) {
      org.apache.parquet.schema.MessageType schema =
          footer.getFooter().getFileMetaData().getSchema();
      if (schema.containsField(orderBy)) { // else the first row names the missing column
        projected.set(org.apache.parquet.hadoop.api.ReadSupport.PARQUET_READ_SCHEMA,
            new org.apache.parquet.schema.MessageType(schema.getName(), schema.getType(orderBy))
                .toString());
      }
    } catch (IOException | RuntimeException e) {
      throw unreadable(what, e);
    }
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
        new Path(file)).withConf(projected).build()) {
      long row = 0;
      for (Group g = reader.read(); g != null; g = reader.read(), row++) {
        keys.add(ParquetMatrices.key(g, orderBy, what, row));
      }
    } catch (IOException | ParquetDecodingException e) {
      throw unreadable(what, e);
    } catch (RuntimeException e) {
      if (e instanceof InvalidInputException) {
        throw e;
      }
      throw unreadable(what, e);
    }
    return keys;
  }

  /**
   * The same rows in the order of their {@code --order-by} keys ({@code keys}: every row's, in
   * file then row order), sorted as {@link ParquetMatrices} sorts them; two rows with one key
   * are refused as there (exit 2, naming both). Each split still reads one file; its rows go to
   * their ranks.
   */
  @SuppressWarnings({"unchecked", "rawtypes"})
  public ParquetSamples orderedBy(List<Object> keys, String orderBy) {
    int n = samples();
    if (keys.size() != n) {
      throw new InvalidInputException("Cannot order " + name + ": its files now hold "
          + keys.size() + " rows, but their footers declared " + n + "; did they change?");
    }
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    java.util.Arrays.sort(order, (a, b) -> ((Comparable) keys.get(a)).compareTo(keys.get(b)));
    int[] ranks = new int[n];
    for (int k = 0; k < n; k++) {
      ranks[order[k]] = k;
      // two rows with one key would be ordered by where they lie, no order the user chose
      if (k > 0 && ((Comparable) keys.get(order[k - 1])).compareTo(keys.get(order[k])) == 0) {
        int a = order[k - 1];
        int b = order[k];
        String fa = files[fileOf(a)];
        String fb = files[fileOf(b)];
        long ra = a - firstRow[fileOf(a)];
        long rb = b - firstRow[fileOf(b)];
        String rows = fa.equals(fb) ? "rows " + ra + " and " + rb + " of " + fa
            : "row " + ra + " of " + fa + " and row " + rb + " of " + fb;
        throw new InvalidInputException("Cannot order " + name + " by " + orderBy + ": key "
            + keys.get(a) + " appears in " + rows + "; give each row its own key");
      }
    }
    return new ParquetSamples(name, files, firstRow, voxels, column, float32, ranks);
  }

  /** The file (index among the non-empty files) of sample {@code row} in file then row order. */
  private int fileOf(int row) {
    int i = java.util.Arrays.binarySearch(firstRow, row);
    return i >= 0 ? i : -i - 2;
  }

  /** The primitive type of the column's elements, or null when it is no array of numbers. */
  private static PrimitiveType.PrimitiveTypeName elementType(GroupType schema, String column) {
    if (!schema.containsField(column)) {
      return null; // reading the first row names the missing column
    }
    Type t = schema.getType(column);
    while (!t.isPrimitive()) {
      GroupType g = t.asGroupType();
      if (g.getFieldCount() != 1) {
        return null;
      }
      t = g.getType(0);
    }
    return t.asPrimitiveType().getPrimitiveTypeName();
  }

  /** Copies {@code values} into {@code f}; false when one of them is not a float32 exactly. */
  private static boolean fitsFloat32(double[] values, float[] f) {
    for (int j = 0; j < values.length; j++) {
      f[j] = (float) values[j];
      if (f[j] != values[j]) {
        return false;
      }
    }
    return true;
  }

  private static InvalidInputException unreadable(String what, Exception e) {
    if (e instanceof InvalidInputException) {
      return (InvalidInputException) e;
    }
    return new InvalidInputException("Cannot read " + what + " as Parquet: " + e.getMessage()
        + "; write it with Spark, pyarrow or pandas (one row per sample, an array column)", e);
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int samples() {
    return firstRow[files.length];
  }

  @Override
  public int voxels() {
    return voxels;
  }

  @Override
  public NiftiMask mask() {
    return null;
  }

  @Override
  public int splits() {
    return files.length;
  }

  @Override
  public int firstSample(int split) {
    return firstRow[split];
  }

  @Override
  public int splitSamples(int split) {
    return firstRow[split + 1] - firstRow[split];
  }

  @Override
  public boolean float32() {
    return float32;
  }

  @Override
  public void read(int split, Opener opener, Sink sink) {
    if (!(opener instanceof HadoopOpener)) {
      throw new IllegalStateException("[BUG] Parquet files are read through Hadoop, not "
          + opener.getClass().getName());
    }
    Configuration conf = ((HadoopOpener) opener).configuration();
    String file = files[split];
    String what = name.substring(0, name.indexOf(' ') + 1) + file;
    float[] f = float32 ? new float[voxels] : null;
    int expected = splitSamples(split);
    int row = 0;
    try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
        new Path(file)).withConf(conf).build()) {
      for (Group g = reader.read(); g != null; g = reader.read(), row++) {
        if (row >= expected) {
          throw new InvalidInputException("Cannot read " + what + ": it has more rows than the "
              + expected + " its footer declared when the run started; did it change?");
        }
        double[] values = ParquetMatrices.array(g, column, what, row);
        if (values.length != voxels) {
          throw new InvalidInputException("Cannot read " + what + ": row " + row + " of column "
              + column + " has " + values.length + " values, but the first row of " + files[0]
              + " has " + voxels + "; every sample needs the same voxels");
        }
        for (int j = 0; j < voxels; j++) {
          if (!Double.isFinite(values[j])) {
            throw new InvalidInputException("Cannot use " + what + ": row " + row + " holds "
                + values[j] + " at voxel " + j + "; remove or impute NaN and infinite values"
                + " before resampling");
          }
        }
        int sample = rank == null ? firstRow[split] + row : rank[firstRow[split] + row];
        if (float32 && fitsFloat32(values, f)) {
          sink.float32(sample, f);
        } else {
          sink.float64(sample, values); // a file whose column is wider than the first file's
        }
      }
    } catch (IOException | ParquetDecodingException e) {
      throw unreadable(what, e);
    } catch (RuntimeException e) {
      if (e instanceof InvalidInputException) {
        throw e;
      }
      throw unreadable(what, e);
    }
    if (row != expected) {
      throw new InvalidInputException("Cannot read " + what + ": it has " + row + " rows, but its"
          + " footer declared " + expected + " when the run started; did it change?");
    }
  }
}
