package org.nlspark.core.isc;

import org.nlspark.core.engine.LocalEngine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.NpyDtype;
import org.nlspark.core.result.Output;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/** Bit-identical ISC across thread counts and tile groupings; bad input refused early. */
class IscDeterminismAndInputTest {
  @Test
  void everyOutputIsBitIdenticalForAnyThreadCountAndTilesAtOnce() {
    double[] d = IscTest.data(21);
    for (IscNull nul : IscNull.values()) {
      for (IscSummary summary : IscSummary.values()) {
        for (IscMetric metric : IscMetric.values()) {
          Isc.Options base = new Isc.Options(summary, metric, nul, 150, 0.95, Tail.UPPER, true,
              8L, false, new Grid(2, 32));
          IscResult one = Isc.run(new LocalEngine(1, Grid.DEFAULT, null), d, IscTest.S,
              IscTest.T, IscTest.V, base);
          IscResult many = Isc.run(new LocalEngine(3, Grid.DEFAULT, null), d, IscTest.S,
              IscTest.T, IscTest.V, base);
          for (Output o : one.outputs()) {
            assertThat(many.output(o.name())).as(nul + "/" + summary + "/" + metric + " "
                + o.name()).isEqualTo(o.values());
          }
        }
      }
    }
  }

  @Test
  void blocksComputedInAnyOrderThroughBytesMergeToTheSameBits() {
    double[] d = IscTest.data(31);
    for (IscNull nul : IscNull.values()) {
      Isc.Options o = new Isc.Options(IscSummary.PAIRWISE, IscMetric.MEDIAN, nul, 90, 0.9,
          Tail.TWO, true, 5L, false, new Grid(3, 16));
      IscResult whole = Isc.run(d, IscTest.S, IscTest.T, IscTest.V, o);
      java.util.List<Isc.BlockOutcome> outs = new java.util.ArrayList<>();
      for (int b : new int[] {2, 0, 1}) {
        outs.add(Isc.BlockOutcome.fromBytes(
            Isc.block(d, IscTest.S, IscTest.T, IscTest.V, b, o).toBytes()));
      }
      IscResult merged = Isc.merge(outs, IscTest.V, o);
      for (Output out : whole.outputs()) {
        assertThat(merged.output(out.name())).as(nul + " " + out.name()).isEqualTo(out.values());
      }
      java.util.List<Isc.BlockOutcome> twice = new java.util.ArrayList<>(outs);
      twice.add(outs.get(0));
      assertThatThrownBy(() -> Isc.merge(twice, IscTest.V, o))
          .hasMessage("[BUG] cannot merge the outcome of block 2 (1 voxels) into 3 blocks of 7"
              + " voxels: it was merged before");
      assertThatThrownBy(() -> Isc.merge(outs.subList(0, 2), IscTest.V, o))
          .hasMessage("[BUG] the outcome of block 1 is missing");
    }
  }

  @Test
  void badInputIsRefusedWithTheFlagAndTheValue() {
    Isc.Options o = Isc.Options.defaults(IscNull.BOOTSTRAP, 10, 1L);
    assertThatThrownBy(() -> Isc.run(new double[2 * 5 * 3], 2, 5, 3, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run isc: need at least 3 subjects (axis 0 of --input), but the input"
            + " has 2");
    assertThatThrownBy(() -> Isc.run(new double[4 * 2 * 3], 4, 2, 3, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run isc: need at least 3 time points (axis 1 of --input), but the input"
            + " has 2");
    double[] d = IscTest.data(3);
    d[17] = Double.NaN;
    assertThatThrownBy(() -> Isc.run(d, IscTest.S, IscTest.T, IscTest.V, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run isc: --input contains NaN at flat index 17; remove or impute"
            + " non-finite values first");
    NpyArray two = new NpyArray(NpyDtype.FLOAT64, new long[] {12, 35}, new double[12 * 35]);
    assertThatThrownBy(() -> Isc.run(two, o))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("Cannot run isc: --input must be 3-D (subjects, timepoints, voxels), but has"
            + " shape (12, 35)");
    assertThatThrownBy(() -> Isc.Options.defaults(IscNull.CIRCLE_SHIFT, 0, 1L))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--permutations must be in [1, 2147483639], but was: 0");
    assertThatThrownBy(() -> new Isc.Options(IscSummary.PAIRWISE, IscMetric.MEAN,
        IscNull.BOOTSTRAP, 10, 1.0, Tail.TWO, true, 1L, false, Grid.DEFAULT))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--confidence must be in (0, 1), but was: 1.0");
    assertThatThrownBy(() -> IscSummary.parse("all"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--summary must be one of pairwise, leave-one-out, but was: 'all'");
    assertThatThrownBy(() -> IscMetric.parse("mode"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--metric must be one of median, mean, but was: 'mode'");
    assertThatThrownBy(() -> IscNull.parse("permute"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--null must be one of bootstrap, circle-shift, phase-randomize, but was:"
            + " 'permute'");
  }
}
