package org.nlspark.core.gpu;

import java.nio.ByteBuffer;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.MomentAccumulator;
import org.nlspark.core.accumulate.PartialFamily;

/**
 * Builds accumulators from totals computed on the device, through their documented serialized
 * layouts (big-endian, their {@link PartialFamily} header), since they have no public
 * constructor from totals. A test
 * pins these against the accumulators' own updates, so a layout change fails loudly here.
 */
final class AccumulatorBytes {
  private AccumulatorBytes() {}

  /** 'E', version, int elements, long n, long[elements] counts. */
  static ExceedanceCounter exceedances(long n, long[] counts) {
    ByteBuffer b = ByteBuffer.allocate(2 + 4 + 8 + 8 * counts.length);
    PartialFamily f = PartialFamily.EXCEEDANCE_COUNTER;
    b.put(f.id()).put(f.version()).putInt(counts.length).putLong(n);
    for (long c : counts) {
      b.putLong(c);
    }
    return ExceedanceCounter.fromBytes(b.array());
  }

  /** 'M', version, int elements, long n, double[elements] mean, double[elements] m2. */
  static MomentAccumulator moments(long n, double[] mean, double[] m2) {
    ByteBuffer b = ByteBuffer.allocate(2 + 4 + 8 + 16 * mean.length);
    PartialFamily f = PartialFamily.MOMENT_ACCUMULATOR;
    b.put(f.id()).put(f.version()).putInt(mean.length).putLong(n);
    for (double v : mean) {
      b.putDouble(v);
    }
    for (double v : m2) {
      b.putDouble(v);
    }
    return MomentAccumulator.fromBytes(b.array());
  }
}
