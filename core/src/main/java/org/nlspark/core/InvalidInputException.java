package org.nlspark.core;

/**
 * Bad usage or bad input: a value the user gave (a flag, a file, an array) breaks a rule.
 * The command line maps it to exit code 2. Messages follow the project voice:
 * "Cannot &lt;verb&gt; &lt;thing&gt;: &lt;reason&gt;" or "&lt;x&gt; must be &lt;constraint&gt;, but was: &lt;value&gt;".
 */
public class InvalidInputException extends IllegalArgumentException {
  public InvalidInputException(String message) {
    super(message);
  }

  public InvalidInputException(String message, Throwable cause) {
    super(message, cause);
  }
}
