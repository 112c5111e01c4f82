package org.nlspark.spark.errors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import org.junit.jupiter.api.Test;
import org.nlspark.core.ResourceRefusedException;

/** The open-file limit as a resource: the headroom check and the words for EMFILE. */
class OpenFileLimitTest {
  @Test
  void tooLittleHeadroomForSparkIsRefusedWithTheLimitAndTheFix() {
    assertThatThrownBy(() -> OpenFileLimit.checkHeadroom(250, 206))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessage("Cannot start Spark: too many open files for the open-file limit (ulimit -n"
            + " 250): 206 are open already and Spark needs about 128 more; raise the limit with"
            + " ulimit -n 4096 (or more; ulimit -Hn is the highest allowed) and run again");
    // the suggestion is at least four times the limit, a power of two from 4096 up
    assertThatThrownBy(() -> OpenFileLimit.checkHeadroom(3000, 2900))
        .hasMessageEndingWith("raise the limit with ulimit -n 16384 (or more; ulimit -Hn is the"
            + " highest allowed) and run again");
    assertThatCode(() -> OpenFileLimit.checkHeadroom(206 + 128, 206)).doesNotThrowAnyException();
    assertThatThrownBy(() -> OpenFileLimit.checkHeadroom(206 + 127, 206))
        .isInstanceOf(ResourceRefusedException.class);
  }

  @Test
  void emfileIsFoundInTheChainInJavasAndErrnosWords() {
    // Spark's start: netty's event loop, its selector, the operating system's EMFILE
    Throwable spark = new IllegalStateException("failed to create a child event loop",
        new RuntimeException("failed to open a new selector",
            new IOException("Too many open files")));
    assertThat(OpenFileLimit.causedBy(spark)).isTrue();
    // a process Hadoop forks (chmod) when the limit is reached
    assertThat(OpenFileLimit.causedBy(new IOException("Cannot run program \"chmod\":"
        + " error=24, Too many open files"))).isTrue();
    assertThat(OpenFileLimit.isEmfile("Cannot run program \"rm\": error=24, x")).isTrue();
    assertThat(OpenFileLimit.causedBy(new IOException("No space left on device"))).isFalse();
    assertThat(OpenFileLimit.causedBy(new IOException((String) null))).isFalse();
  }

  @Test
  void theRefusalNamesThisProcesssLimit() {
    long limit = OpenFileLimit.limit();
    ResourceRefusedException e = OpenFileLimit.refusal("Cannot write --output /o (p.npy): ",
        new IOException("Too many open files"));
    long suggested = 4096;
    while (suggested < 4 * limit) {
      suggested *= 2;
    }
    assertThat(limit).isPositive(); // Linux and macOS say
    assertThat(e).hasMessage("Cannot write --output /o (p.npy): too many open files (the"
        + " open-file limit is ulimit -n " + limit + "); raise the limit with ulimit -n "
        + suggested + " (or more; ulimit -Hn is the highest allowed) and run again");
  }
}
