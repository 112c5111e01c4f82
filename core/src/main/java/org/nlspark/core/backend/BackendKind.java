package org.nlspark.core.backend;

/** What a resolved {@link Backend} runs on. */
public enum BackendKind {
  CPU,
  GPU
}
