package org.nlspark.core.memory;

/** {@code nBatches} batches of at most {@code batchSize} items; together they cover every item. */
public record BatchPlan(int batchSize, int nBatches) {}
