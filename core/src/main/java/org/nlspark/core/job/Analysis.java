package org.nlspark.core.job;

import java.util.List;

/** The resampling analyses, with the statistics each accepts (DESIGN §6). */
public enum Analysis {
  BOOTSTRAP("bootstrap", List.of("mean", "median", "std", "sum", "min", "max"), "mean"),
  ONE_SAMPLE("one-sample", List.of("mean", "t"), "t"),
  TWO_SAMPLE("two-sample", List.of("mean-diff", "welch-t"), "welch-t"),
  CORRELATION("correlation", List.of("pearson", "spearman"), "pearson");

  private final String command;
  private final List<String> statistics;
  private final String defaultStatistic;

  Analysis(String command, List<String> statistics, String defaultStatistic) {
    this.command = command;
    this.statistics = statistics;
    this.defaultStatistic = defaultStatistic;
  }

  /** The command-line name, e.g. "one-sample". */
  public String command() {
    return command;
  }

  public List<String> statistics() {
    return statistics;
  }

  public String defaultStatistic() {
    return defaultStatistic;
  }

  public boolean isPermutation() {
    return this != BOOTSTRAP;
  }
}
