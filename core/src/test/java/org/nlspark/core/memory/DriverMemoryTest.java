package org.nlspark.core.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.ResourceRefusedException;

/**
 * What grows with the replicates on the driver is refused before any work when it cannot fit
 * the driver's heap, with the heap that would do; what fits passes.
 */
class DriverMemoryTest {
  private static final long GIB = 1L << 30;

  @Test
  void aBillionPermutationsAreRefusedWithTheHeapTheyNeed() {
    DriverMemory.Need need = DriverMemory.nullDistributions(1_000_000_001L, 1);
    assertThat(need.bytes()).isEqualTo(48L * 1_000_000_001L);
    assertThatThrownBy(() -> DriverMemory.check("one-sample", need, 6 * GIB))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessage("Cannot start one-sample: the driver would hold 48 GB for the null"
            + " distribution of 1000000001 replicates, more than 60% of its 6.44245 GB heap; ask"
            + " for fewer replicates, or give the driver a heap of at least 76 GiB"
            + " (NLSPARK_JAVA_OPTS=-Xmx76g on one machine, spark.driver.memory on a cluster)");
    // the heap it names is enough
    assertThatCode(() -> DriverMemory.check("one-sample", need, 76 * GIB))
        .doesNotThrowAnyException();
  }

  @Test
  void usualRunsFitEasily() {
    DriverMemory.Need glm = DriverMemory.nullDistributions(10_001, 3 * 4);
    assertThat(glm.bytes()).isEqualTo(48L * 10_001 * 12);
    assertThatCode(() -> DriverMemory.check("glm", glm, GIB / 4)).doesNotThrowAnyException();
    assertThatCode(() -> DriverMemory.check("bootstrap", DriverMemory.Need.NONE, 1))
        .doesNotThrowAnyException();
  }

  @Test
  void savedSamplesCountEveryCopyTheMergeHolds() {
    DriverMemory.Need need = DriverMemory.savedSamples(250, 100_000);
    assertThat(need.bytes()).isEqualTo(250L * 100_000 * 8 * 4);
    assertThatThrownBy(() -> DriverMemory.check("bootstrap", need, GIB))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("the saved samples (250 replicates x 100000 voxels")
        .hasMessageContaining("at least 3 GiB");
    // 200 samples fit the same heap, as they did when measured
    assertThatCode(() -> DriverMemory.check("bootstrap", DriverMemory.savedSamples(200, 100_000),
        GIB)).doesNotThrowAnyException();
    assertThat(need.plus(DriverMemory.nullDistributions(250, 1)).bytes())
        .isEqualTo(need.bytes() + 48L * 250);
  }

  @Test
  void moreReplicatesThanOneArrayHoldsAreRefused() {
    DriverMemory.Need need = DriverMemory.nullDistributions(3_000_000_000L, 1);
    assertThatThrownBy(() -> DriverMemory.check("one-sample", need, Long.MAX_VALUE))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("more than one array can hold");
  }
}
