package org.nlspark.core.backend;

import org.nlspark.core.ResourceRefusedException;

/**
 * Which backends a command's kernels run on, and the one check of an explicit {@code --backend}
 * against it (DESIGN §3.3: run-or-raise). A command whose kernels run only on the CPU refuses
 * {@code --backend gpu} (exit 3) instead of silently running on the CPU; {@code auto} and
 * {@code cpu} pass.
 */
public enum BackendSupport {
  /** CPU kernels and GPU kernels. */
  CPU_AND_GPU,
  /** CPU kernels only: glm, isc, timeseries-correlation, ridge-bootstrap. */
  CPU_ONLY;

  /**
   * Refuses a backend these kernels cannot run on.
   *
   * @param command the command, as typed (named in the message)
   * @param requestedBackend {@code --backend} as given (null: the default)
   */
  public void check(String command, String requestedBackend) {
    if (this == CPU_ONLY && "gpu".equals(requestedBackend)) {
      throw new ResourceRefusedException("Cannot run " + command + " on a GPU: a GPU was"
          + " requested explicitly (--backend gpu), but this command has CPU kernels only; use"
          + " --backend cpu or auto");
    }
  }
}
