package org.nlspark.core.io;

import java.util.Arrays;
import java.util.Objects;

/**
 * An array read from (or to be written to) an {@code .npy} file: C-order values widened to
 * double, with the dtype they were stored in. The shape is copied; {@code data} is shared, not
 * copied, because inputs reach hundreds of megabytes.
 *
 * @param dtype the dtype in the file (float32 values are widened exactly)
 * @param shape dimensions, C order; the accessor returns a copy
 * @param data {@code product(shape)} values, last index fastest
 */
public record NpyArray(NpyDtype dtype, long[] shape, double[] data) {
  public NpyArray {
    Objects.requireNonNull(dtype, "dtype");
    Objects.requireNonNull(data, "data");
    shape = shape.clone();
    long count = 1;
    for (long d : shape) {
      if (d < 0) {
        throw new IllegalArgumentException(
            "dimensions must be >= 0, but shape was: " + NpyHeader.formatShape(shape));
      }
    }
    try {
      for (long d : shape) {
        count = Math.multiplyExact(count, d);
      }
    } catch (ArithmeticException e) {
      count = -1; // cannot equal data.length; reported below
    }
    if (Arrays.stream(shape).anyMatch(d -> d == 0)) {
      count = 0;
    }
    if (count != data.length) {
      throw new IllegalArgumentException(
          "[BUG] shape "
              + NpyHeader.formatShape(shape)
              + (count < 0 ? " overflows a long" : " holds " + count + " values")
              + ", but data has "
              + data.length);
    }
  }

  @Override
  public long[] shape() {
    return shape.clone();
  }

  /** Number of dimensions. */
  public int rank() {
    return shape.length;
  }

  /** Size of dimension {@code i}; dimensions of a readable array always fit an int. */
  public int dim(int i) {
    if (i < 0 || i >= shape.length) {
      throw new IndexOutOfBoundsException(
          "dimension must be in [0, " + shape.length + "), but was: " + i);
    }
    return (int) shape[i];
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NpyArray a
        && dtype == a.dtype
        && Arrays.equals(shape, a.shape)
        && Arrays.equals(data, a.data);
  }

  @Override
  public int hashCode() {
    return Objects.hash(dtype, Arrays.hashCode(shape), Arrays.hashCode(data));
  }

  @Override
  public String toString() {
    return "NpyArray[dtype=" + dtype.descr() + ", shape=" + NpyHeader.formatShape(shape) + "]";
  }
}
