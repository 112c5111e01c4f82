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
}
