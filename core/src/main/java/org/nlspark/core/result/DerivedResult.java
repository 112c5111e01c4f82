package org.nlspark.core.result;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A result made from another on the driver after the merge (q maps, FSL names, tail-approximated
 * p): its own list of outputs, the inner result's facts plus one fact of its own under
 * {@link #factKey()}, and the inner result's voxel count.
 */
abstract class DerivedResult implements Result {
  private final Result inner;
  private final List<Output> outputs;

  DerivedResult(Result inner, List<Output> outputs) {
    this.inner = inner;
    this.outputs = List.copyOf(outputs);
  }

  /** The result this one was made from. */
  public Result inner() {
    return inner;
  }

  /** The summary.json key of this result's own fact. */
  abstract String factKey();

  /** This result's own fact. */
  abstract Object factValue();

  @Override
  public final List<Output> outputs() {
    return outputs;
  }

  @Override
  public final Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>(inner.facts());
    m.put(factKey(), factValue());
    return m;
  }

  @Override
  public final int voxels() {
    return inner.voxels();
  }
}
