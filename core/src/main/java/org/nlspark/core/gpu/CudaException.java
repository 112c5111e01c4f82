package org.nlspark.core.gpu;

/**
 * A CUDA, cuBLAS or NVRTC failure other than running out of device memory (which is a
 * {@link org.nlspark.core.memory.DeviceOutOfMemoryException}, so that OOM recovery can tell the
 * two apart). Thrown by the native shim; the message names the call and the CUDA error.
 */
public class CudaException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  public CudaException(String message) {
    super(message);
  }
}
