package org.nlspark.spark.api;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmAnalysis;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmFiles;
import org.nlspark.core.glm.GlmRequest;
import org.nlspark.core.glm.GlmWholeMapAnalysis;
import org.nlspark.core.glm.VarianceGroups;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.tfce.Adjacency;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.VarianceSmoothing;
import org.nlspark.core.tfce.WholeMapInference;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.spark.api.Nlspark.PreparedGlm;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.StudyInputs;
import org.nlspark.spark.io.TextTables;

/**
 * The glm runs of {@link Nlspark} (DESIGN §9): the design, contrasts and blocks read, the model
 * checked, the read location decided ({@link Ingest}), and the analysis prepared with its
 * whole-map and variance-smoothing steps, before any tile runs.
 */
final class GlmRuns {
  private GlmRuns() {}

  /** {@link Nlspark#glm(SparkSession, DataMatrix, GlmDesign, GlmContrasts, int[][],
   * NlsparkOptions)}. */
  static RunReport glm(SparkSession spark, DataMatrix y,
      GlmDesign design, GlmContrasts contrasts,
      int[][] blocks, NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    GlmRequest glm = o.toGlmRequest(blocks, "exchangeability blocks",
        varianceGroups(Nlspark.hadoopConf(spark), o));
    WholeMapInference.requireGrid(o.mask() != null, o.wholeMapSettings());
    checkVarianceSmoothing(o, o.mask() != null, contrasts);
    return Nlspark.run(spark, withWholeMaps(GlmAnalysis.prepare(y, design, contrasts, glm),
        o.mask(), o), o, false);
  }

  /**
   * The glm run itself, or with {@code tfce} / {@code clusterThreshold} its whole-map form on
   * the grid of {@code mask} (the inputs' mask, or null; DESIGN §9).
   */
  static TileAnalysis withWholeMaps(GlmAnalysis analysis, NiftiMask mask,
      NlsparkOptions o) {
    return withWholeMaps(analysis, mask == null ? null : MaskGrid.of(mask), mask, o);
  }

  /** The same on resolved inputs: the mesh of surface data, else the grid of their mask. */
  static TileAnalysis withWholeMaps(GlmAnalysis analysis, ResolvedInputs images,
      NlsparkOptions o) {
    return withWholeMaps(analysis, images.grid(), images.mask(), o);
  }

  private static TileAnalysis withWholeMaps(GlmAnalysis analysis, Adjacency grid,
      NiftiMask mask, NlsparkOptions o) {
    if (!o.wholeMapInference() && o.varianceSmoothing() == null) {
      return analysis.withTailApproximation(o.tailApproximation());
    }
    if (o.varianceSmoothing() == null) {
      return analysis.withWholeMaps(grid, o.wholeMapSettings(grid));
    }
    return analysis.withWholeMaps(grid, o.wholeMapSettings(grid), o.varianceSmoothing(),
        mask == null ? null : VarianceSmoothing.voxelSizes(
            mask.grid().affine()));
  }

  /**
   * The refusals of {@code --variance-smoothing} that need no data (exit 2): an input without a
   * grid, F contrasts.
   */
  static void checkVarianceSmoothing(NlsparkOptions o, boolean hasGrid,
      GlmContrasts contrasts) {
    if (o.varianceSmoothing() == null) {
      return;
    }
    VarianceSmoothing.requireGrid(hasGrid);
    GlmWholeMapAnalysis.requireTContrasts(contrasts.f().length);
  }

  /** The variance groups' file read (null for none, or {@code auto}: nothing to read). */
  private static VarianceGroups varianceGroups(Configuration conf, NlsparkOptions o) {
    String path = o.varianceGroups();
    if (path == null || path.equals("auto")) {
      return null;
    }
    return VarianceGroups.givenRows(GlmFiles.readBlocks(
        TextTables.readLines(conf, path, "--variance-groups"), path), path);
  }

  /** {@link Nlspark#prepareGlm}. */
  static PreparedGlm prepareGlm(SparkSession spark, String input,
      String design, String contrasts, NlsparkOptions o) {
    Configuration conf = Nlspark.hadoopConf(spark);
    String blocksPath = o.exchangeabilityBlocks();
    // Options checked first (an empty stand-in for blocks not read yet), then the files.
    o.toGlmOptions(blocksPath == null ? null : new int[0][], blocksPath);
    // Resolved (headers, the mask), not read: an input without a grid is refused before reading.
    StudyInputs study = Nlspark.resolve(spark, input, null, o);
    WholeMapInference.requireGrid(o.mask() != null || study.hasGrid() || study.surface() != null,
        o.wholeMapSettings());
    GlmDesign d = GlmFiles.readDesign(
        TextTables.readLines(conf, design, "--design"), design);
    String f = o.fContrasts();
    GlmContrasts c = GlmFiles.readContrasts(
        TextTables.readLines(conf, contrasts, "--contrasts"), contrasts,
        f == null ? null : TextTables.readLines(conf, f, "--f-contrasts"), f);
    int[][] blocks = blocksPath == null ? null : GlmFiles.readBlocks(
        TextTables.readLines(conf, blocksPath, "--exchangeability-blocks"), blocksPath);
    GlmRequest request = o.toGlmRequest(blocks, blocksPath, varianceGroups(conf, o));
    checkVarianceSmoothing(o, o.mask() != null || study.hasGrid() || study.surface() != null, c);
    if (!study.executorsCanRead()) {
      ResolvedInputs images = ResolvedInputs.given(o); // Parquet: read on this JVM
      return new PreparedGlm(withWholeMaps(GlmAnalysis.prepare(
          readWhole(spark, study, images), d, c, request), images, o), images);
    }
    // The data plane of the voxelwise commands: executors read the samples into voxel blocks,
    // or (spark.nlspark.ingest) small inputs are read here and broadcast; the same bytes. On
    // blocks, --demean centres each block where it is held and TFCE/clusters (and variance
    // smoothing, whose slices carry each draw's variance map) assemble whole maps from the
    // blocks' slices (DESIGN §8, §9).
    ResolvedInputs resolved = ResolvedInputs.of(spark, study, null);
    DistributedInputs inputs = resolved.samples();
    Ingest ingest = Ingest.of(spark, inputs);
    if (ingest.onExecutors()) {
      return new PreparedGlm(new DescribedAnalysis(withWholeMaps(
          GlmAnalysis.prepareOnExecutors(inputs.x().samples(), inputs.x().voxels(), d, c,
              request), resolved, o), inputs, ingest), resolved);
    }
    DataMatrix y = ingest.readHere(
        () -> inputs.load(new HadoopOpener(Nlspark.hadoopConf(spark))).x());
    return new PreparedGlm(new DescribedAnalysis(withWholeMaps(
        GlmAnalysis.prepare(y, d, c, request), resolved, o), null, ingest), resolved);
  }

  /**
   * One resolved input read whole on this JVM, for analyses that need all samples here, with
   * the readers of every other run: through the sources of {@code images}, else (Parquet) by
   * the study's own reader.
   */
  static DataMatrix readWhole(SparkSession spark, StudyInputs study, ResolvedInputs images) {
    if (images.samples() == null) {
      return study.load(Nlspark.hadoopConf(spark), Analysis.ONE_SAMPLE, null).x();
    }
    return images.samples().load(new HadoopOpener(Nlspark.hadoopConf(spark))).x();
  }
}
