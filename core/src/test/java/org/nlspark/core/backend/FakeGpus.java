package org.nlspark.core.backend;

/** Probes with a fixed answer, and one that fails the test if it is consulted at all. */
public final class FakeGpus {
  public static final String H200 = "NVIDIA H200";

  private FakeGpus() {}

  public static GpuProbe usable() {
    return () -> GpuStatus.available(H200, 100_000_000_000L, 140_000_000_000L, "550.54");
  }

  public static GpuProbe none(String reason) {
    return () -> GpuStatus.unavailable(reason);
  }

  public static GpuProbe mustNotBeCalled() {
    return () -> {
      throw new AssertionError("the GPU probe must not be consulted here");
    };
  }
}
