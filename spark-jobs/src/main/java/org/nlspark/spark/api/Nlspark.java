package org.nlspark.spark.api;

import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.glm.GlmContrasts;
import org.nlspark.core.glm.GlmDesign;
import org.nlspark.core.glm.GlmWholeMapAnalysis;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.result.Result;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.output.HadoopOutput;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.StudyInputs;

/**
 * The programmatic API (DESIGN §6): the CLI's commands as methods for notebooks and Spark
 * programs. Each runs on the given session's cluster through {@link SparkEngine} and returns core's
 * {@link RunReport} ({@code report.result} holds the per-voxel arrays). Paths are Hadoop URIs.
 *
 * <p>This class is the door: it resolves the inputs a method names and hands on to the runs of
 * its family ({@link ResamplingRuns}, {@link GlmRuns}, {@link SeriesRuns}), which decide where
 * the samples are read ({@link org.nlspark.spark.data.Ingest}) and prepare the analysis; every
 * run ends in {@link ResultSteps} (tail approximation, FDR, FSL names), and {@link ResultExport}
 * takes a result out as a DataFrame or as files.
 */
public final class Nlspark {
  private Nlspark() {}

  /**
   * Intersubject correlation: voxel blocks as Spark tasks (same bits as {@code Isc.run} on
   * threads). {@code inputPath} is a (subjects, timepoints, voxels) {@code .npy}, or one 4-D
   * NIfTI or surface series per subject (a list file, directory or glob; see {@link
   * SeriesInputs}) masked by {@code options.maskFile} or the default mask. Options:
   * iscSummary, iscMetric, nullMethod, replicates, confidence, tail, fwer, seed, saveSamples,
   * memoryBudgetGb, partitions, maskFile, the mesh files.
   */
  public static RunReport isc(SparkSession spark, String inputPath, NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    o.toIscOptions(); // every option checked before a file is opened
    return isc(spark, resolveSeries(spark, inputPath, "--input", o), o);
  }

  /**
   * ISC of a resolved input (DESIGN §8): executors read the series into voxel blocks (every
   * subject's series of their voxels), or small ones are read here and broadcast; the same bytes.
   */
  public static RunReport isc(SparkSession spark, SeriesInputs input, NlsparkOptions options) {
    return SeriesRuns.isc(spark, input, NlsparkOptions.orDefaults(options));
  }

  /**
   * Each voxel's correlation with a target series against surrogates of the target. {@code
   * inputPath} is a (timepoints, voxels) {@code .npy}, or one subject's 4-D NIfTI or surface
   * series (also as a list file, directory or glob naming one file) masked by {@code
   * options.maskFile} or the default mask; {@code targetPath} a (timepoints,) {@code .npy}.
   * Options: nullMethod, replicates, tail, fwer, seed, partitions, maskFile, the mesh files.
   */
  public static RunReport timeseriesCorrelation(SparkSession spark, String inputPath,
      String targetPath, NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    o.toTimeSeriesOptions();
    return timeseriesCorrelation(spark, resolveSeries(spark, inputPath, "--input", o)
        .requireOneSubject("timeseries-correlation"), targetPath, o);
  }

  /**
   * The same on a resolved input (DESIGN §8): executors read the series into voxel blocks (the
   * target and its surrogates travel with the tiles), or a small series
   * ({@code spark.nlspark.ingest}) is read on this JVM and broadcast; the same bytes.
   */
  public static RunReport timeseriesCorrelation(SparkSession spark, SeriesInputs input,
      String targetPath, NlsparkOptions options) {
    return SeriesRuns.timeseriesCorrelation(spark, input, targetPath,
        NlsparkOptions.orDefaults(options));
  }

  /**
   * The time-series input of isc or timeseries-correlation resolved (files, mask, every
   * header checked), not read; see {@link SeriesInputs}.
   */
  public static SeriesInputs resolveSeries(SparkSession spark, String input, String flag,
      NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    return SeriesInputs.resolve(hadoopConf(spark), input, flag, o.maskFile(), o.meshFiles());
  }

  /**
   * Bootstrap of ridge weights (xTestPath null) or of predictions on xTestPath. Options: alpha,
   * replicates, confidence, seed, saveSamples, memoryBudgetGb, partitions.
   */
  public static RunReport ridgeBootstrap(SparkSession spark, String inputPath, String targetPath,
      String xTestPath, NlsparkOptions options) {
    return SeriesRuns.ridgeBootstrap(spark, inputPath, targetPath, xTestPath,
        NlsparkOptions.orDefaults(options));
  }

  /** Runs any prepared analysis as Spark tasks; {@code progress} draws a line on stderr. */
  public static RunReport run(SparkSession spark, TileAnalysis analysis, NlsparkOptions options,
      boolean progress) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    return run(spark, analysis, ResolvedInputs.given(o), o, progress);
  }

  /** The same, the report carrying the mask of {@code images}. */
  static RunReport run(SparkSession spark, TileAnalysis analysis, ResolvedInputs images,
      NlsparkOptions o, boolean progress) {
    return ResultSteps.applied(images.onReport(
        new SparkEngine(spark, o.grid(), o.partitions(), progress).run(analysis))
        .mask(images.mask()).maskSource(images.maskSource())
        .inputs(images.described(), images.warnings())
        .backendRequested(o.backendRequested()), o);
  }

  /**
   * Bootstrap of {@code inputPath}: an .npy matrix, a 4-D NIfTI, a list file, directory or glob
   * of 3-D NIfTI images, or a Parquet dataset (DESIGN §8). NIfTI inputs take the mask of
   * {@code options.maskFile} (else the default mask); Parquet the column of
   * {@code options.column} (default voxels) and {@code options.orderBy}.
   */
  public static RunReport bootstrap(SparkSession spark, String inputPath, NlsparkOptions options) {
    return run(spark, Analysis.BOOTSTRAP, resolve(spark, inputPath, null, options), null,
        options, false);
  }

  public static RunReport bootstrap(SparkSession spark, DataMatrix x, NlsparkOptions options) {
    return run(spark, Analysis.BOOTSTRAP, JobInputs.of(x), options, false);
  }

  /**
   * Bootstrap of a DataFrame with one row per sample and the voxel values in an array column
   * ({@code options.column}, default voxels), in the DataFrame's row order unless
   * {@code options.orderBy} names a column. Its partitions are the read splits of the data
   * plane (executors cut them into voxel blocks; small ones are collected here), also with
   * {@code orderBy} (Spark ranks the keys), with a mask ({@code options.mask}: the columns are
   * its voxels) and with TFCE or cluster inference (whole maps from the blocks).
   */
  public static RunReport bootstrap(SparkSession spark, Dataset<Row> samples,
      NlsparkOptions options) {
    return ResamplingRuns.run(spark, Analysis.BOOTSTRAP, samples, null, null, options);
  }

  /** Sign-flip test of the mean (or t) against 0; inputs as {@link #bootstrap}. */
  public static RunReport oneSample(SparkSession spark, String inputPath, NlsparkOptions options) {
    return run(spark, Analysis.ONE_SAMPLE, resolve(spark, inputPath, null, options), null,
        options, false);
  }

  public static RunReport oneSample(SparkSession spark, DataMatrix x, NlsparkOptions options) {
    return run(spark, Analysis.ONE_SAMPLE, JobInputs.of(x), options, false);
  }

  /** Sign-flip test of a DataFrame's samples (as {@link #bootstrap(SparkSession, Dataset,
   * NlsparkOptions)}). */
  public static RunReport oneSample(SparkSession spark, Dataset<Row> samples,
      NlsparkOptions options) {
    return ResamplingRuns.run(spark, Analysis.ONE_SAMPLE, samples, null, null, options);
  }

  /** Label-permutation test of group X against group Y (same voxels); inputs as {@link
   * #bootstrap}, both on one grid for NIfTI. */
  public static RunReport twoSample(SparkSession spark, String x, String y,
      NlsparkOptions options) {
    return run(spark, Analysis.TWO_SAMPLE, resolve(spark, x, y, options), null, options, false);
  }

  public static RunReport twoSample(SparkSession spark, DataMatrix x, DataMatrix y,
      NlsparkOptions options) {
    return run(spark, Analysis.TWO_SAMPLE, JobInputs.twoGroups(x, y), options, false);
  }

  /** Two groups as DataFrames of the shape of {@link #bootstrap(SparkSession, Dataset,
   * NlsparkOptions)}. */
  public static RunReport twoSample(SparkSession spark, Dataset<Row> x, Dataset<Row> y,
      NlsparkOptions options) {
    return ResamplingRuns.run(spark, Analysis.TWO_SAMPLE, x, y, null, options);
  }

  /** Permutation test of each voxel's correlation with the target (y permuted). */
  public static RunReport correlation(SparkSession spark, String x, String target,
      NlsparkOptions options) {
    return run(spark, Analysis.CORRELATION, resolve(spark, x, null, options),
        NpyInputs.readVector(hadoopConf(spark), target, "--target"), options, false);
  }

  public static RunReport correlation(SparkSession spark, DataMatrix x, double[] target,
      NlsparkOptions options) {
    return run(spark, Analysis.CORRELATION, JobInputs.withTarget(x, target), options, false);
  }

  /** Correlation of a DataFrame's samples with the target (one value per row, in order). */
  public static RunReport correlation(SparkSession spark, Dataset<Row> x, double[] target,
      NlsparkOptions options) {
    return ResamplingRuns.run(spark, Analysis.CORRELATION, x, null, target, options);
  }

  /**
   * The inputs named by paths, resolved (files, order, format, mask) but not read; see
   * {@link StudyInputs}. {@code input2} is null but for two-sample.
   */
  public static StudyInputs resolve(SparkSession spark, String input, String input2,
      NlsparkOptions options) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    return StudyInputs.resolve(hadoopConf(spark), input, input2, o.maskFile(), o.column(),
        o.orderBy(), o.meshFiles());
  }

  /**
   * Runs the analysis on resolved inputs ({@code target}: correlation's, else null); the report
   * carries the mask of image inputs. Every input form goes to the engine as sources, read by
   * executors into voxel blocks or here when small; TFCE and clusters assemble whole maps from
   * the blocks' slices (DESIGN §8, §9).
   */
  public static RunReport run(SparkSession spark, Analysis analysis, StudyInputs study,
      double[] target, NlsparkOptions options, boolean progress) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    if (!study.executorsCanRead()) {
      return run(spark, analysis, study.load(hadoopConf(spark), analysis, target), o, progress);
    }
    return ResamplingRuns.run(spark, analysis, ResolvedInputs.of(spark, study, target), o,
        progress);
  }

  /** Runs any analysis; {@code progress} draws a progress line on stderr. */
  public static RunReport run(SparkSession spark, Analysis analysis, JobInputs inputs,
      NlsparkOptions options, boolean progress) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    return ResamplingRuns.run(spark, analysis, inputs, ResolvedInputs.given(o), o, progress);
  }

  /**
   * Runs a resampling job on inputs described, not read (DESIGN §8, {@link Sources#of}): large
   * ones read by executors into voxel blocks, small ones here and broadcast; the same bytes.
   */
  public static RunReport run(SparkSession spark, Analysis analysis, DistributedInputs inputs,
      NlsparkOptions options, boolean progress) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    return ResamplingRuns.run(spark, analysis,
        new ResolvedInputs(inputs, inputs.mask(), o.maskSource()), o, progress);
  }

  /**
   * One row per voxel: {@code voxel} (int), then one double column per per-voxel output, in the
   * order of DESIGN §6 (e.g. mean, std, ci_lower, ci_upper, z, p). Outputs of another shape
   * (samples, null_max) are left out; read them from {@code result.outputs()}.
   */
  public static Dataset<Row> toDataFrame(SparkSession spark, Result result) {
    return ResultExport.toDataFrame(spark, result);
  }

  /** A Breeze vector over the same values (copied), for Scala users. */
  public static breeze.linalg.DenseVector<Object> toBreeze(double[] values) {
    return ResultExport.toBreeze(values);
  }

  /**
   * Writes the outputs and summary.json into {@code dir} atomically (see {@link
   * HadoopOutput.OutputDir}), using the active session's Hadoop configuration. Returns the
   * directory written.
   */
  public static String write(RunReport report, String dir, boolean overwrite) {
    Configuration conf = SparkSession.getActiveSession().isDefined()
        ? hadoopConf(SparkSession.getActiveSession().get()) : new Configuration();
    return ResultExport.write(conf, report, report.summary(), dir, overwrite);
  }

  /** Writes {@code summary} as summary.json next to the report's outputs. */
  public static String write(Configuration conf, RunReport report, Map<String, Object> summary,
      String dir, boolean overwrite) {
    return ResultExport.write(conf, report, summary, dir, overwrite);
  }

  static Configuration hadoopConf(SparkSession spark) {
    return spark.sparkContext().hadoopConfiguration();
  }

  /**
   * General linear model permutation inference (Freedman-Lane): {@code input} (samples x
   * voxels), {@code design} (CSV/TSV with a header, or VEST design.mat), {@code contrasts}
   * (CSV/TSV or VEST design.con). Options: fContrasts, errors, exchangeabilityBlocks,
   * wholeBlocks, replicates (P), tail (of t; F is upper), fwer, fwerAcrossContrasts, seed,
   * precision, backend, memoryBudgetGb, partitions, and with {@code mask}: tfce,
   * clusterThreshold. Outputs {@code tstat1 p_tstat1 p_fwer_tstat1 null_max_tstat1 [tfce_tstat1
   * p_tfce_tstat1 p_fwer_tfce_tstat1 null_max_tfce_tstat1] [cluster_size_tstat1 ...] ... fstat1
   * ... p_cfwer_*}.
   */
  public static RunReport glm(SparkSession spark, String input, String design, String contrasts,
      NlsparkOptions options) {
    return glm(spark, input, design, contrasts, options, false);
  }

  /**
   * The same, {@code progress} drawing a line on stderr: the files are read and the model
   * checked (exit 2) before any tile runs.
   */
  public static RunReport glm(SparkSession spark, String input, String design, String contrasts,
      NlsparkOptions options, boolean progress) {
    NlsparkOptions o = NlsparkOptions.orDefaults(options);
    PreparedGlm prepared = prepareGlm(spark, input, design, contrasts, o);
    return run(spark, prepared.analysis(), prepared.inputs(), o, progress);
  }

  /**
   * A glm run read and checked, not run: the analysis, and the resolved inputs whose mask the
   * maps are written on.
   */
  public record PreparedGlm(TileAnalysis analysis, ResolvedInputs inputs) {}

  /** The same on data and a model already in memory ({@code blocks} null for none). */
  public static RunReport glm(SparkSession spark, DataMatrix y, GlmDesign design,
      GlmContrasts contrasts, int[] blocks, NlsparkOptions options) {
    return GlmRuns.glm(spark, y, design, contrasts, blocks == null ? null
        : org.nlspark.core.glm.GlmRun.Options.oneColumn(blocks), options);
  }

  /**
   * The same with PALM's multi-level exchangeability blocks: one row per sample, one column per
   * level (DESIGN §9).
   */
  public static RunReport glmWithBlockLevels(SparkSession spark, DataMatrix y,
      GlmDesign design, GlmContrasts contrasts, int[][] blockLevels, NlsparkOptions options) {
    return GlmRuns.glm(spark, y, design, contrasts, blockLevels, options);
  }

  /**
   * Reads and validates everything a glm run needs, before any tile runs: every refusal of
   * DESIGN §9 (design rows, zero or second constant columns, NaN, contrast lengths,
   * non-estimable contrasts, unequal whole blocks) is an exit-2 error here, and so is
   * {@code tfce} or {@code clusterThreshold} without the grid of a mask image. With either, the
   * analysis is {@link GlmWholeMapAnalysis}. {@code input} is any input
   * form of {@link #bootstrap}; .npy and NIfTI inputs take the data plane of DESIGN §8 (a {@link
   * DescribedAnalysis}: executors read them into voxel blocks, or small ones are read here,
   * {@code spark.nlspark.ingest}), with or without TFCE, clusters, {@code --demean} and {@code
   * --variance-smoothing}; for images the run's mask is in the result's {@link ResolvedInputs},
   * so that maps are written on its grid.
   */
  public static PreparedGlm prepareGlm(SparkSession spark, String input,
      String design, String contrasts, NlsparkOptions o) {
    return GlmRuns.prepareGlm(spark, input, design, contrasts, o);
  }
}
