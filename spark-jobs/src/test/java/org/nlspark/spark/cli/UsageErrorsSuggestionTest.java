package org.nlspark.spark.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class UsageErrorsSuggestionTest {
  @Test
  void editDistanceCountsInsertionsDeletionsSubstitutionsAndSwaps() {
    assertThat(UsageErrors.editDistance("bootstrap", "bootstrap")).isZero();
    assertThat(UsageErrors.editDistance("bootsrap", "bootstrap")).isEqualTo(1);
    assertThat(UsageErrors.editDistance("one-sampel", "one-sample")).isEqualTo(1);
    assertThat(UsageErrors.editDistance("--metrik", "--metric")).isEqualTo(1);
    assertThat(UsageErrors.editDistance("", "abc")).isEqualTo(3);
    assertThat(UsageErrors.editDistance("kitten", "sitting")).isEqualTo(3);
  }

  @Test
  void onlyTheClosestNamesWithinAFewEditsAreSuggested() {
    List<String> names = List.of("--samples", "--save-samples", "--seed", "--stat");
    assertThat(UsageErrors.didYouMean("--sample", names)).isEqualTo("; did you mean --samples?");
    assertThat(UsageErrors.didYouMean("--sead", names)).isEqualTo("; did you mean --seed?");
    assertThat(UsageErrors.didYouMean("--stats", names)).isEqualTo("; did you mean --stat?");
    assertThat(UsageErrors.didYouMean("--permute", names)).isEmpty();
    assertThat(UsageErrors.didYouMean("--seed", names)).isEmpty();
  }
}
