package org.nlspark.spark.errors;

import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;

/**
 * Spark wraps a task's exception in a SparkException; API users and the CLI get the core
 * exception a LocalEngine run would have thrown (its class decides the exit code). Every Spark
 * action of nlspark (tiles, block ingest, the default-mask scan) unwraps through here.
 */
public final class TaskFailures {
  private TaskFailures() {}

  /** The first input or resource refusal in the cause chain, or {@code e} itself. */
  public static RuntimeException unwrap(RuntimeException e) {
    RuntimeException inside = refusal(e);
    return inside != null ? inside : e;
  }

  /**
   * As {@link #unwrap(RuntimeException)} for any exception a Spark action throws, including its
   * undeclared checked SparkException (rethrown as it is when no core exception is inside).
   */
  public static RuntimeException unwrapAny(Exception e) {
    RuntimeException inside = refusal(e);
    return inside != null ? inside : TaskFailures.<RuntimeException>sneaky(e);
  }

  private static RuntimeException refusal(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof InvalidInputException || t instanceof ResourceRefusedException) {
        return (RuntimeException) t;
      }
      if (t.getCause() == t) {
        break;
      }
    }
    return null;
  }

  @SuppressWarnings("unchecked")
  private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
    throw (T) t;
  }
}
