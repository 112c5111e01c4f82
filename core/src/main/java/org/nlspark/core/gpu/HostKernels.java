package org.nlspark.core.gpu;

/**
 * JNI entry points of the host build of the CUDA kernels (nlspark_host.cpp, linked into the CUDA
 * shim): emulated device memory (host pointers) and launches of the kernels by name, run as loops
 * over blocks and threads. Used by {@link HostDevice} only.
 */
final class HostKernels {
  private HostKernels() {}

  /**
   * Loads the shim library (not the CUDA libraries): null when the host kernels are usable, else
   * why not (no gcc/g++ when the jar was built, or another platform).
   */
  static String load() {
    String reason = NativeShim.loadLibrary();
    if (reason != null) {
      return reason;
    }
    try {
      long p = alloc(8);
      free(p);
      return null;
    } catch (UnsatisfiedLinkError e) {
      return "the shim was built without the host kernels (g++ was missing): " + e.getMessage();
    }
  }

  static native long alloc(long bytes);

  static native void free(long address);

  static native void zero(long address, long bytes);

  static native void copyIn(long dst, Object array, long hostByteOffset, long bytes);

  static native void copyOut(Object array, long hostByteOffset, long src, long bytes);

  static native void launch(String name, int gridX, int blockX, long[] args);
}
