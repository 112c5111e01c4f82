package org.nlspark.spark.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.hadoop.ParquetReader;
import org.apache.parquet.hadoop.example.GroupReadSupport;
import org.apache.parquet.io.ParquetDecodingException;
import org.apache.parquet.schema.GroupType;
import org.apache.parquet.schema.PrimitiveType;
import org.apache.parquet.schema.Type;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;

/**
 * Reads a Parquet input (one row per sample, the voxel values in an array column) into a
 * samples × voxels matrix on this JVM. Rows are read file by file in the order of
 * {@link StudyInputs.Source#files} and in row order within a file, so the sample order is file
 * name then row order unless an order-by column is given (then a stable sort by it).
 *
 * <p>The array column may be Spark's three-level list ({@code array<double>} or
 * {@code array<float>}), the legacy two-level list, or a repeated primitive; elements may be
 * float64, float32, int32 or int64.
 */
final class ParquetMatrices {
  private ParquetMatrices() {}

  /** One row: its values, its --order-by key (null without one), and where it was read. */
  private record Sample(double[] values, Comparable<Object> key, String file, long row) {}

  static DataMatrix read(Configuration conf, StudyInputs.Source source, String column,
      String orderBy) {
    List<Sample> samples = new ArrayList<>();
    int voxels = -1;
    String firstFile = null;
    for (String file : source.files) {
      String what = source.flag + " " + file;
      try (ParquetReader<Group> reader = ParquetReader.builder(new GroupReadSupport(),
          new Path(file)).withConf(conf).build()) {
        long row = 0;
        for (Group g = reader.read(); g != null; g = reader.read(), row++) {
          double[] values = array(g, column, what, row);
          if (voxels < 0) {
            voxels = values.length;
            firstFile = file;
          } else if (values.length != voxels) {
            throw new InvalidInputException("Cannot read " + what + ": row " + row + " of column "
                + column + " has " + values.length + " values, but the first row of " + firstFile
                + " has " + voxels + "; every sample needs the same voxels");
          }
          samples.add(new Sample(values, orderBy == null ? null : key(g, orderBy, what, row),
              file, row));
          if ((long) samples.size() * voxels > Integer.MAX_VALUE - 8) {
            throw new ResourceRefusedException("Cannot load " + source.flag + " " + source.uri
                + " in one JVM: more than " + samples.size() + " samples x " + voxels
                + " voxels, more values than one Java array holds; run fewer samples");
          }
        }
      } catch (ParquetDecodingException | IOException e) {
        throw new InvalidInputException("Cannot read " + what + " as Parquet: " + e.getMessage()
            + "; write it with Spark, pyarrow or pandas (one row per sample, an array column)",
            e);
      } catch (RuntimeException e) {
        if (e instanceof InvalidInputException || e instanceof ResourceRefusedException) {
          throw e;
        }
        throw new InvalidInputException("Cannot read " + what + " as Parquet: " + e, e);
      }
    }
    if (samples.isEmpty()) {
      throw new InvalidInputException("Cannot read " + source.flag + " " + source.uri
          + ": its Parquet files hold no row; write one row per sample");
    }
    if (orderBy != null) {
      samples.sort(Comparator.comparing(Sample::key)); // stable: ties keep file and row order
      requireDistinctKeys(samples, source, orderBy);
    }
    double[] out = new double[samples.size() * voxels];
    for (int i = 0; i < samples.size(); i++) {
      System.arraycopy(samples.get(i).values(), 0, out, i * voxels, voxels);
    }
    return DataMatrix.of(samples.size(), voxels, out, source.flag + " " + source.uri);
  }

  /**
   * Two rows with the same key would be ordered by where they happen to lie, which is no order
   * the user chose: the sample order must be the key's alone. Checked on the sorted rows, where
   * equal keys are neighbours (the first two rows sharing the smallest such key are named).
   */
  private static void requireDistinctKeys(List<Sample> sorted, StudyInputs.Source source,
      String orderBy) {
    for (int i = 1; i < sorted.size(); i++) {
      Sample a = sorted.get(i - 1);
      Sample b = sorted.get(i);
      if (a.key().compareTo(b.key()) == 0) {
        String rows = a.file().equals(b.file())
            ? "rows " + a.row() + " and " + b.row() + " of " + a.file()
            : "row " + a.row() + " of " + a.file() + " and row " + b.row() + " of " + b.file();
        throw new InvalidInputException("Cannot order " + source.flag + " " + source.uri
            + " by " + orderBy + ": key " + a.key() + " appears in " + rows + "; give each row"
            + " its own key");
      }
    }
  }

  private static int field(Group g, String column, String what, String flag) {
    GroupType t = g.getType();
    if (!t.containsField(column)) {
      List<String> names = new ArrayList<>();
      for (Type f : t.getFields()) {
        names.add(f.getName());
      }
      throw new InvalidInputException("Cannot read " + what + ": it has no column " + column
          + " (its columns: " + names + "); choose one with " + flag);
    }
    return t.getFieldIndex(column);
  }

  /** The voxel values of one row. */
  static double[] array(Group g, String column, String what, long row) {
    int idx = field(g, column, what, "--column");
    Type type = g.getType().getType(idx);
    if (type.isPrimitive()) {
      if (!type.isRepetition(Type.Repetition.REPEATED)) {
        throw notArray(what, column, type);
      }
      return primitives(g, idx, what, column, row);
    }
    if (g.getFieldRepetitionCount(idx) == 0) {
      throw new InvalidInputException("Cannot read " + what + ": row " + row + " has no value"
          + " (null) in column " + column + "; drop or fill the row");
    }
    Group list = g.getGroup(idx, 0);
    GroupType listType = list.getType();
    if (listType.getFieldCount() != 1) {
      throw notArray(what, column, type);
    }
    Type repeated = listType.getType(0);
    if (!repeated.isRepetition(Type.Repetition.REPEATED)) {
      throw notArray(what, column, type); // a struct (struct<a:double>), not a list
    }
    if (repeated.isPrimitive()) {
      return primitives(list, 0, what, column, row); // two-level list
    }
    int n = list.getFieldRepetitionCount(0);
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      Group element = list.getGroup(0, i);
      if (element.getType().getFieldCount() != 1 || !element.getType().getType(0).isPrimitive()) {
        throw notArray(what, column, type);
      }
      if (element.getFieldRepetitionCount(0) == 0) {
        throw new InvalidInputException("Cannot read " + what + ": row " + row + " of column "
            + column + " has a null at position " + i + "; fill it before resampling");
      }
      values[i] = number(element, 0, 0, element.getType().getType(0).asPrimitiveType(), what,
          column);
    }
    return values;
  }

  private static double[] primitives(Group g, int idx, String what, String column, long row) {
    PrimitiveType p = g.getType().getType(idx).asPrimitiveType();
    int n = g.getFieldRepetitionCount(idx);
    double[] values = new double[n];
    for (int i = 0; i < n; i++) {
      values[i] = number(g, idx, i, p, what, column);
    }
    return values;
  }

  private static double number(Group g, int idx, int i, PrimitiveType p, String what,
      String column) {
    switch (p.getPrimitiveTypeName()) {
      case DOUBLE:
        return g.getDouble(idx, i);
      case FLOAT:
        return g.getFloat(idx, i);
      case INT32:
        return g.getInteger(idx, i);
      case INT64:
        return g.getLong(idx, i);
      default:
        throw new InvalidInputException("Cannot read " + what + ": column " + column + " holds "
            + p.getPrimitiveTypeName() + " values; it must be an array of double, float, int or"
            + " long");
    }
  }

  @SuppressWarnings({"unchecked", "rawtypes"})
  static Comparable<Object> key(Group g, String orderBy, String what, long row) {
    int idx = field(g, orderBy, what, "--order-by");
    Type type = g.getType().getType(idx);
    if (!type.isPrimitive() || type.isRepetition(Type.Repetition.REPEATED)) {
      throw new InvalidInputException("Cannot order " + what + " by " + orderBy + ": it is not"
          + " a number or string column");
    }
    if (g.getFieldRepetitionCount(idx) == 0) {
      throw new InvalidInputException("Cannot order " + what + " by " + orderBy + ": row " + row
          + " has no key (null); give each row its own key");
    }
    PrimitiveType p = type.asPrimitiveType();
    Comparable c;
    switch (p.getPrimitiveTypeName()) {
      case BINARY:
      case FIXED_LEN_BYTE_ARRAY:
        c = g.getBinary(idx, 0).toStringUsingUTF8();
        break;
      case INT32:
        c = (long) g.getInteger(idx, 0);
        break;
      case INT64:
        c = g.getLong(idx, 0);
        break;
      case FLOAT:
        c = (double) g.getFloat(idx, 0);
        break;
      case DOUBLE:
        c = g.getDouble(idx, 0);
        break;
      case BOOLEAN:
        c = g.getBoolean(idx, 0);
        break;
      default:
        throw new InvalidInputException("Cannot order " + what + " by " + orderBy + ": its type "
            + p.getPrimitiveTypeName() + " has no order nlspark knows; use a number or string");
    }
    if (c instanceof Double && ((Double) c).isNaN()) {
      // NaN sorts after every number in Java but is no position the user gave
      throw new InvalidInputException("Cannot order " + what + " by " + orderBy + ": row " + row
          + " has no key (NaN); give each row its own key");
    }
    return c;
  }

  private static InvalidInputException notArray(String what, String column, Type type) {
    return new InvalidInputException("Cannot read " + what + ": column " + column
        + " is not an array of numbers (its type: " + type.toString().strip() + ")");
  }
}
