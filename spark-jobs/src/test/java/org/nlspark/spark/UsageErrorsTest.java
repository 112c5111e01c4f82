package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Parse errors: exit 2, one line, the flag or command named, and a suggestion when close. */
class UsageErrorsTest {
  private static CliRun usage(String... args) {
    CliRun r = CliRun.of(args);
    assertThat(r.code()).as(r.err()).isEqualTo(2);
    assertThat(r.err().strip().split("\n")).hasSize(1);
    assertThat(r.out()).isEmpty();
    return r;
  }

  @Test
  void aMisspeltOptionGetsTheCloseOnes() {
    assertThat(usage("bootstrap", "--input", "x.npy", "--output", "o", "--sample", "30").err())
        .isEqualTo("nlspark bootstrap: Unknown option --sample for bootstrap; did you mean"
            + " --samples? (see nlspark bootstrap --help)\n");
    assertThat(usage("one-sample", "--permutation", "30").err())
        .contains("Unknown option --permutation for one-sample")
        .contains("did you mean --permutations");
    assertThat(usage("isc", "--input", "d.npy", "--metrik=mean").err())
        .contains("Unknown option --metrik for isc; did you mean --metric");
  }

  @Test
  void aMisspeltOptionIsReportedBeforeTheRequiredOneItWasMeantToBe() {
    assertThat(usage("correlation", "--input", "x.npy", "--output", "o", "--targt", "y.npy")
        .err()).contains("Unknown option --targt", "did you mean --target");
  }

  @Test
  void aMisspeltCommandGetsTheCloseOnes() {
    assertThat(usage("bootsrap", "--input", "x.npy").err())
        .startsWith("nlspark bootsrap: Unknown command 'bootsrap'; the commands are [bootstrap,")
        .contains("did you mean bootstrap");
    assertThat(usage("one-sampel").err()).contains("did you mean one-sample");
    assertThat(usage("permute").err()).contains("Unknown command 'permute'")
        .doesNotContain("did you mean");
    assertThat(usage("--samples", "5").err()).contains("Unknown option --samples")
        .contains("see nlspark --help");
  }

  @Test
  void valuesAndRepeatsAreNamed() {
    assertThat(usage("bootstrap", "--input", "x", "--output", "o", "--samples", "1e3").err())
        .contains("--samples must be a whole number, but was: 1e3");
    assertThat(usage("bootstrap", "--input", "x", "--output", "o", "--confidence", "NaN").err())
        .contains("--confidence must be a finite number, but was: NaN");
    assertThat(usage("one-sample", "--input", "x", "--output", "o", "--partitions",
        "99999999999").err()).contains("--partitions must be at most 2147483647");
    assertThat(usage("bootstrap", "--input", "x", "--input", "y", "--output", "o").err())
        .contains("--input was given twice");
    assertThat(usage("bootstrap", "--input", "x", "--output").err())
        .contains("--output needs a value");
    assertThat(usage("bootstrap", "stray", "--input", "x", "--output", "o").err())
        .contains("Cannot parse 'stray' for bootstrap: every option is a --flag");
    assertThat(usage("two-sample", "--input", "x", "--output", "o").err())
        .isEqualTo("nlspark two-sample: Cannot run two-sample: --input2 is required\n");
  }

  @Test
  void aPathStartingWithAtIsAPathNotAnArgumentFile() {
    // picocli would expand "@name" from a file; nlspark takes it as the path it is.
    CliRun r = CliRun.of("one-sample", "--input", "@no-such.npy", "--output", "o-at");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains("@no-such.npy");
  }

  @Test
  void helpWorksAfterOtherOptionsAndThroughTheHelpCommand() {
    CliRun late = CliRun.of("bootstrap", "--samples", "10", "--help");
    assertThat(late.code()).isZero();
    assertThat(late.out()).startsWith("Usage: nlspark bootstrap");
    CliRun viaHelp = CliRun.of("help", "isc");
    assertThat(viaHelp.code()).isZero();
    assertThat(viaHelp.out()).startsWith("Usage: nlspark isc");
    CliRun tool = CliRun.of("-h");
    assertThat(tool.code()).isZero();
    assertThat(tool.out()).contains("Exit codes", "130/143", "spark.nlspark.");
  }
}
