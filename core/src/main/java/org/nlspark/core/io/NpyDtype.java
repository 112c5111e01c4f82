package org.nlspark.core.io;

/**
 * The element types nlspark reads and writes in {@code .npy} files: little-endian IEEE floats.
 * Anything else (integers, big-endian, complex, objects) is rejected when the header is parsed,
 * because silently converting it would hide a user's mistake.
 */
public enum NpyDtype {
  FLOAT32("<f4", 4),
  FLOAT64("<f8", 8);

  private final String descr;
  private final int itemSize;

  NpyDtype(String descr, int itemSize) {
    this.descr = descr;
    this.itemSize = itemSize;
  }

  /** The numpy type string written in the header, e.g. {@code <f8}. */
  public String descr() {
    return descr;
  }

  /** Bytes per element. */
  public int itemSize() {
    return itemSize;
  }
}
