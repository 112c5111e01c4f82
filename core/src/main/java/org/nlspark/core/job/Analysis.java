package org.nlspark.core.job;

import java.util.List;

/** The resampling analyses (DESIGN §6); the statistics each accepts are in {@link Statistic}. */
public enum Analysis {
  BOOTSTRAP("bootstrap", "mean"),
  ONE_SAMPLE("one-sample", "t"),
  TWO_SAMPLE("two-sample", "welch-t"),
  CORRELATION("correlation", "pearson");

  private final String command;
  private final String defaultStatistic;

  Analysis(String command, String defaultStatistic) {
    this.command = command;
    this.defaultStatistic = defaultStatistic;
  }

  /** The command-line name, e.g. "one-sample". */
  public String command() {
    return command;
  }

  /** The statistic names this analysis accepts (from the {@link Statistic} table). */
  public List<String> statistics() {
    return Statistic.names(this);
  }

  public String defaultStatistic() {
    return defaultStatistic;
  }

  public boolean isPermutation() {
    return this != BOOTSTRAP;
  }
}
