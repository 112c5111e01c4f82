package org.nlspark.core.tile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** Every merger's bookkeeping: each tile of the plan exactly once. */
class TileLedgerTest {
  @Test
  void countsEachTileOnceInAnyOrderAndSumsWhatTheyReport() {
    TileLedger ledger = new TileLedger(4, "tiles");
    for (int index : new int[] {2, 0, 3, 1}) {
      ledger.record(index, 10L * index, index);
    }
    ledger.checkComplete();
    assertThat(ledger.received()).isEqualTo(4);
    assertThat(ledger.flops()).isEqualTo(60);
    assertThat(ledger.kernelNanos()).isEqualTo(6);
  }

  @Test
  void aTileMergedTwiceOrNeverOrOutsideThePlanIsABug() {
    TileLedger ledger = new TileLedger(3, "TFCE tiles");
    ledger.record(1, 0, 0);
    assertThatThrownBy(() -> ledger.record(1, 0, 0))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] tile 1 was merged twice");
    assertThatThrownBy(() -> ledger.record(3, 0, 0))
        .hasMessage("[BUG] tile 3 is not one of the plan's 3 TFCE tiles");
    ledger.record(2, 0, 0);
    assertThatThrownBy(ledger::checkComplete)
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("[BUG] merged 2 of 3 TFCE tiles; tile 0 was never merged");
  }
}
