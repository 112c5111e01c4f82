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
 * reads the files' footers (row counts, row groups, schema) and one row for the number of
 * voxels; each split is a run of consecutive row groups of one file, about {@code splitBytes}
 * of float32 values (at least one row group: a file of one row group is one split), read where
 * the task runs. Rows are decoded as {@link ParquetMatrices} does (the same column rules and
 * messages); an array of float stays float32. Sorted by {@code --order-by} ({@link
 * #orderedBy}), a split still reads its row groups and sends each row to its rank (runs of
 * consecutive ranks travel as one slice per voxel block).
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
  // the read splits: runs of row groups of one file, in file then row order
  private final int[] splitFile; // index into files
  private final int[] splitGroup; // its first row group in the file
  private final int[] splitGroups; // how many row groups
  private final int[] splitFirst; // its first sample; splitFirst[splits] = samples

  private ParquetSamples(String name, String[] files, int[] firstRow, int voxels, String column,
      boolean float32, int[][] splits) {
    this(name, files, firstRow, voxels, column, float32, null, splits);
  }

  private ParquetSamples(String name, String[] files, int[] firstRow, int voxels, String column,
      boolean float32, int[] rank, int[][] splits) {
    this.rank = rank;
    this.splitFile = splits[0];
    this.splitGroup = splits[1];
    this.splitGroups = splits[2];
    this.splitFirst = splits[3];
    this.name = name;
    this.files = files;
    this.firstRow = firstRow;
    this.voxels = voxels;
    this.column = column;
    this.float32 = float32;
  }

  /**
   * Describes a resolved Parquet input from its footers and its first row, in splits of about
   * {@code splitBytes} of float32 values (whole row groups of one file).
   */
  public static ParquetSamples describe(Configuration conf, StudyInputs.Source source,
      String column, long splitBytes) {
    List<String> kept = new ArrayList<>();
    List<Long> rows = new ArrayList<>();
    List<long[]> groups = new ArrayList<>(); // per kept file: each row group's rows
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
          groups.add(reader.getRowGroups().stream().mapToLong(b -> b.getRowCount()).toArray());
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
        first, voxels, column, float32, splits(first, groups,
            Math.max(1, splitBytes / (4L * Math.max(1, voxels)))));
  }

  /**
   * The read splits: each file's row groups in runs of at most {@code perSplit} rows (at least
   * one group each), as {splitFile, splitGroup, splitGroups, splitFirst}.
   */
  private static int[][] splits(int[] firstRow, List<long[]> groups, long perSplit) {
    List<int[]> out = new ArrayList<>(); // file, first group, groups, first sample
    for (int f = 0; f < groups.size(); f++) {
      long[] g = groups.get(f);
      long sample = firstRow[f];
      int start = 0;
      long rows = 0;
      for (int i = 0; i < g.length; i++) {
        if (i > start && rows + g[i] > perSplit) {
          out.add(new int[] {f, start, i - start, (int) sample});
          sample += rows;
          start = i;
          rows = 0;
        }
        rows += g[i];
      }
      out.add(new int[] {f, start, g.length - start, (int) sample});
    }
    int n = out.size();
    int[][] splits = new int[4][];
    for (int k = 0; k < 3; k++) {
      splits[k] = new int[n];
    }
    splits[3] = new int[n + 1];
    for (int i = 0; i < n; i++) {
      for (int k = 0; k < 4; k++) {
        splits[k][i] = out.get(i)[k];
      }
    }
    splits[3][n] = firstRow[firstRow.length - 1];
    return splits;
  }

  /** The non-empty files, in file-name order (each one split or more). */
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
    return new ParquetSamples(name, files, firstRow, voxels, column, float32, ranks,
        new int[][] {splitFile, splitGroup, splitGroups, splitFirst});
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

  /** One split per run of row groups (see the class comment). */
  @Override
  public int splits() {
    return splitFile.length;
  }

  @Override
  public int firstSample(int split) {
    return splitFirst[split];
  }

  @Override
  public int splitSamples(int split) {
    return splitFirst[split + 1] - splitFirst[split];
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
    String file = files[splitFile[split]];
    String what = name.substring(0, name.indexOf(' ') + 1) + file;
    float[] f = float32 ? new float[voxels] : null;
    int expected = splitSamples(split);
    int first = splitFirst[split];
    long inFile = first - firstRow[splitFile[split]]; // the file's row of the split's first
    int row = 0;
    Path path = new Path(file);
    // the options a ParquetReader built with this configuration reads with
    try (ParquetFileReader reader = ParquetFileReader.open(HadoopInputFile.fromPath(path, conf),
        org.apache.parquet.HadoopReadOptions.builder(conf, path).build())) {
      List<org.apache.parquet.hadoop.metadata.BlockMetaData> groups = reader.getRowGroups();
      int end = splitGroup[split] + splitGroups[split];
      if (groups.size() < end) {
        throw new InvalidInputException("Cannot read " + what + ": it has " + groups.size()
            + " row groups, but " + end + " or more when the run started; did it change?");
      }
      org.apache.parquet.schema.MessageType schema =
          reader.getFooter().getFileMetaData().getSchema();
      org.apache.parquet.io.MessageColumnIO io =
          new org.apache.parquet.io.ColumnIOFactory().getColumnIO(schema);
      for (int i = 0; i < splitGroup[split]; i++) {
        reader.skipNextRowGroup();
      }
      for (int i = splitGroup[split]; i < end; i++) {
        if (groups.get(i).getRowCount() == 0) {
          reader.skipNextRowGroup(); // the reader would skip it by itself, out of our count
          continue;
        }
        org.apache.parquet.column.page.PageReadStore pages = reader.readNextRowGroup();
        org.apache.parquet.io.RecordReader<Group> records = io.getRecordReader(pages,
            new org.apache.parquet.example.data.simple.convert.GroupRecordConverter(schema));
        for (long k = 0; k < pages.getRowCount(); k++, row++) {
          if (row >= expected) {
            throw new InvalidInputException("Cannot read " + what + ": it has more rows than"
                + " the " + expected + " its footer declared when the run started; did it"
                + " change?");
          }
          Group g = records.read();
          long at = inFile + row;
          double[] values = ParquetMatrices.array(g, column, what, at);
          if (values.length != voxels) {
            throw new InvalidInputException("Cannot read " + what + ": row " + at
                + " of column " + column + " has " + values.length + " values, but the first"
                + " row of " + files[0] + " has " + voxels + "; every sample needs the same"
                + " voxels");
          }
          for (int j = 0; j < voxels; j++) {
            if (!Double.isFinite(values[j])) {
              throw new InvalidInputException("Cannot use " + what + ": row " + at + " holds "
                  + values[j] + " at voxel " + j + "; remove or impute NaN and infinite values"
                  + " before resampling");
            }
          }
          int sample = rank == null ? first + row : rank[first + row];
          if (float32 && fitsFloat32(values, f)) {
            sink.float32(sample, f);
          } else {
            sink.float64(sample, values); // a file whose column is wider than the first file's
          }
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
