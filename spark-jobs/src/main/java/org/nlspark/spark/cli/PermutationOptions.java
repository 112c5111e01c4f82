package org.nlspark.spark.cli;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.job.Tail;
import picocli.CommandLine.Option;

/** What every permutation (or surrogate) test takes: count, tail and FWER. */
public final class PermutationOptions {
  @Option(names = "--permutations", paramLabel = "P", order = 20,
      description = "number of permutations (default " + JobSpec.DEFAULT_PERMUTATIONS + ")")
  Long permutations;

  @Option(names = "--tail", paramLabel = "two|upper|lower", order = 21,
      description = "alternative hypothesis (default two)")
  String tail;

  @Option(names = "--fwer", order = 22,
      description = "max-statistic FWER p-values (the default)")
  boolean fwer;

  @Option(names = "--no-fwer", order = 23, description = "no FWER p-values")
  boolean noFwer;

  Tail tail() {
    return tail == null ? Tail.TWO : Tail.parse(tail);
  }

  boolean fwer() {
    if (fwer && noFwer) {
      throw new InvalidInputException("--fwer and --no-fwer contradict each other; pass one");
    }
    return !noFwer;
  }
}
