package org.nlspark.core.io.surface;

import org.nlspark.core.surface.Grayordinates;

/**
 * Per-vertex data read from one file: one or more samples (GIFTI data arrays, MGH frames, CIFTI
 * rows), each a value per mesh vertex, in vertex order.
 *
 * @param name the file, for messages
 * @param vertices values per sample
 * @param samples sample s is {@code samples[s]}, {@code vertices} values
 * @param float32 whether the file stored them as 32-bit floats (each value then fits a float)
 * @param grayordinates a CIFTI file's brain models, whose full space the samples are on (0 where
 *     the file has no grayordinate); null for GIFTI and MGH
 */
public record VertexData(String name, int vertices, double[][] samples, boolean float32,
    Grayordinates grayordinates) {
  /** GIFTI or MGH data: one value per vertex of the mesh. */
  public VertexData(String name, int vertices, double[][] samples, boolean float32) {
    this(name, vertices, samples, float32, null);
  }
}
