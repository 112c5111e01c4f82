package org.nlspark.spark.api;

import org.apache.spark.sql.SparkSession;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.tfce.Adjacency;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.io.StudyInputs;

/**
 * What input resolution found, handed along a run instead of being written into the caller's
 * {@link NlsparkOptions}: the samples as the data plane describes them (DESIGN §8; null where
 * they are read otherwise), the grid and mask of image inputs (null for .npy and Parquet), and
 * where that mask came from (a mask file, {@link StudyInputs#MASK_COMPUTED}, or null).
 *
 * @param samples the described samples, or null
 * @param mask the mask of image inputs, or null
 * @param maskSource where {@code mask} came from, or null
 */
public record ResolvedInputs(DistributedInputs samples, NiftiMask mask, String maskSource,
    StudyInputs study) {

  public ResolvedInputs(DistributedInputs samples, NiftiMask mask, String maskSource) {
    this(samples, mask, maskSource, null);
  }

  /** summary.json's {@code inputs} of the study resolved, or null (inputs given in memory). */
  public java.util.Map<String, Object> described() {
    return study == null ? null : study.describe();
  }

  /** What the study's inputs warn of ({@link StudyInputs#warnings}); empty without one. */
  public java.util.List<String> warnings() {
    return study == null ? java.util.List.of() : study.warnings();
  }

  /** The inputs of {@code study} as sources ({@link Sources}), with their mask. */
  public static ResolvedInputs of(SparkSession spark, StudyInputs study, double[] target) {
    DistributedInputs inputs = Sources.of(spark, study, target);
    return new ResolvedInputs(inputs, inputs.mask(), study.maskSource(), study);
  }

  /** Inputs read by their own reader (a time series), with the mask they were read through. */
  public static ResolvedInputs read(NiftiMask mask, String maskSource) {
    return new ResolvedInputs(null, mask, maskSource);
  }

  /**
   * In-memory inputs: the mask (and its source) the caller gave in {@code o} ({@link
   * NlsparkOptions.Builder#mask(NiftiMask)}, for data already masked), or none.
   */
  public static ResolvedInputs given(NlsparkOptions o) {
    return new ResolvedInputs(null, o.mask(), o.maskSource());
  }

  /** Puts the mesh of surface inputs (and their maps' file type) on a finished report. */
  public org.nlspark.core.engine.RunReport onReport(org.nlspark.core.engine.RunReport report) {
    if (study == null || study.surface() == null) {
      return report;
    }
    return report.surface(study.surface(),
        org.nlspark.spark.output.SurfaceOutputs.suffixFor(study.x().files.get(0)))
        .grayordinates(study.grayordinates());
  }

  /**
   * What TFCE and clusters join: the mesh of surface inputs, else the grid of {@link #mask()}
   * (built on each call), or null without either.
   */
  public Adjacency grid() {
    if (study != null && study.surface() != null) {
      return study.surface();
    }
    return mask == null ? null : MaskGrid.of(mask);
  }
}
