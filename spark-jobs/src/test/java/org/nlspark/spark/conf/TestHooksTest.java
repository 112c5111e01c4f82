package org.nlspark.spark.conf;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The fault hooks in one place: each fires only where and when it is asked to. */
class TestHooksTest {
  @Test
  void noHookDoesNothing() {
    for (int tile = 0; tile < 4; tile++) {
      TestHooks.NONE.beforeTile(tile, 0, 1);
    }
  }

  @Test
  void theFailingTileFailsOnItsFirstAttemptOnly() {
    TestHooks hooks = new TestHooks(2, 0);
    hooks.beforeTile(1, 0, 5);
    assertThatThrownBy(() -> hooks.beforeTile(2, 0, 5))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("Injected failure of tile 2 on its first attempt ("
            + NlsparkConf.TEST_FAIL_ONCE_TILE + ")");
    hooks.beforeTile(2, 1, 5);
  }

  @Test
  void tileZeroIsHeldOnItsFirstAttemptOnly() {
    TestHooks hooks = new TestHooks(-1, 80);
    long start = System.nanoTime();
    hooks.beforeTile(0, 0, 3);
    assertThat((System.nanoTime() - start) / 1e6).isGreaterThanOrEqualTo(80);
    start = System.nanoTime();
    hooks.beforeTile(0, 1, 3);
    hooks.beforeTile(1, 0, 3);
    assertThat((System.nanoTime() - start) / 1e6).isLessThan(80);
  }

  @Test
  void theWriterPausesOnlyAtTheNamedPoint() {
    String old = System.getProperty(TestHooks.PAUSE_PROPERTY);
    System.setProperty(TestHooks.PAUSE_PROPERTY, "between-renames:80");
    try {
      long start = System.nanoTime();
      TestHooks.pauseAt("first-write");
      assertThat((System.nanoTime() - start) / 1e6).isLessThan(80);
      start = System.nanoTime();
      TestHooks.pauseAt("between-renames");
      assertThat((System.nanoTime() - start) / 1e6).isGreaterThanOrEqualTo(80);
    } finally {
      if (old == null) {
        System.clearProperty(TestHooks.PAUSE_PROPERTY);
      } else {
        System.setProperty(TestHooks.PAUSE_PROPERTY, old);
      }
    }
  }
}
