package org.nlspark.core.memory;

/**
 * Where a {@link MemoryBudget} came from, in the one wording messages and summary.json use, so
 * the user knows what to change.
 */
public enum BudgetSource {
  /** Given by the user ({@code --memory-budget-gb}); always wins, never capped. */
  EXPLICIT("set by --memory-budget-gb"),
  /**
   * What one Spark executor may use: its heap (the driver's in local mode) minus Spark's 300 MB
   * reserve, × ({@code spark.memory.fraction} and half the user memory beside it).
   */
  SPARK_EXECUTOR("the Spark executor budget: executor heap minus 300 MB, x (spark.memory.fraction"
      + " and half the rest)"),
  /** Free GPU memory × {@link MemoryBudget#CUDA_HEADROOM}. */
  MEASURED_CUDA("the measured budget: free GPU memory x 0.8"),
  /** Available system memory × {@link MemoryBudget#SYSTEM_HEADROOM}, bounded by the heap. */
  MEASURED_SYSTEM("the measured budget: available memory x 0.5, bounded by the JVM heap"),
  /** Nothing could be measured: {@link MemoryBudget#FALLBACK_GB}. */
  FALLBACK("the fallback budget: memory could not be measured");

  private final String description;

  BudgetSource(String description) {
    this.description = description;
  }

  /** Short phrase for messages: "set by --memory-budget-gb" or "the measured budget: ...". */
  public String describe() {
    return description;
  }
}
