package org.nlspark.core.result;

/** One output array: written as {@code name + ".npy"} with the given shape (C order, float64). */
public record Output(String name, long[] shape, double[] values) {}
