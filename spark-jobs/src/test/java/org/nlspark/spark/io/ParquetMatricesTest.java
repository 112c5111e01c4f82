package org.nlspark.spark.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.parquet.example.data.Group;
import org.apache.parquet.example.data.simple.SimpleGroupFactory;
import org.apache.parquet.hadoop.ParquetWriter;
import org.apache.parquet.hadoop.example.ExampleParquetWriter;
import org.apache.parquet.schema.MessageType;
import org.apache.parquet.schema.MessageTypeParser;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;

/**
 * {@code --order-by} on real Parquet files written here: the rows come out sorted by the key
 * (checked against a sort done in the test), and a key two rows share, a NaN key or a null key
 * is refused naming the column, the key and the rows.
 */
class ParquetMatricesTest {
  private static final MessageType INT_KEY = MessageTypeParser.parseMessageType(
      "message s { optional int32 subject; repeated double voxels; }");
  private static final MessageType DOUBLE_KEY = MessageTypeParser.parseMessageType(
      "message s { optional double subject; repeated double voxels; }");

  @TempDir Path tmp;

  /** Writes rows (key, then its voxel values; a null key leaves the column empty). */
  private String write(String name, MessageType schema, Object[] keys, double[][] rows)
      throws IOException {
    Path file = tmp.resolve(name);
    SimpleGroupFactory groups = new SimpleGroupFactory(schema);
    try (ParquetWriter<Group> w = ExampleParquetWriter.builder(
        new org.apache.hadoop.fs.Path(file.toUri())).withType(schema)
        .withConf(new Configuration()).build()) {
      for (int i = 0; i < rows.length; i++) {
        Group g = groups.newGroup();
        if (keys[i] instanceof Integer) {
          g.add("subject", (Integer) keys[i]);
        } else if (keys[i] instanceof Double) {
          g.add("subject", (Double) keys[i]);
        }
        for (double v : rows[i]) {
          g.add("voxels", v);
        }
        w.write(g);
      }
    }
    return file.toString();
  }

  private static StudyInputs.Source source(String uri, String... files) {
    return new StudyInputs.Source("--input", uri, StudyInputs.Format.PARQUET, List.of(files));
  }

  private static double[][] rows(int n) {
    double[][] r = new double[n][];
    for (int i = 0; i < n; i++) {
      r[i] = new double[] {i, 10 + i, 100 + i};
    }
    return r;
  }

  @Test
  void distinctKeysOrderTheRowsAcrossFiles() throws Exception {
    Object[] keysA = {7, 2, 9};
    Object[] keysB = {4, 0};
    double[][] a = rows(3);
    double[][] b = {{50, 51, 52}, {60, 61, 62}};
    String fa = write("a.parquet", INT_KEY, keysA, a);
    String fb = write("b.parquet", INT_KEY, keysB, b);
    DataMatrix m = ParquetMatrices.read(new Configuration(), source(tmp.toString(), fa, fb),
        "voxels", "subject");
    // the reference: every (key, row) pair, sorted by key here
    List<Object[]> all = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      all.add(new Object[] {keysA[i], a[i]});
    }
    for (int i = 0; i < 2; i++) {
      all.add(new Object[] {keysB[i], b[i]});
    }
    all.sort(Comparator.comparing(o -> (Integer) o[0]));
    assertThat(m.rows()).isEqualTo(5);
    for (int i = 0; i < 5; i++) {
      double[] expected = (double[]) all.get(i)[1];
      assertThat(new double[] {m.get(i, 0), m.get(i, 1), m.get(i, 2)}).as("row " + i)
          .containsExactly(expected);
    }
  }

  @Test
  void aKeyTwoRowsShareIsRefusedNamingTheKeyAndBothRows() throws Exception {
    String f = write("dup.parquet", INT_KEY, new Object[] {3, 7, 1, 7, 5}, rows(5));
    assertThatThrownBy(() -> ParquetMatrices.read(new Configuration(), source(f, f), "voxels",
        "subject")).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot order --input " + f + " by subject: key 7 appears in rows 1 and 3 of "
            + f + "; give each row its own key");
  }

  @Test
  void aKeySharedAcrossFilesNamesBothFiles() throws Exception {
    String fa = write("a.parquet", INT_KEY, new Object[] {1, 2}, rows(2));
    String fb = write("b.parquet", INT_KEY, new Object[] {0, 2, 3}, rows(3));
    assertThatThrownBy(() -> ParquetMatrices.read(new Configuration(),
        source(tmp.toString(), fa, fb), "voxels", "subject"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot order --input " + tmp + " by subject: key 2 appears in row 1 of " + fa
            + " and row 1 of " + fb + "; give each row its own key");
  }

  @Test
  void aNanOrNullKeyIsRefusedNamingTheRow() throws Exception {
    String nan = write("nan.parquet", DOUBLE_KEY, new Object[] {1.5, 0.5, Double.NaN},
        rows(3));
    assertThatThrownBy(() -> ParquetMatrices.read(new Configuration(), source(nan, nan),
        "voxels", "subject")).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot order --input " + nan + " by subject: row 2 has no key (NaN); give"
            + " each row its own key");
    String none = write("null.parquet", INT_KEY, new Object[] {4, null, 6}, rows(3));
    assertThatThrownBy(() -> ParquetMatrices.read(new Configuration(), source(none, none),
        "voxels", "subject")).isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot order --input " + none + " by subject: row 1 has no key (null); give"
            + " each row its own key");
    // the same files without --order-by: read in file order, nothing refused
    assertThat(ParquetMatrices.read(new Configuration(), source(nan, nan), "voxels", null)
        .rows()).isEqualTo(3);
  }
}
