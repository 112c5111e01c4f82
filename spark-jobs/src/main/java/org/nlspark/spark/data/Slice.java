package org.nlspark.spark.data;

import java.io.Serializable;

/**
 * What one read split sends to one voxel block in the shuffle: samples [first, first + count)
 * of one input group, the block's columns only (count x width, row-major), in float32 when
 * every sample of the split was float32, else float64.
 */
final class Slice implements Serializable {
  private static final long serialVersionUID = 1L;
  final int group;
  final int first;
  final int count;
  final float[] f;
  final double[] d;

  Slice(int group, int first, int count, float[] f, double[] d) {
    this.group = group;
    this.first = first;
    this.count = count;
    this.f = f;
    this.d = d;
  }
}
