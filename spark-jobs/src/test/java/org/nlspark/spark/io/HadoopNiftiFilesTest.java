package org.nlspark.spark.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.io.nifti.NiftiWriter;

class HadoopNiftiFilesTest {
  @TempDir Path dir;
  private final Configuration conf = new Configuration();

  private static NiftiMask mask() {
    NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(3, 2, 2)
        .sform(1, new double[][] {{-2, 0, 0, 4}, {0, 2, 0, -2}, {0, 0, 2, 1}}).build();
    return NiftiMask.fromImage(h, new double[] {1, 0, 1, 1, 0, 1, 1, 1, 0, 0, 1, 1}, "m");
  }

  private Path image(String relative, float base) throws Exception {
    Path p = dir.resolve(relative);
    Files.createDirectories(p.getParent());
    NiftiMask m = mask();
    float[] values = new float[m.count()];
    for (int n = 0; n < values.length; n++) {
      values[n] = base + n;
    }
    NiftiWriter.writeMap(p, m, values, 0f);
    return p;
  }

  private static String uri(Path p) {
    return p.toUri().toString();
  }

  @Test
  void directoryGlobAndListGiveTheSameOrderedFiles() throws Exception {
    Path b = image("d/sub-b.nii.gz", 20);
    Path a = image("d/sub-a.nii.gz", 10);
    Files.writeString(dir.resolve("d/_SUCCESS"), "");
    Files.writeString(dir.resolve("d/list.txt"), "sub-a.nii.gz\n# comment\nsub-b.nii.gz\n");
    List<String> fromDir = HadoopNiftiFiles.resolveInputs(conf, uri(dir.resolve("d")), "--input");
    assertThat(fromDir).hasSize(2);
    assertThat(fromDir.get(0)).endsWith("/d/sub-a.nii.gz");
    assertThat(fromDir.get(1)).endsWith("/d/sub-b.nii.gz");
    List<String> fromGlob =
        HadoopNiftiFiles.resolveInputs(conf, uri(dir) + "d/sub-*.nii.gz", "--input");
    assertThat(fromGlob).containsExactlyElementsOf(fromDir);
    List<String> fromList =
        HadoopNiftiFiles.resolveInputs(conf, uri(dir.resolve("d/list.txt")), "--input");
    assertThat(fromList).containsExactlyElementsOf(fromDir);
    assertThat(HadoopNiftiFiles.resolveInputs(conf, uri(a), "--input")).hasSize(1);
    try (NiftiReader r = HadoopNiftiFiles.open(conf, fromList.get(1), "--input")) {
      float[] v = new float[r.header().voxelsPerVolume()];
      r.readVolume(v);
      assertThat(v[0]).isEqualTo(20f);
    }
    assertThat(b).exists();
  }

  @Test
  void missingInputsAreUserErrors() throws Exception {
    image("d/x.nii.gz", 0);
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, uri(dir) + "d/none-*.nii", "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the glob matches no file");
    Files.writeString(dir.resolve("d/list.txt"), "x.nii.gz\ny.nii.gz\n");
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, uri(dir.resolve("d/list.txt")), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("it names y.nii.gz")
        .hasMessageContaining("does not exist");
    assertThatThrownBy(() ->
            HadoopNiftiFiles.open(conf, uri(dir.resolve("nope.nii")), "--mask"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot read --mask")
        .hasMessageContaining("no such file");
  }

  @Test
  void maskAndMapRoundTripThroughAHadoopFileSystem() throws Exception {
    FileSystem fs = FileSystem.getLocal(conf).getRawFileSystem();
    NiftiMask m = mask();
    org.apache.hadoop.fs.Path maskFile = new org.apache.hadoop.fs.Path(uri(dir) + "mask.nii.gz");
    writeMask(fs, maskFile, m);
    NiftiMask back = HadoopNiftiFiles.readMask(conf, maskFile.toString(), "--mask");
    assertThat(back.count()).isEqualTo(m.count());
    org.apache.hadoop.fs.Path map = new org.apache.hadoop.fs.Path(uri(dir) + "t.nii.gz");
    float[] values = new float[m.count()];
    values[3] = 2.5f;
    writeMap(fs, map, back, values, 1f);
    try (NiftiReader r = HadoopNiftiFiles.open(conf, map.toString(), "t")) {
      float[] v = new float[12];
      r.readVolume(v);
      assertThat(v[m.fileIndex(3)]).isEqualTo(2.5f);
      assertThat(v[1]).isEqualTo(1f);
      assertThat(r.header().affine()).isDeepEqualTo(m.geometry().affine());
    }
  }

  private Path fifo(String relative) throws Exception {
    Path p = dir.resolve(relative);
    Files.createDirectories(p.getParent());
    Process mk = new ProcessBuilder("mkfifo", p.toString()).inheritIO().start();
    assertThat(mk.waitFor()).as("mkfifo").isZero();
    return p;
  }

  private static final String NOT_REGULAR = ": it is not a regular file (a FIFO, device or"
      + " socket, which nlspark does not read from); save it to a file first";

  @Test
  void aFifoIsRefusedWhereverItStandsNeverOpened() throws Exception {
    image("d/sub-a.nii.gz", 10);
    Path input = fifo("in.nii.gz");
    assertThatThrownBy(() -> HadoopNiftiFiles.open(conf, input.toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + input + NOT_REGULAR);
    assertThatThrownBy(() -> HadoopNiftiFiles.resolveInputs(conf, input.toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + input + NOT_REGULAR);
    Path entry = fifo("d/sub-b.nii.gz");
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, dir.resolve("d").toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + dir.resolve("d") + " (its entry sub-b.nii.gz)"
            + NOT_REGULAR);
    Files.delete(entry);
    Path list = fifo("list.txt");
    assertThatThrownBy(() -> HadoopNiftiFiles.resolveInputs(conf, list.toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + list + NOT_REGULAR);
    fifo("d/fifo.nii");
    Files.writeString(dir.resolve("d/list.txt"), "sub-a.nii.gz\nfifo.nii\n");
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, dir.resolve("d/list.txt").toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read the input list --input " + dir.resolve("d/list.txt")
            + " (its entry fifo.nii)" + NOT_REGULAR);
    Path mask = fifo("mask.nii.gz");
    assertThatThrownBy(() -> HadoopNiftiFiles.readMask(conf, mask.toString(), "--mask"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --mask " + mask + NOT_REGULAR);
  }

  @Test
  void aDirectoryAsMaskIsAUsageError() throws Exception {
    Path d = Files.createDirectories(dir.resolve("m.nii.gz"));
    assertThatThrownBy(() -> HadoopNiftiFiles.readMask(conf, d.toString(), "--mask"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --mask " + d + ": it is a directory, not a NIfTI file; name a"
            + " .nii or .nii.gz file");
  }

  @Test
  void aColonInAnImageNameIsJustACharacter() throws Exception {
    image("c:1/sub:a.nii.gz", 10);
    image("c:1/sub:b.nii.gz", 20);
    NiftiWriter.writeMask(dir.resolve("mask:1.nii.gz"), mask());
    Files.writeString(dir.resolve("c:1/list:1.txt"), "sub:a.nii.gz\nsub:b.nii.gz\n");
    List<String> fromDir =
        HadoopNiftiFiles.resolveInputs(conf, dir.resolve("c:1").toString(), "--input");
    assertThat(fromDir).hasSize(2);
    assertThat(HadoopNiftiFiles.resolveInputs(conf, dir.resolve("c:1/list:1.txt").toString(),
        "--input")).containsExactlyElementsOf(fromDir);
    for (String f : fromDir) {
      try (NiftiReader r = HadoopNiftiFiles.open(conf, f, "--input")) {
        assertThat(r.header().voxelsPerVolume()).isEqualTo(12);
      }
    }
    try (NiftiReader r = HadoopNiftiFiles.open(conf,
        dir.resolve("c:1/sub:a.nii.gz").toString(), "--input")) {
      assertThat(r.header().voxelsPerVolume()).isEqualTo(12);
    }
    assertThat(HadoopNiftiFiles.readMask(conf, dir.resolve("mask:1.nii.gz").toString(),
        "--mask").count()).isEqualTo(mask().count());
  }

  @Test
  void aSelfLoopingLinkAmongTheImagesIsRefusedNotDropped() throws Exception {
    image("d/sub-a.nii.gz", 10);
    image("d/sub-b.nii.gz", 20);
    Path loop = Files.createSymbolicLink(dir.resolve("d/sub-c.nii.gz"), dir.resolve("d/sub-c.nii.gz"));
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, dir.resolve("d").toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + dir.resolve("d") + " (its entry sub-c.nii.gz):"
            + " symlink loop (a symbolic link that leads back to itself); fix the link");
    Files.delete(loop);
    Files.createSymbolicLink(loop, dir.resolve("nowhere.nii.gz"));
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, dir.resolve("d").toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + dir.resolve("d") + " (its entry sub-c.nii.gz):"
            + " it is a symbolic link to a file that does not exist; fix the link or the path");
  }

  @Test
  void listsWithAByteOrderMarkBracketsInNamesAndAnalyzePairs() throws Exception {
    image("run[1]/sub-a.nii.gz", 10);
    image("run[1]/sub-b.nii.gz", 20);
    List<String> fromDir =
        HadoopNiftiFiles.resolveInputs(conf, dir.resolve("run[1]").toString(), "--input");
    assertThat(fromDir).hasSize(2);
    Files.writeString(dir.resolve("run[1]/list.txt"), "\uFEFFsub-a.nii.gz\nsub-b.nii.gz\n");
    assertThat(HadoopNiftiFiles.resolveInputs(conf, dir.resolve("run[1]/list.txt").toString(),
        "--input")).containsExactlyElementsOf(fromDir);
    Path hdr = Files.write(dir.resolve("scan.hdr"), new byte[348]);
    assertThatThrownBy(() -> HadoopNiftiFiles.resolveInputs(conf, hdr.toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot read --input " + hdr + ": .hdr/.img pairs (Analyze or two-file"
            + " NIfTI) are not supported; convert them to single .nii or .nii.gz files (e.g."
            + " nibabel: nib.save(nib.load(f), f[:-4] + '.nii.gz'))");
    Files.writeString(dir.resolve("list2.txt"), "scan.img\n");
    assertThatThrownBy(() ->
            HadoopNiftiFiles.resolveInputs(conf, dir.resolve("list2.txt").toString(), "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot read the input list --input " + dir.resolve("list2.txt")
            + ": it names scan.img, .hdr/.img pairs");
  }

  // The runs write NIfTI maps through the output directory (NiftiOutputs); the tests write
  // their inputs straight to a Hadoop file system.

  private static void writeMap(FileSystem fs, org.apache.hadoop.fs.Path file, NiftiMask mask,
      float[] values, float outside) {
    try (java.io.OutputStream out = fs.create(file, false)) {
      NiftiWriter.writeMap(out, mask, values, outside);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static void writeMask(FileSystem fs, org.apache.hadoop.fs.Path file, NiftiMask mask) {
    try (java.io.OutputStream out = fs.create(file, false)) {
      NiftiWriter.writeMask(out, mask);
    } catch (java.io.IOException e) {
      throw new java.io.UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }
}
