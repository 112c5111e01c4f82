package org.nlspark.core.glm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;

class GlmFilesTest {
  @TempDir
  Path dir;

  private Path write(String name, String text) throws IOException {
    Path p = dir.resolve(name);
    Files.writeString(p, text);
    return p;
  }

  /** As FSL's Glm GUI writes them (tabs, trailing spaces, /PPheights). */
  @Test
  void readsVestFiles() throws IOException {
    Path mat = write("design.mat", "/NumWaves\t3\n/NumPoints\t4\n/PPheights\t\t1 1 2\n\n"
        + "/Matrix\n1.000000e+00\t0\t3.5 \n1\t1\t-2.25\n1 0 0.5\n1\t1\t4\n");
    Path con = write("design.con", "/ContrastName1\tgroup\n/ContrastName2\tage neg\n"
        + "/NumWaves\t3\n/NumContrasts\t2\n/PPheights\t1 1\n/RequiredEffect\t1 1\n\n/Matrix\n"
        + "0 1 0\n0 0 -1\n");
    Path fts = write("design.fts", "/NumWaves\t2\n/NumContrasts\t1\n/Matrix\n1 1\n");
    Path grp = write("design.grp", "/NumWaves\t1\n/NumPoints\t4\n/Matrix\n1\n1\n2\n2\n");
    GlmDesign d = GlmFiles.readDesign(mat);
    assertThat(d.values()).isDeepEqualTo(new double[][] {{1, 0, 3.5}, {1, 1, -2.25}, {1, 0, 0.5},
        {1, 1, 4}});
    assertThat(d.names()).containsExactly("EV1", "EV2", "EV3");
    GlmContrasts c = GlmFiles.readContrasts(con, fts);
    assertThat(c.t()).isDeepEqualTo(new double[][] {{0, 1, 0}, {0, 0, -1}});
    assertThat(c.tNames()).containsExactly("group", "age neg");
    assertThat(c.f()).isDeepEqualTo(new int[][] {{0, 1}});
    assertThat(GlmFiles.readBlocks(grp)).isDeepEqualTo(new int[][] {{1}, {1}, {2}, {2}});
  }

  @Test
  void readsCsvAndTsvWithHeaders() throws IOException {
    Path mat = write("design.tsv", "intercept\tgroup\tage\n1\t0\t31\n1\t1\t25\n\n1\t0\t40\n");
    GlmDesign d = GlmFiles.readDesign(mat);
    assertThat(d.names()).containsExactly("intercept", "group", "age");
    assertThat(d.values()[2]).containsExactly(1, 0, 40);
    Path con = write("con.csv", "name,intercept,group,age\ngroup,0,1,0\nage,0,0,1\nneg,0,-1,0\n");
    Path f = write("f.csv", "a,b,c\n1,1,0\n0,1,1\n");
    GlmContrasts c = GlmFiles.readContrasts(con, f);
    assertThat(c.tNames()).containsExactly("group", "age", "neg");
    assertThat(c.t()[2]).containsExactly(0, -1, 0);
    assertThat(c.f()).isDeepEqualTo(new int[][] {{0, 1}, {1, 2}});
    Path byNumber = write("f2.csv", "tests\n3\n");
    assertThat(GlmFiles.readContrasts(con, byNumber).f()).isDeepEqualTo(new int[][] {{2}});
    Path blocks = write("blocks.txt", "block\n4\n4\n7\n");
    assertThat(GlmFiles.readBlocks(blocks)).isDeepEqualTo(new int[][] {{4}, {4}, {7}});
    Path noHeader = write("plain.txt", "1\n2\n");
    assertThat(GlmFiles.readBlocks(noHeader)).isDeepEqualTo(new int[][] {{1}, {2}});
  }

  @Test
  void refusalsNameTheFileAndTheValue() throws IOException {
    Path bad = write("d.csv", "a,b\n1,x\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(bad))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read the design " + bad + ": line 2, column 2 (b) is not a number:"
            + " 'x'");
    Path ragged = write("r.csv", "a,b\n1,2\n3\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(ragged))
        .hasMessage("Cannot read the design " + ragged + ": line 3 has 1 values but the header"
            + " has 2");
    Path noHeader = write("n.csv", "1,2\n3,4\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(noHeader))
        .hasMessage("Cannot read the design " + noHeader + ": its first row '1,2' is not a header"
            + " (it holds the number 1); add a header row naming the columns");
    Path vest = write("design.mat", "/NumWaves 2\n/NumPoints 3\n/Matrix\n1 2\n3 4\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(vest))
        .hasMessage("Cannot read the design " + vest + ": /Matrix has 2 rows but the header says"
            + " 3");
    Path waves = write("w.mat", "/NumWaves 2\n/Matrix\n1 2\n3 4 5\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(waves))
        .hasMessage("Cannot read the design " + waves + ": line 4 has 3 values but /NumWaves is"
            + " 2");
    Path con = write("c.csv", "a,b\n1,0\n");
    Path f = write("f.csv", "x\n5\n");
    assertThatThrownBy(() -> GlmFiles.readContrasts(con, f))
        .hasMessage("Cannot read the F contrasts " + f + ": line 2 is neither a 0/1 flag row of 1"
            + " values nor distinct t contrast numbers in [1, 1]; name the t contrasts in the"
            + " header and give 0/1 flags under them");
    Path blocks = write("b.txt", "1\n1.5\n");
    assertThatThrownBy(() -> GlmFiles.readBlocks(blocks))
        .hasMessage("Cannot read the exchangeability blocks " + blocks + ": line 2 is not an"
            + " integer block id: '1.5'");
    Path huge = write("h.csv", "a,b\n1,0\n");
    Path hugeDesign = write("hd.csv", "a,b\n1,1e308\n1,2\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(hugeDesign))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read the design " + hugeDesign + ": line 2, column 2 (b) holds 1e308,"
            + " beyond 1e150 in magnitude (the model multiplies values in pairs, and such products"
            + " overflow); rescale the column");
    Path hugeContrast = write("hc.csv", "a,b\n-1e308,1\n");
    assertThatThrownBy(() -> GlmFiles.readContrasts(hugeContrast, null))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot read the contrasts " + hugeContrast + ": line 2, column 1"
            + " (a) holds -1e308, beyond 1e150");
    assertThat(GlmFiles.readContrasts(huge, null)).isNotNull();
    Path npy = write("design.npy", "\u0093NUMPY\u0001\u0000v\u0000{'descr': '<f8'}\n");
    assertThatThrownBy(() -> GlmFiles.readDesign(npy))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read the design " + npy + ": it is a numpy .npy array, and the design"
            + " is a text table (CSV or TSV with a header row, or FSL's VEST format); write it"
            + " with numpy.savetxt(name, array, delimiter=',', header=..., comments='')");
    Path missing = dir.resolve("nope.csv");
    assertThatThrownBy(() -> GlmFiles.readDesign(missing))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read the design " + missing + ": no such file");
  }

  /** NaN reaches the model, which names the row, the column and the file. */
  @Test
  void nanInADesignFileIsRefusedByTheModel() throws IOException {
    Path mat = write("design.csv", "intercept,age\n1,3\n1,NaN\n1,5\n");
    Path con = write("con.csv", "intercept,age\n0,1\n");
    assertThatThrownBy(() -> GlmModel.prepare(GlmFiles.readDesign(mat),
        GlmFiles.readContrasts(con, null), 3))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot fit the design " + mat + ": row 2, column 2 (age) is NaN; every design"
            + " value must be a finite number");
  }
}
