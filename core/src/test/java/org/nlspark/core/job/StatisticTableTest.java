package org.nlspark.core.job;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

/** The statistic table is what every command accepts and what each kernel family computes. */
class StatisticTableTest {
  @Test
  void eachAnalysisAcceptsItsRowsInTableOrderAndItsDefaultIsOneOfThem() {
    assertThat(Analysis.BOOTSTRAP.statistics())
        .containsExactly("mean", "median", "std", "sum", "min", "max");
    assertThat(Analysis.ONE_SAMPLE.statistics()).containsExactly("mean", "t");
    assertThat(Analysis.TWO_SAMPLE.statistics()).containsExactly("mean-diff", "welch-t");
    assertThat(Analysis.CORRELATION.statistics()).containsExactly("pearson", "spearman");
    for (Analysis a : Analysis.values()) {
      assertThat(a.statistics()).contains(a.defaultStatistic());
      assertThat(JobSpec.builder(a).build().statisticRow().statisticName())
          .isEqualTo(a.defaultStatistic());
    }
  }

  @Test
  void aNameOfAnotherAnalysisIsAUsageErrorListingTheAcceptedOnes() {
    assertThat(Statistic.of(Analysis.ONE_SAMPLE, "t")).isEqualTo(Statistic.SIGN_FLIP_T);
    assertThat(Statistic.of(Analysis.BOOTSTRAP, "mean")).isEqualTo(Statistic.BOOTSTRAP_MEAN);
    assertThatThrownBy(() -> Statistic.of(Analysis.ONE_SAMPLE, "median"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--stat must be one of [mean, t] for one-sample, but was: median");
    assertThatThrownBy(() -> JobSpec.builder(Analysis.TWO_SAMPLE).statistic("t").build())
        .isInstanceOf(InvalidInputException.class).hasMessageContaining("[mean-diff, welch-t]");
  }

  @Test
  void orderStatisticsAreTheOnlyRowsWithoutAGemm() {
    for (Statistic s : Statistic.values()) {
      boolean order = s.kernel() == Statistic.Kernel.BOOTSTRAP_ORDER;
      assertThat(order).as(s.label())
          .isEqualTo(s.analysis() == Analysis.BOOTSTRAP
              && (s.statisticName().equals("median") || s.statisticName().equals("min")
                  || s.statisticName().equals("max")));
    }
  }

  /** What the dispatch chose, as "family variant". */
  private static final Statistic.Dispatch<String> NAMES = new Statistic.Dispatch<>() {
    @Override
    public String bootstrapLinear(Statistic.Reduction reduction) {
      return Statistic.Kernel.BOOTSTRAP_LINEAR + " " + reduction.name().toLowerCase();
    }

    @Override
    public String bootstrapOrder(Statistic.Order order) {
      return Statistic.Kernel.BOOTSTRAP_ORDER + " " + order.name().toLowerCase();
    }

    @Override
    public String signFlip(boolean tStatistic) {
      return Statistic.Kernel.SIGN_FLIP + (tStatistic ? " t" : " mean");
    }

    @Override
    public String twoSample(boolean welch) {
      return Statistic.Kernel.TWO_SAMPLE + (welch ? " welch-t" : " mean-diff");
    }

    @Override
    public String correlation(boolean spearman) {
      return Statistic.Kernel.CORRELATION + (spearman ? " spearman" : " pearson");
    }
  };

  @Test
  void theOneDispatchSendsEachRowToItsKernelFamilyWithItsOwnVariant() {
    for (Statistic s : Statistic.values()) {
      assertThat(s.dispatch(NAMES)).as(s.label())
          .isEqualTo(s.kernel() + " " + s.statisticName());
    }
  }
}
