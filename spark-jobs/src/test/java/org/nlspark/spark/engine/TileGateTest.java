package org.nlspark.spark.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.spark.budget.ExecutorBudget;

/** The gate lets no more of a run's tiles into one executor at once than the plan allows. */
class TileGateTest {
  private static TilePlan plan(int concurrent) {
    return new TilePlan(new Grid(4, 8), 16, 64, 1, concurrent, 1000, 0, 1.0, "test");
  }

  @Test
  void atMostThePlannedTilesRunAtOnceAndAnOpenGateHoldsNoneBack() throws Exception {
    ExecutorBudget fourSlots = ExecutorBudget.compute(4L << 30, 0.6, 4, 1, 1, false, null);
    assertThat(TileGate.of("r0", plan(4), fourSlots).permits()).isZero();
    TileGate gate = TileGate.of("r1", plan(2), fourSlots);
    assertThat(gate.permits()).isEqualTo(2);
    AtomicInteger inside = new AtomicInteger();
    AtomicInteger most = new AtomicInteger();
    ExecutorService pool = Executors.newFixedThreadPool(4);
    try {
      List<Future<Integer>> tiles = new ArrayList<>();
      for (int t = 0; t < 16; t++) {
        int id = t;
        tiles.add(pool.submit(() -> gate.through(() -> {
          most.accumulateAndGet(inside.incrementAndGet(), Math::max);
          try {
            Thread.sleep(5);
          } catch (InterruptedException e) {
            throw new IllegalStateException(e);
          }
          inside.decrementAndGet();
          return id;
        })));
      }
      for (int t = 0; t < 16; t++) {
        assertThat(tiles.get(t).get()).isEqualTo(t);
      }
    } finally {
      pool.shutdownNow();
      TileGate.close("r1");
    }
    assertThat(most.get()).isEqualTo(2);
  }
}
