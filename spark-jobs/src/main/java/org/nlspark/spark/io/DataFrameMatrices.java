package org.nlspark.spark.io;

import java.util.Arrays;
import java.util.List;
import org.apache.spark.sql.Column;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.functions;
import org.apache.spark.sql.types.ArrayType;
import org.apache.spark.sql.types.DataType;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;

/**
 * A Spark DataFrame with one row per sample and the voxel values in an array column, collected
 * into a samples × voxels matrix on the driver (the in-memory path of the API).
 */
public final class DataFrameMatrices {
  private static final List<DataType> NUMBERS = List.of(DataTypes.DoubleType,
      DataTypes.FloatType, DataTypes.IntegerType, DataTypes.LongType, DataTypes.ShortType,
      DataTypes.ByteType);

  private DataFrameMatrices() {}

  /**
   * The matrix of {@code column}, rows in the DataFrame's order, or sorted by {@code orderBy}
   * when given.
   *
   * @throws InvalidInputException for a missing or non-array column, nulls, ragged rows
   */
  public static DataMatrix read(Dataset<Row> samples, String column, String orderBy) {
    String what = "the DataFrame's column " + column;
    arrayColumn(samples, column);
    Dataset<Row> ordered = samples;
    if (orderBy != null) {
      fieldOf(samples, orderBy, "order-by column");
      ordered = samples.orderBy(new Column(orderBy));
    }
    // Cast in Spark so every element arrives as a Double, whatever the array held.
    List<Row> rows = ordered.select(functions.col(column).cast(
        DataTypes.createArrayType(DataTypes.DoubleType)).alias(column)).collectAsList();
    if (rows.isEmpty()) {
      throw new InvalidInputException("Cannot read " + what + ": the DataFrame has no row");
    }
    int voxels = -1;
    double[] out = null;
    for (int i = 0; i < rows.size(); i++) {
      Row r = rows.get(i);
      if (r.isNullAt(0)) {
        throw new InvalidInputException("Cannot read " + what + ": row " + i + " is null;"
            + " drop or fill it");
      }
      List<Object> values = r.getList(0);
      if (voxels < 0) {
        voxels = values.size();
        long total = (long) rows.size() * voxels;
        if (total > Integer.MAX_VALUE - 8) {
          throw new ResourceRefusedException("Cannot collect " + what + ": " + rows.size()
              + " rows x " + voxels + " values is more than one Java array holds");
        }
        out = new double[(int) total];
      } else if (values.size() != voxels) {
        throw new InvalidInputException("Cannot read " + what + ": row " + i + " has "
            + values.size() + " values, but row 0 has " + voxels + "; every sample needs the"
            + " same voxels");
      }
      for (int v = 0; v < voxels; v++) {
        Object value = values.get(v);
        if (value == null) {
          throw new InvalidInputException("Cannot read " + what + ": row " + i + " has a null"
              + " at position " + v + "; fill it before resampling");
        }
        out[i * voxels + v] = ((Number) value).doubleValue();
      }
    }
    return DataMatrix.of(rows.size(), voxels, out, what);
  }

  /**
   * The type of {@code column}, an array of numbers.
   *
   * @throws InvalidInputException for a missing or non-array column
   */
  public static ArrayType arrayColumn(Dataset<Row> samples, String column) {
    StructField field = fieldOf(samples, column, "column");
    if (!(field.dataType() instanceof ArrayType)
        || !NUMBERS.contains(((ArrayType) field.dataType()).elementType())) {
      throw new InvalidInputException("Cannot read the DataFrame's column " + column + ": it"
          + " must be an array of numbers, but is " + field.dataType().simpleString());
    }
    return (ArrayType) field.dataType();
  }

  /**
   * Checks that {@code samples} has the order-by column {@code name}.
   *
   * @throws InvalidInputException naming the columns it has
   */
  public static void orderColumn(Dataset<Row> samples, String name) {
    fieldOf(samples, name, "order-by column");
  }

  private static StructField fieldOf(Dataset<Row> df, String name, String role) {
    for (StructField f : df.schema().fields()) {
      if (f.name().equals(name)) {
        return f;
      }
    }
    throw new InvalidInputException("Cannot read the DataFrame: it has no " + role + " " + name
        + " (its columns: " + Arrays.toString(df.columns()) + ")");
  }
}
