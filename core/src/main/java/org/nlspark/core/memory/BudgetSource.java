package org.nlspark.core.memory;

/** Where a {@link MemoryBudget} came from; messages name it so the user knows what to change. */
public enum BudgetSource {
  /** Given by the user ({@code --memory-budget-gb}); always wins, never capped. */
  EXPLICIT("set by --memory-budget-gb"),
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
