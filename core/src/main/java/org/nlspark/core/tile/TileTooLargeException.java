package org.nlspark.core.tile;

import org.nlspark.core.ResourceRefusedException;

/**
 * The planner's refusal (exit 3) of a run whose smallest tile exceeds the whole budget even run
 * alone; carries the bytes that tile needs, so that a scheduler can say what would do (the heap
 * that fits it) in its own terms.
 */
public final class TileTooLargeException extends ResourceRefusedException {
  private final String reason;
  private final long bytesNeeded;

  /**
   * @param reason what does not fit, one sentence
   * @param remedy what would do, one sentence
   */
  public TileTooLargeException(String reason, String remedy, long bytesNeeded) {
    super(reason + " " + remedy);
    this.reason = reason;
    this.bytesNeeded = bytesNeeded;
  }

  /** What the smallest tile needs, in bytes. */
  public long bytesNeeded() {
    return bytesNeeded;
  }

  /** This refusal with another {@code remedy}. */
  public TileTooLargeException withRemedy(String remedy) {
    TileTooLargeException e = new TileTooLargeException(reason, remedy, bytesNeeded);
    e.setStackTrace(getStackTrace());
    return e;
  }
}
