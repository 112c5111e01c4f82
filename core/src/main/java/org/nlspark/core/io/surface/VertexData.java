package org.nlspark.core.io.surface;

/**
 * Per-vertex data read from one file: one or more samples (GIFTI data arrays, MGH frames), each
 * a value per mesh vertex, in vertex order.
 *
 * @param name the file, for messages
 * @param vertices values per sample
 * @param samples sample s is {@code samples[s]}, {@code vertices} values
 * @param float32 whether the file stored them as 32-bit floats (each value then fits a float)
 */
public record VertexData(String name, int vertices, double[][] samples, boolean float32) {}
