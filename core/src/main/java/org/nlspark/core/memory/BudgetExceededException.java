package org.nlspark.core.memory;

import org.nlspark.core.ResourceRefusedException;

/**
 * A refusal (exit 3), before any work, of a run that needs more memory than its whole budget:
 * one tile even run alone ({@code TilePlanner}), or what a run retains ({@link
 * BootstrapMemory}). Carries the bytes needed, so that a scheduler can add what would do (the
 * heap whose budget holds them) in its own terms.
 */
public final class BudgetExceededException extends ResourceRefusedException {
  private final String reason;
  private final String remedy;
  private final long bytesNeeded;

  /**
   * @param reason what does not fit, one sentence
   * @param remedy what would do, one sentence
   */
  public BudgetExceededException(String reason, String remedy, long bytesNeeded) {
    super(reason + " " + remedy);
    this.reason = reason;
    this.remedy = remedy;
    this.bytesNeeded = bytesNeeded;
  }

  /** What the run needs of the budget, in bytes. */
  public long bytesNeeded() {
    return bytesNeeded;
  }

  /** What would do, as this refusal says it. */
  public String remedy() {
    return remedy;
  }

  /** This refusal with another {@code remedy}. */
  public BudgetExceededException withRemedy(String remedy) {
    BudgetExceededException e = new BudgetExceededException(reason, remedy, bytesNeeded);
    e.setStackTrace(getStackTrace());
    return e;
  }
}
