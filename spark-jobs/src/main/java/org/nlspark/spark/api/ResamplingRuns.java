package org.nlspark.spark.api;

import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.tfce.Adjacency;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapInference;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;
import org.nlspark.spark.data.DataFrameSamples;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.StudyInputs;

/**
 * The resampling runs of {@link Nlspark} (bootstrap, one-sample, two-sample, correlation): on
 * DataFrames, on inputs read whole, and on described inputs whose read location is decided here
 * ({@link Ingest}); with TFCE or clusters as tiles of whole maps ({@link TfceAnalysis}).
 */
final class ResamplingRuns {
  private ResamplingRuns() {}

  /**
   * Runs the analysis on DataFrames ({@code y} two-sample's second group, {@code target}
   * correlation's, else null) through the data plane of DESIGN §8: their partitions are the
   * read splits ({@link DataFrameSamples}), executors cut them into voxel blocks, or small ones
   * are collected here and broadcast ({@code spark.nlspark.ingest}); the same bytes. {@code
   * orderBy} sorts the samples by ranking only the keys in Spark (a stable sort). With {@link
   * NlsparkOptions#mask(NiftiMask)} the columns are the mask's voxels (the data were masked
   * with it; another count is refused, exit 2): the maps are written on its grid, and TFCE and
   * cluster inference assemble whole maps from the blocks' slices as for images (DESIGN §9).
   */
  static RunReport run(SparkSession spark, Analysis analysis, Dataset<Row> x, Dataset<Row> y,
      double[] target, NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    NiftiMask mask = o.mask();
    // refused before the DataFrame is computed, with the words of the engine's own refusal
    WholeMapInference.requireGrid(mask != null, o.wholeMapSettings());
    String column = o.column() == null ? StudyInputs.DEFAULT_COLUMN : o.column();
    DataFrameSamples xs = DataFrameSamples.describe(x, column, o.orderBy());
    DistributedInputs inputs = y != null
        ? DistributedInputs.twoGroups(xs, DataFrameSamples.describe(y, column, o.orderBy()))
        : target != null ? DistributedInputs.withTarget(xs, target) : DistributedInputs.of(xs);
    if (mask != null) {
      requireMaskColumns(mask, xs.voxels());
    }
    return run(spark, analysis, new ResolvedInputs(inputs, mask, o.maskSource()), o, false);
  }

  /** Data already masked must have one column per voxel of their mask (exit 2). */
  private static void requireMaskColumns(NiftiMask mask, int columns) {
    if (mask.count() != columns) {
      throw new InvalidInputException("Cannot use the mask with these inputs: it selects "
          + mask.count() + " voxels, but the inputs have " + columns
          + " columns; the mask must be the one the data were masked with");
    }
  }

  /** The same on inputs read whole, on the grid and mask of {@code images}. */
  static RunReport run(SparkSession spark, Analysis analysis, JobInputs inputs,
      ResolvedInputs images, NlsparkOptions o, boolean progress) {
    JobSpec spec = o.toSpec(analysis);
    NiftiMask mask = images.mask();
    if (mask != null) {
      requireMaskColumns(mask, inputs.voxels());
    }
    SparkEngine engine = new SparkEngine(spark, o.grid(), o.partitions(), progress);
    RunReport report = o.wholeMapInference()
        ? engine.run(wholeMapAnalysis(spec, inputs, engine.parallelism(), images.grid(), o))
        : engine.run(VoxelwiseAnalysis.prepare(spec, inputs, engine.parallelism(), o.grid()));
    return ResultSteps.applied(images.onReport(report).mask(mask)
        .maskSource(images.maskSource())
        .inputs(images.described(), images.warnings()), o);
  }

  /**
   * The same on the described samples of {@code resolved}, on the grid of its mask: with TFCE
   * or cluster inference, tiles of whole maps assembled from the executors' voxel blocks
   * (DESIGN §9; with {@code --backend gpu} their slices from the GPU kernels), or, when the
   * samples are small enough to broadcast, read here first.
   */
  static RunReport run(SparkSession spark, Analysis analysis, ResolvedInputs resolved,
      NlsparkOptions o, boolean progress) {
    DistributedInputs inputs = resolved.samples();
    if (o.wholeMapInference()) {
      Ingest ingest = Ingest.of(spark, inputs);
      if (!ingest.onExecutors()) {
        JobInputs loaded = ingest.readHere(
            () -> inputs.load(new HadoopOpener(Nlspark.hadoopConf(spark))));
        RunReport report = run(spark, analysis, loaded, resolved, o, progress);
        report.engineFacts.put("ingest", ingest.facts());
        return report;
      }
      JobSpec spec = o.toSpec(analysis);
      SparkEngine engine = new SparkEngine(spark, o.grid(), o.partitions(), progress);
      TfceAnalysis whole = wholeMapAnalysis(spec, inputs.shape(), engine.parallelism(),
          resolved.grid(), o);
      RunReport report = engine.run(new DescribedAnalysis(whole, inputs, ingest));
      return ResultSteps.applied(resolved.onReport(report).mask(resolved.mask())
          .maskSource(resolved.maskSource())
        .inputs(resolved.described(), resolved.warnings()), o);
    }
    return ResultSteps.applied(resolved.onReport(new SparkEngine(spark, o.grid(),
        o.partitions(), progress).run(o.toSpec(analysis), inputs)).mask(resolved.mask())
        .maskSource(resolved.maskSource())
        .inputs(resolved.described(), resolved.warnings()), o);
  }

  /**
   * The TFCE / cluster-extent form of a permutation test: tiles that hold whole maps (see {@link
   * TfceAnalysis}). Needs the grid of image inputs ({@link ResolvedInputs#grid()}); without one,
   * exit 2.
   */
  static TfceAnalysis wholeMapAnalysis(JobSpec spec, JobInputs inputs, int parallelism,
      Adjacency grid, NlsparkOptions o) {
    return TfceAnalysis.prepare(spec, inputs, parallelism, o.grid(), grid,
        o.wholeMapSettings(grid));
  }
}
