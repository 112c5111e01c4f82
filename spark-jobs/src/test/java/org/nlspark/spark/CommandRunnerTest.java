package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * The Python package's entry point: the same command in the caller's session writes the same
 * bytes as {@link Main#run}, and throws what Main maps to exit 2 and 3, with Main's sentence.
 */
class CommandRunnerTest {
  @TempDir Path dir;

  @Test
  void sameBytesAsTheCommandLine() {
    Path x = TestData.matrix(dir, "x.npy", 8, 12, TestData.gaussian(5, 8, 12, 0.3));
    String[] common = {"one-sample", "--input", x.toString(), "--permutations", "50",
        "--seed", "7", "--quiet", "--output"};
    String[] viaRunner = append(common, dir.resolve("runner").toString());
    String[] printed = CommandRunner.run(SharedSpark.get(), viaRunner);
    assertThat(printed).hasSize(2);
    CliRun cli = CliRun.of(append(common, dir.resolve("cli").toString()));
    assertThat(cli.code()).as(cli.err()).isZero();
    for (String f : new String[] {"observed.npy", "p.npy", "p_fwer.npy", "null_max.npy"}) {
      assertThat(TestData.bytes(dir.resolve("runner").resolve(f)))
          .as(f).isEqualTo(TestData.bytes(dir.resolve("cli").resolve(f)));
    }
  }

  @Test
  void badInputIsThrownWithTheCommandLinesSentence() {
    Path x = TestData.matrix(dir, "x.npy", 4, 3, TestData.gaussian(1, 4, 3, 0));
    String[] args = {"one-sample", "--input", x.toString(), "--permutations", "0", "--output",
        dir.resolve("o").toString()};
    Throwable t = catchThrowable(() -> CommandRunner.run(SharedSpark.get(), args));
    CliRun cli = CliRun.of(args);
    assertThat(cli.code()).isEqualTo(2);
    assertThat(t).isInstanceOf(InvalidInputException.class);
    assertThat("nlspark one-sample: " + t.getMessage()).isEqualTo(cli.err().strip());
  }

  @Test
  void aMisspeltOptionIsInvalidInput() {
    Throwable t = catchThrowable(() -> CommandRunner.run(SharedSpark.get(),
        new String[] {"one-sample", "--permutation", "5"}));
    assertThat(t).isInstanceOf(InvalidInputException.class).hasMessageContaining("--permutation");
  }

  @Test
  void refusedResourcesAreThrownAsSuch() {
    Path x = TestData.matrix(dir, "x.npy", 4, 3, TestData.gaussian(1, 4, 3, 0));
    Throwable t = catchThrowable(() -> CommandRunner.run(SharedSpark.get(), new String[] {
        "ridge-bootstrap", "--input", x.toString(), "--target", x.toString(), "--backend", "gpu",
        "--output", dir.resolve("o").toString()}));
    assertThat(t).isInstanceOf(ResourceRefusedException.class)
        .hasMessage("Cannot run ridge-bootstrap on a GPU: a GPU was requested explicitly"
            + " (--backend gpu), but this command has CPU kernels only; use --backend cpu or"
            + " auto");
  }

  @Test
  void noVersionFromAClassDirectory() {
    assertThat(CommandRunner.version()).isNull();
  }

  private static String[] append(String[] a, String last) {
    String[] out = java.util.Arrays.copyOf(a, a.length + 1);
    out[a.length] = last;
    return out;
  }
}
