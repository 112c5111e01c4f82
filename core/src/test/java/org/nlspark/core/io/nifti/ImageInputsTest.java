package org.nlspark.core.io.nifti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;

class ImageInputsTest {
  @TempDir Path dir;

  private Path touch(String relative) throws Exception {
    Path p = dir.resolve(relative);
    Files.createDirectories(p.getParent());
    Files.write(p, new byte[] {1});
    return p;
  }

  @Test
  void listKeepsItsOrderAndResolvesRelativePathsAgainstItsDirectory() throws Exception {
    Path a = touch("data/sub-02.nii.gz");
    Path b = touch("data/sub-01.nii.gz");
    Path abs = touch("elsewhere/x.nii");
    Path list = dir.resolve("data/subjects.txt");
    Files.writeString(list, "# subjects\nsub-02.nii.gz\n\n  sub-01.nii.gz  \r\n" + abs + "\n");
    assertThat(ImageInputs.resolve(list)).containsExactly(a, b, abs);
  }

  @Test
  void listNamingAMissingFileIsRefused() throws Exception {
    touch("data/sub-01.nii");
    Path list = dir.resolve("data/list.txt");
    Files.writeString(list, "sub-01.nii\nsub-09.nii\n");
    assertThatThrownBy(() -> ImageInputs.resolve(list))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot read the input list " + list + ": it names sub-09.nii")
        .hasMessageContaining("does not exist (relative paths are relative to the list file)");
    Files.writeString(list, "# nothing\n\n");
    assertThatThrownBy(() -> ImageInputs.resolve(list))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("it names no file");
  }

  @Test
  void directorySortsNiftiFilesByByteOrderAndSkipsOthers() throws Exception {
    Path d = dir.resolve("d");
    List<Path> expected = new ArrayList<>();
    expected.add(touch("d/B.nii"));
    expected.add(touch("d/a10.nii.gz"));
    expected.add(touch("d/a2.nii.gz"));
    expected.add(touch("d/b.nii"));
    touch("d/_SUCCESS");
    touch("d/.hidden.nii");
    touch("d/notes.txt");
    assertThat(ImageInputs.resolve(d)).containsExactlyElementsOf(expected);
    Path empty = dir.resolve("empty");
    Files.createDirectories(empty);
    assertThatThrownBy(() -> ImageInputs.resolve(empty))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot read the input directory " + empty
            + ": it holds no .nii or .nii.gz file");
  }

  @Test
  void byteOrderDiffersFromUtf16OrderForSupplementaryCharacters() {
    // U+FF21 is EF BC A1 in UTF-8, U+1F600 is F0 9F 98 80: bytes put U+FF21 first, while
    // String.compareTo (UTF-16: FF21 vs D83D) puts U+1F600 first.
    String fullwidthA = "\uFF21.nii";
    String emoji = new String(Character.toChars(0x1F600)) + ".nii";
    assertThat(ImageInputs.BYTE_ORDER.compare(fullwidthA, emoji)).isNegative();
    assertThat(fullwidthA.compareTo(emoji)).isPositive();
  }

  @Test
  void globMatchesAcrossDirectoriesSortedByPath() throws Exception {
    Path s2 = touch("g/sub-2/func.nii.gz");
    Path s1 = touch("g/sub-1/func.nii.gz");
    touch("g/sub-1/anat.nii.gz");
    touch("g/other/func.nii.gz");
    assertThat(ImageInputs.resolve(dir.resolve("g/sub-*/func.nii.gz"))).containsExactly(s1, s2);
    assertThat(ImageInputs.resolve(dir.resolve("g/sub-1/*.nii.gz")))
        .containsExactly(dir.resolve("g/sub-1/anat.nii.gz"), s1);
    assertThatThrownBy(() -> ImageInputs.resolve(dir.resolve("g/none-*/x.nii")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("the glob matches no file");
  }

  @Test
  void singleFileAndMissingInput() throws Exception {
    Path one = touch("four.nii.gz");
    assertThat(ImageInputs.resolve(one)).containsExactly(one);
    assertThatThrownBy(() -> ImageInputs.resolve(dir.resolve("missing.txt")))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("missing.txt: it does not exist");
    assertThat(ImageInputs.isGlob("a/{x,y}.nii")).isTrue();
    assertThat(ImageInputs.isNiftiName("A.NII.GZ")).isTrue();
    assertThat(ImageInputs.isNiftiName("a.npy")).isFalse();
  }

  /** Issue 41 case 11: the numbers in names, counted, against the byte order taken. */
  @Test
  void byteOrderIsComparedWithTheNumbersInTheNames() {
    List<String> names = new ArrayList<>(List.of("sub-2", "sub-10", "sub-1", "sub-01", "a",
        "sub-1b", "run-10_sub-2", "run-9_sub-3"));
    names.sort(ImageInputs.NATURAL_ORDER);
    assertThat(names).containsExactly("a", "run-9_sub-3", "run-10_sub-2", "sub-01", "sub-1",
        "sub-1b", "sub-2", "sub-10");
    assertThat(ImageInputs.displayNames(List.of("file:/d/s/sub-1/a.nii", "file:/d/s/sub-2/a.nii")))
        .containsExactly("sub-1/a.nii", "sub-2/a.nii");
    List<String> files = new ArrayList<>();
    for (int s = 1; s <= 12; s++) {
      files.add("file:/data/sub-" + s + ".nii.gz");
    }
    files.sort(ImageInputs.BYTE_ORDER);
    assertThat(ImageInputs.byteOrderWarning("--input /data", files)).startsWith("--input /data"
        + " takes its 12 files in the byte order of their names (sub-1.nii.gz, sub-10.nii.gz,"
        + " sub-11.nii.gz, sub-12.nii.gz, sub-2.nii.gz, sub-3.nii.gz, ...), not in the order of"
        + " the numbers in them (sub-2.nii.gz before sub-10.nii.gz)");
    List<String> padded = new ArrayList<>();
    for (int s = 1; s <= 12; s++) {
      padded.add(String.format("file:/data/sub-%02d.nii.gz", s));
    }
    assertThat(ImageInputs.byteOrderWarning("--input /data", padded)).isNull();
  }

  /** Issue 41 case 3: what a default mask left out, counted apart. */
  @Test
  void theDefaultMaskCountsWhatItLeftOut() {
    DefaultMaskBuilder b = new DefaultMaskBuilder(6);
    b.add(new float[] {1, 0, Float.NaN, 0, 2, Float.POSITIVE_INFINITY});
    b.add(new double[] {1, 0, 3, 0, 0, 1});
    NiftiMask m = b.build(NiftiHeader.builder().shape(6, 1, 1).build());
    assertThat(m.count()).isEqualTo(2);
    assertThat(m.droppedNonFinite()).isEqualTo(2);
    assertThat(m.droppedAllZero()).isEqualTo(2);
    NiftiMask given = NiftiMask.fromSelection(NiftiHeader.builder().shape(6, 1, 1).build(),
        new boolean[] {true, true, true, true, true, true}, "given");
    assertThat(given.droppedNonFinite()).isEqualTo(-1);
  }
}
