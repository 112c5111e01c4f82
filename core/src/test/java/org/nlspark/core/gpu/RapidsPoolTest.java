package org.nlspark.core.gpu;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RapidsPoolTest {
  /** Stand-ins with cuDF's method names, to exercise the reflection without cuDF. */
  public static final class FakeRmm {
    static boolean initialized;

    public static boolean isInitialized() {
      return initialized;
    }

    public static long getPoolSize() {
      return 1000L;
    }

    public static long getTotalBytesAllocated() {
      return 250L;
    }
  }

  public static final class FakeBuffer implements AutoCloseable {
    public static FakeBuffer allocate(long bytes) {
      if (bytes > 1000) {
        throw new IllegalStateException("Could not allocate: out of memory in the pool");
      }
      return new FakeBuffer();
    }

    public long getAddress() {
      return 42L;
    }

    @Override
    public void close() {}
  }

  private static final ClassLoader LOADER = RapidsPoolTest.class.getClassLoader();
  private static final String RMM = FakeRmm.class.getName();
  private static final String BUF = FakeBuffer.class.getName();

  @Test
  void withoutCudfThereIsNoPoolAndTheReasonSaysSo() {
    assertThat(RapidsPool.detect()).isEmpty();
    assertThat(RapidsPool.absenceReason())
        .isEqualTo("ai.rapids.cudf.Rmm is not on the class path");
  }

  @Test
  void anUninitialisedPoolIsNotUsed() {
    FakeRmm.initialized = false;
    assertThat(RapidsPool.detect(LOADER, RMM, BUF)).isEmpty();
    assertThat(RapidsPool.absenceReason(LOADER, RMM, BUF))
        .isEqualTo("RAPIDS is on the class path but its memory pool is not initialised");
  }

  @Test
  void anInitialisedPoolIsUsedAndReportsItsFreeBytes() {
    FakeRmm.initialized = true;
    try {
      RapidsPool pool = RapidsPool.detect(LOADER, RMM, BUF).orElseThrow();
      assertThat(pool.freeBytes()).hasValue(750L);
      assertThat(RapidsPool.absenceReason(LOADER, RMM, BUF)).isNull();
    } finally {
      FakeRmm.initialized = false;
    }
  }

  @Test
  void outOfMemoryIsRecognisedByNameOrMessage() {
    assertThat(RapidsPool.isOutOfMemory(new IllegalStateException("out of memory in the pool")))
        .isTrue();
    assertThat(RapidsPool.isOutOfMemory(new RuntimeException(new OutOfMemoryError("x"))))
        .isTrue();
    assertThat(RapidsPool.isOutOfMemory(new IllegalArgumentException("bad size"))).isFalse();
  }
}
