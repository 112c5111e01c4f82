package org.nlspark.core.tfce;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.core.result.Result;

/**
 * A permutation test with whole-map inference (DESIGN §9): the voxelwise outputs of {@link
 * PermutationResult} (observed, p, p_fwer, null_max), then, with {@code --tfce}, {@code tfce}
 * (signed scores), {@code p_tfce} (uncorrected), {@code p_fwer_tfce} and {@code null_max_tfce}
 * (each replicate's largest TFCE key), and with {@code --cluster-threshold}, {@code cluster_size}
 * (each voxel's cluster, 0 outside), {@code p_fwer_cluster} and {@code null_max_cluster} (each
 * replicate's largest cluster). FWER outputs are absent with {@code --no-fwer}.
 */
public final class TfceResult implements Result {
  public final PermutationResult voxelwise;
  /** Null without --tfce. */
  public final double[] tfce;
  public final double[] pTfce;
  /** Null without --tfce or FWER. */
  public final double[] pFwerTfce;
  public final double[] nullMaxTfce;
  /** Null without --cluster-threshold. */
  public final double[] clusterSize;
  /** Null without --cluster-threshold or FWER. */
  public final double[] pFwerCluster;
  public final double[] nullMaxCluster;
  private final WholeMapMerge.Totals wholeMap;

  TfceResult(PermutationResult voxelwise, WholeMapMerge.Totals wholeMap) {
    this.voxelwise = voxelwise;
    this.tfce = wholeMap.tfce();
    this.pTfce = wholeMap.pTfce();
    this.pFwerTfce = wholeMap.pFwerTfce();
    this.nullMaxTfce = wholeMap.nullMaxTfce();
    this.clusterSize = wholeMap.clusterSize();
    this.pFwerCluster = wholeMap.pFwerCluster();
    this.nullMaxCluster = wholeMap.nullMaxCluster();
    this.wholeMap = wholeMap;
  }

  @Override
  public int voxels() {
    return voxelwise.voxels();
  }

  @Override
  public List<Output> outputs() {
    List<Output> out = new ArrayList<>(voxelwise.outputs());
    for (Map.Entry<String, double[]> e : wholeMap.outputs("").entrySet()) {
      out.add(new Output(e.getKey(), new long[] {e.getValue().length}, e.getValue()));
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>(voxelwise.facts());
    m.put("whole_map_inference", wholeMap.facts());
    return m;
  }
}
