package org.nlspark.core.result;

import java.util.List;
import java.util.Map;

/** What a run produces: per-voxel output arrays plus facts for summary.json. */
public interface Result {
  /** The arrays in the order of DESIGN §6, each (n_voxels,) unless said. */
  List<Output> outputs();

  /** Facts about the result (counts of undefined voxels, replicates drawn, ...). */
  Map<String, Object> facts();

  int voxels();

  /** Looks up an output by name, or null. */
  default double[] output(String name) {
    for (Output o : outputs()) {
      if (o.name().equals(name)) {
        return o.values();
      }
    }
    return null;
  }
}
