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
  private final Map<String, Object> inference;

  TfceResult(PermutationResult voxelwise, double[] tfce, double[] pTfce, double[] pFwerTfce,
      double[] nullMaxTfce, double[] clusterSize, double[] pFwerCluster, double[] nullMaxCluster,
      Map<String, Object> inference) {
    this.voxelwise = voxelwise;
    this.tfce = tfce;
    this.pTfce = pTfce;
    this.pFwerTfce = pFwerTfce;
    this.nullMaxTfce = nullMaxTfce;
    this.clusterSize = clusterSize;
    this.pFwerCluster = pFwerCluster;
    this.nullMaxCluster = nullMaxCluster;
    this.inference = inference;
  }

  @Override
  public int voxels() {
    return voxelwise.voxels();
  }

  @Override
  public List<Output> outputs() {
    long[] shape = {voxels()};
    List<Output> out = new ArrayList<>(voxelwise.outputs());
    if (tfce != null) {
      out.add(new Output("tfce", shape, tfce));
      out.add(new Output("p_tfce", shape, pTfce));
      if (pFwerTfce != null) {
        out.add(new Output("p_fwer_tfce", shape, pFwerTfce));
        out.add(new Output("null_max_tfce", new long[] {nullMaxTfce.length}, nullMaxTfce));
      }
    }
    if (clusterSize != null) {
      out.add(new Output("cluster_size", shape, clusterSize));
      if (pFwerCluster != null) {
        out.add(new Output("p_fwer_cluster", shape, pFwerCluster));
        out.add(new Output("null_max_cluster", new long[] {nullMaxCluster.length},
            nullMaxCluster));
      }
    }
    return out;
  }

  @Override
  public Map<String, Object> facts() {
    Map<String, Object> m = new LinkedHashMap<>(voxelwise.facts());
    m.put("whole_map_inference", inference);
    return m;
  }
}
