package org.nlspark.core.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.PermutationResult;

/** Bad arguments fail early with the project's error voice, never deep in a kernel. */
class BadInputTest {
  @Test
  void replicatesMustBePositive() {
    assertThatThrownBy(() -> JobSpec.builder(Analysis.BOOTSTRAP).replicates(0).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--samples must be at least 1, but was: 0");
    assertThatThrownBy(() -> JobSpec.builder(Analysis.ONE_SAMPLE).replicates(-5).build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--permutations must be at least 1, but was: -5");
  }

  @Test
  void confidenceMustBeInsideZeroOne() {
    for (double c : new double[] {0, 1, 1.5, -0.1, Double.NaN}) {
      assertThatThrownBy(() -> JobSpec.builder(Analysis.BOOTSTRAP).confidence(c).build())
          .isInstanceOf(InvalidInputException.class)
          .hasMessageStartingWith("--confidence must be in (0, 1), but was: ");
    }
  }

  @Test
  void statisticMustSuitTheAnalysis() {
    assertThatThrownBy(() -> JobSpec.builder(Analysis.ONE_SAMPLE).statistic("median").build())
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--stat must be one of [mean, t] for one-sample, but was: median");
  }

  @Test
  void nanAndInfinityAreRejectedWithTheirPosition() {
    double[] v = {1, 2, 3, Double.NaN, 5, Double.POSITIVE_INFINITY};
    assertThatThrownBy(() -> DataMatrix.of(2, 3, v, "--input"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("2 NaN or infinite value(s)")
        .hasMessageContaining("(row 1, column 0)");
  }

  @Test
  void shapesMustMatch() {
    DataMatrix x = TestData.gaussian(5, 4, 1, 0);
    assertThatThrownBy(() -> JobInputs.twoGroups(x, TestData.gaussian(5, 3, 1, 0))
        .validate(Analysis.TWO_SAMPLE))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--input has 4 voxels but --input2 has 3");
    assertThatThrownBy(() -> JobInputs.withTarget(x, new double[] {1, 2, 3})
        .validate(Analysis.CORRELATION))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("--target has 3 values but --input has 5 samples");
    assertThatThrownBy(() -> JobInputs.withTarget(x, new double[] {2, 2, 2, 2, 2})
        .validate(Analysis.CORRELATION))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("zero variance");
    assertThatThrownBy(() -> JobInputs.of(TestData.gaussian(1, 4, 1, 0))
        .validate(Analysis.ONE_SAMPLE))
        .isInstanceOf(InvalidInputException.class)
        .hasMessage("--input must have at least 2 samples (rows), but had: 1");
  }

  @Test
  void zeroVarianceVoxelsGetNaNAndAreCounted() {
    JobInputs in = JobInputs.of(TestData.gaussian(10, 6, 1, 0, 1, 4));
    JobSpec spec = JobSpec.builder(Analysis.ONE_SAMPLE).statistic("t").replicates(50).build();
    PermutationResult r = (PermutationResult) LocalEngine.defaults().run(spec, in).result;
    assertThat(r.undefinedVoxels).isEqualTo(2);
    assertThat(r.observed[1]).isNaN();
    assertThat(r.p[4]).isNaN();
    assertThat(r.pFwer[4]).isNaN();
    assertThat(r.p[0]).isBetween(0.0, 1.0);
  }

  @Test
  void bootstrapOverBudgetIsRefusedBeforeResampling() {
    JobInputs in = JobInputs.of(TestData.gaussian(10, 1000, 1, 0));
    JobSpec spec = JobSpec.builder(Analysis.BOOTSTRAP).replicates(5000).saveSamples(true)
        .memoryBudgetGb(0.001).build();
    assertThatThrownBy(() -> LocalEngine.defaults().run(spec, in))
        .isInstanceOf(ResourceRefusedException.class)
        .hasMessageContaining("GB")
        .hasMessageContaining("--memory-budget-gb");
  }
}
