package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.tile.Grid;

/** bootstrap writes observed.npy: the statistic on the full data, not the mean of the draws. */
class BootstrapObservedTest {
  @Test
  void observedIsTheStatisticOfTheFullDataForEveryStatistic() {
    // columns: 1,2,3,10 (mean 4, median 2.5) and 5,5,5,5
    double[] x = {1, 5, 2, 5, 3, 5, 10, 5};
    DataMatrix m = DataMatrix.of(4, 2, x, "--input");
    double[][] expected = {
        {4, 5}, {2.5, 5}, {Math.sqrt((9 + 4 + 1 + 36) / 4.0), 0}, {16, 20}, {1, 5}, {10, 5}};
    String[] stats = {"mean", "median", "std", "sum", "min", "max"};
    for (int i = 0; i < stats.length; i++) {
      JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).statistic(stats[i]).replicates(50)
          .seed(1).build();
      BootstrapResult r = (BootstrapResult) new LocalEngine(1, Grid.DEFAULT, null)
          .run(spec, JobInputs.of(m)).result;
      assertThat(r.observed).as(stats[i]).containsExactly(expected[i]);
      assertThat(r.outputs().get(0).name()).isEqualTo("observed");
    }
  }
}
