package org.nlspark.spark;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import org.nlspark.core.io.NpyWriter;

/** Seeded small inputs written as .npy files. */
final class TestData {
  private TestData() {}

  static double[] gaussian(long seed, int rows, int cols, double shift) {
    SplittableRandom r = new SplittableRandom(seed);
    double[] x = new double[rows * cols];
    for (int i = 0; i < x.length; i++) {
      double u = 1.0 - r.nextDouble();
      x[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * r.nextDouble())
          + ((i % cols) % 7 == 0 ? shift : 0);
    }
    return x;
  }

  static Path matrix(Path dir, String name, int rows, int cols, double[] values) {
    Path p = dir.resolve(name);
    NpyWriter.writeFloat64(p, new long[] {rows, cols}, values);
    return p;
  }

  static Path vector(Path dir, String name, double[] values) {
    Path p = dir.resolve(name);
    NpyWriter.writeFloat64(p, new long[] {values.length}, values);
    return p;
  }

  /** The float64 values of an output file, NaN included (core's reader rejects NaN inputs). */
  static double[] outputValues(Path p) {
    byte[] all = bytes(p);
    try (var in = new java.io.ByteArrayInputStream(all)) {
      int offset = org.nlspark.core.io.NpyHeader.parse(in, p.toString()).dataOffset();
      java.nio.DoubleBuffer d = java.nio.ByteBuffer.wrap(all, offset, all.length - offset)
          .order(java.nio.ByteOrder.LITTLE_ENDIAN).asDoubleBuffer();
      double[] out = new double[d.remaining()];
      d.get(out);
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static byte[] bytes(Path p) {
    try {
      return Files.readAllBytes(p);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
