package org.nlspark.core.memory;

import java.util.Objects;
import java.util.OptionalLong;
import org.nlspark.core.backend.BackendKind;

/**
 * Where a scheduler's memory comes from, and the one place a run's budget is resolved from it
 * (DESIGN §3.5): both schedulers (core's LocalEngine, the Spark engine's ExecutorBudget) state
 * their facts here and call {@link #resolve}, which applies {@link MemoryBudget}'s precedence
 * (explicit &gt; the executor's memory &gt; measured in this process).
 *
 * @param executorBytes what one Spark executor may use, or empty outside Spark
 * @param probe the measurements of this process (null on an executor, which is never measured)
 */
public record BudgetResolver(OptionalLong executorBytes, MemoryProbe probe) {

  public BudgetResolver {
    Objects.requireNonNull(executorBytes, "[BUG] executor bytes must be given or empty");
    if (executorBytes.isEmpty()) {
      Objects.requireNonNull(probe, "[BUG] a budget measured in this process needs a memory probe");
    }
  }

  /** A run in this process: its budget is measured with {@code probe} unless explicit. */
  public static BudgetResolver inProcess(MemoryProbe probe) {
    return new BudgetResolver(OptionalLong.empty(), probe);
  }

  /** A run on Spark executors that may each use {@code usableBytes}, unless explicit. */
  public static BudgetResolver onExecutor(long usableBytes) {
    return new BudgetResolver(OptionalLong.of(usableBytes), null);
  }

  /**
   * The run's budget, uncapped (tiles are sized against it by the one planner).
   *
   * @param explicitGb {@code --memory-budget-gb}, or null
   * @param kind the backend the tiles run on (what a measurement measures)
   */
  public MemoryBudget resolve(Double explicitGb, BackendKind kind) {
    return MemoryBudget.resolve(explicitGb, executorBytes, kind, probe, false);
  }
}
