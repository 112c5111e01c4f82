package org.nlspark.core;

/**
 * The run was refused for lack of a resource before any work was done: the memory preflight
 * failed, or a GPU was requested explicitly and none is usable. The command line maps it to
 * exit code 3.
 */
public class ResourceRefusedException extends RuntimeException {
  public ResourceRefusedException(String message) {
    super(message);
  }

  public ResourceRefusedException(String message, Throwable cause) {
    super(message, cause);
  }
}
