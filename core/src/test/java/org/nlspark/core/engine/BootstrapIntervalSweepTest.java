package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.accumulate.BootstrapSummary;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscMetric;
import org.nlspark.core.isc.IscNull;
import org.nlspark.core.isc.IscResult;
import org.nlspark.core.isc.IscSummary;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.ridge.RidgeAnalysis;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.ridge.RidgeResult;
import org.nlspark.core.stats.NumpyPercentile;
import org.nlspark.core.tile.Grid;

/**
 * Every bootstrap-based analysis (bootstrap, isc with the bootstrap null, ridge bootstrap) over
 * B = 2..400 and six confidences: no internal error (the retained tails always hold the ranks the
 * interval's q needs), and each percentile interval equals numpy's linear percentile of the
 * saved draws.
 */
class BootstrapIntervalSweepTest {
  private static final double[] CONFIDENCES = {0.4, 0.5, 0.8, 0.9, 0.95, 0.999};
  private static final LocalEngine ENGINE = new LocalEngine(1, Grid.DEFAULT, null);

  @Test
  void everyBootstrapAnalysisMatchesNumpyPercentilesOfItsSavedDraws() {
    SplittableRandom rng = new SplittableRandom(3);
    double[] x = rng.doubles(6 * 2).toArray();
    double[] bold = rng.doubles(3 * 5 * 2).toArray();
    double[] design = rng.doubles(6 * 2).toArray();
    double[] target = rng.doubles(6).toArray();
    for (double c : CONFIDENCES) {
      for (int b = 2; b <= 400; b++) {
        String at = "B=" + b + " c=" + c;
        JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).replicates(b).confidence(c)
            .saveSamples(true).seed(b).build();
        BootstrapResult boot = (BootstrapResult) ENGINE.run(spec,
            JobInputs.of(DataMatrix.of(6, 2, x, "--input"))).result;
        check(at + " bootstrap", boot.samples, b, 2, c, boot.ciLower, boot.ciUpper);

        Isc.Options o = new Isc.Options(IscSummary.PAIRWISE, IscMetric.MEAN, IscNull.BOOTSTRAP,
            b, c, Tail.TWO, true, b, true, Grid.DEFAULT);
        IscResult isc = Isc.run(ENGINE, bold, 3, 5, 2, o);
        check(at + " isc", isc.samples, b, 2, c, isc.ciLower, isc.ciUpper);

        RidgeResult ridge = RidgeBootstrap.run(ENGINE,
            new RidgeAnalysis.Data(design, 6, 2, target, 1, null, 0), new RidgeBootstrap.Options(0.5, b, c, b, true, 1.0));
        check(at + " ridge", ridge.samples, b, 2, c, ridge.ciLower, ridge.ciUpper);
      }
    }
  }

  private static void check(String at, double[] samples, int b, int width, double c,
      double[] lower, double[] upper) {
    assertThat(samples).as(at).hasSize(b * width);
    for (int v = 0; v < width; v++) {
      double[] column = new double[b];
      for (int r = 0; r < b; r++) {
        column[r] = samples[r * width + v];
      }
      Arrays.sort(column);
      assertThat(lower[v]).as(at + " lower, voxel " + v)
          .isEqualTo(NumpyPercentile.ofSorted(column, BootstrapSummary.lowerPercentile(c)));
      assertThat(upper[v]).as(at + " upper, voxel " + v)
          .isEqualTo(NumpyPercentile.ofSorted(column, BootstrapSummary.upperPercentile(c)));
    }
  }
}
