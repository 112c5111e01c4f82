package org.nlspark.spark.api;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.voxelwise.VoxelwiseAnalysis;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscAnalysis;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.FdrMaps;
import org.nlspark.core.result.Findings;
import org.nlspark.core.result.FslNames;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.core.result.TailApproximation;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.tfce.MaskGrid;
import org.nlspark.core.tfce.TfceAnalysis;
import org.nlspark.core.tfce.WholeMapInference;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.timeseries.TimeSeriesAnalysis;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;
import org.nlspark.spark.data.DataFrameSamples;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.output.HadoopOutput;
import org.nlspark.spark.output.HadoopReport;
import org.nlspark.spark.output.NiftiOutputs;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.StudyInputs;

/**
 * The programmatic API (DESIGN §6): the CLI's commands as methods for notebooks and Spark
 * programs. Each runs on the given session's cluster through {@link SparkEngine} and returns core's
 * {@link RunReport} ({@code report.result} holds the per-voxel arrays). Paths are Hadoop URIs.
 */
public final class Nlspark {
  private Nlspark() {}

  /**
   * Intersubject correlation: voxel blocks as Spark tasks (same bits as {@code Isc.run} on
   * threads). {@code inputPath} is a (subjects, timepoints, voxels) {@code .npy}, or one 4-D
   * NIfTI per subject (a list file, directory or glob; see {@link SeriesInputs}) masked by
   * {@code options.maskFile} or the default mask. Options: iscSummary, iscMetric, nullMethod,
   * replicates, confidence, tail, fwer, seed, saveSamples, memoryBudgetGb, partitions, maskFile.
   */
  public static RunReport isc(SparkSession spark, String inputPath, NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    o.toIscOptions(); // every option checked before a file is opened
    return isc(spark, resolveSeries(spark, inputPath, "--input", o), o);
  }

  /**
   * ISC of a resolved input (DESIGN §8): executors read the series into voxel blocks, each
   * holding every subject's series of its voxels (ISC pairs subjects within a voxel), or small
   * series ({@code spark.nlspark.ingest}) are read on this JVM and broadcast; the same bytes.
   * For images the report carries the mask, so {@link #write} adds the {@code .nii.gz} maps;
   */
  public static RunReport isc(SparkSession spark, SeriesInputs input, NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    Isc.Options isc = o.toIscOptions();
    DistributedInputs inputs = Sources.series(spark, input, 3, null);
    ResolvedInputs images = input.hasGrid()
        ? ResolvedInputs.read(inputs.mask(), input.maskSource()) : ResolvedInputs.read(null, null);
    Ingest ingest = Ingest.of(spark, inputs);
    if (ingest.onExecutors()) {
      long[] shape = input.hasGrid() ? null
          : ((org.nlspark.core.data.NpySamples) inputs.x()).shape();
      int subjects = input.hasGrid() ? input.images().subjects() : (int) shape[0];
      int timepoints = input.hasGrid() ? input.images().timepoints() : (int) shape[1];
      return run(spark, new DescribedAnalysis(IscAnalysis.prepareOnExecutors(subjects,
          timepoints, inputs.x().voxels(), isc, o.memoryBudgetGb()), inputs, ingest), images, o,
          false);
    }
    IscAnalysis analysis = ingest.readHere(() -> {
      if (!input.hasGrid()) {
        return IscAnalysis.prepare(NpyInputs.readNpy(hadoopConf(spark), input.uri(),
            "--input", 3), isc, o.memoryBudgetGb());
      }
      SeriesInputs.Series s = input.read(hadoopConf(spark), inputs.mask());
      return IscAnalysis.prepare(s.values(), s.subjects(), s.timepoints(), s.voxels(), isc,
          o.memoryBudgetGb());
    });
    return run(spark, new DescribedAnalysis(analysis, null, ingest), images, o, false);
  }

  /**
   * Each voxel's correlation with a target series against surrogates of the target. {@code
   * inputPath} is a (timepoints, voxels) {@code .npy}, or one subject's 4-D NIfTI (also as a
   * list file, directory or glob naming one image) masked by {@code options.maskFile} or the
   * default mask; {@code targetPath} a (timepoints,) {@code .npy}. Options: nullMethod,
   * replicates, tail, fwer, seed, partitions, maskFile.
   */
  public static RunReport timeseriesCorrelation(SparkSession spark, String inputPath,
      String targetPath, NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
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
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    TimeSeriesCorrelation.Options ts = o.toTimeSeriesOptions();
    Configuration conf = hadoopConf(spark);
    input.requireOneSubject("timeseries-correlation");
    DistributedInputs series = Sources.series(spark, input, 2, null);
    NpyArray target = NpyInputs.readNpy(conf, targetPath, "--target", 1);
    DistributedInputs inputs = DistributedInputs.withTarget(series.x(), target.data());
    ResolvedInputs images = input.hasGrid()
        ? ResolvedInputs.read(inputs.mask(), input.maskSource()) : ResolvedInputs.read(null, null);
    Ingest ingest = Ingest.of(spark, inputs);
    if (ingest.onExecutors()) {
      return run(spark, new DescribedAnalysis(TimeSeriesCorrelation.prepareOnExecutors(
          inputs.x().samples(), inputs.x().voxels(), target.data(), ts)
          .withRequestedBudgetGb(o.memoryBudgetGb()), inputs, ingest), images, o, false);
    }
    TimeSeriesAnalysis analysis = ingest.readHere(() -> {
      if (!input.hasGrid()) {
        return TimeSeriesCorrelation.prepare(NpyInputs.readNpy(conf, input.uri(),
            "--input", 2), target, ts);
      }
      SeriesInputs.Series s = input.read(conf, inputs.mask());
      return TimeSeriesCorrelation.prepare(s.values(), s.timepoints(), s.voxels(),
          target.data(), ts);
    });
    return run(spark, new DescribedAnalysis(analysis.withRequestedBudgetGb(o.memoryBudgetGb()),
        null, ingest), images, o, false);
  }

  /**
   * The time-series input of isc or timeseries-correlation resolved (files, mask, every
   * header checked), not read; see {@link SeriesInputs}.
   */
  public static SeriesInputs resolveSeries(SparkSession spark, String input, String flag,
      NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    return SeriesInputs.resolve(hadoopConf(spark), input, flag, o.maskFile());
  }

  /**
   * Bootstrap of ridge weights (xTestPath null) or of predictions on xTestPath. Options: alpha,
   * replicates, confidence, seed, saveSamples, memoryBudgetGb, partitions.
   */
  public static RunReport ridgeBootstrap(SparkSession spark, String inputPath, String targetPath,
      String xTestPath, NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    RidgeBootstrap.Options ridge = o.toRidgeOptions();
    Configuration conf = hadoopConf(spark);
    // Every replicate's SVD takes all of X, so there are no voxel blocks: large inputs are read
    // whole by each task where it runs (DESIGN §8), from headers described here.
    HadoopOpener files = new HadoopOpener(conf);
    org.nlspark.core.data.NpySamples y = describeNpy(conf, files, targetPath, "--target", 0);
    org.nlspark.core.data.NpySamples x = describeNpy(conf, files, inputPath, "--input", 2);
    org.nlspark.core.data.NpySamples xTest = xTestPath == null ? null
        : describeNpy(conf, files, xTestPath, "--x-test", 2);
    long bytes = x.float64Bytes() + y.float64Bytes() + (xTest == null ? 0 : xTest.float64Bytes());
    Ingest ingest = Ingest.whole(spark, bytes, "NpySamples");
    if (ingest.onExecutors()) {
      RidgeBootstrap.checkShapes(x.shape(), y.shape(), xTest == null ? null : xTest.shape());
      return run(spark, new DescribedAnalysis(RidgeBootstrap.prepareOnExecutors(
          new org.nlspark.core.ridge.RidgeAnalysis.Files(x, y, xTest, files), x.samples(),
          x.voxels(), y.voxels(), xTest == null ? 0 : xTest.samples(), ridge), null, ingest),
          o, false);
    }
    TileAnalysis analysis = ingest.readHere(() -> {
      NpyArray ym = NpyInputs.readNpy(conf, targetPath, "--target", 0);
      if (ym.rank() == 0) {
        throw new InvalidInputException("Cannot run ridge-bootstrap: --target must be 1-D or"
            + " 2-D, but is a scalar");
      }
      return RidgeBootstrap.prepare(NpyInputs.readNpy(conf, inputPath, "--input", 2), ym,
          xTestPath == null ? null : NpyInputs.readNpy(conf, xTestPath, "--x-test", 2), ridge);
    });
    return run(spark, new DescribedAnalysis(analysis, null, ingest), o, false);
  }

  /** An .npy input described from its header (the checks of the driver read first). */
  private static org.nlspark.core.data.NpySamples describeNpy(Configuration conf,
      HadoopOpener files, String uri, String flag, int rank) {
    NpyInputs.checkNpyInput(conf, uri, flag);
    try {
      return org.nlspark.core.data.NpySamples.describe(files, uri, flag + " " + uri,
          Sources.SPLIT_BYTES, rank);
    } catch (java.io.UncheckedIOException e) {
      throw org.nlspark.spark.io.UserPaths.readFailure(e.getCause(), flag, uri);
    }
  }

  /** Runs any prepared analysis as Spark tasks; {@code progress} draws a line on stderr. */
  public static RunReport run(SparkSession spark, TileAnalysis analysis, NlsparkOptions options,
      boolean progress) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    return run(spark, analysis, ResolvedInputs.given(o), o, progress);
  }

  /** The same, the report carrying the mask of {@code images}. */
  static RunReport run(SparkSession spark, TileAnalysis analysis, ResolvedInputs images,
      NlsparkOptions o, boolean progress) {
    return withFdr(new SparkEngine(spark, o.grid(), o.partitions(), progress).run(analysis)
        .mask(images.mask()).maskSource(images.maskSource())
        .inputs(images.described(), images.warnings())
        .backendRequested(o.backendRequested()), o);
  }

  /**
   * With {@link NlsparkOptions#fdr}, the report whose result has a Benjamini–Hochberg q map after
   * each uncorrected p map ({@link FdrMaps}); with {@link NlsparkOptions#fslNames}, randomise's
   * 1 − p maps after the p maps ({@link FslNames}); else {@code report} itself.
   */
  /**
   * The FWER maps {@code --tail-approximation} refines: glm's {@code p_fwer_tstat1 ...} (each
   * contrast's tail and enumeration from its draw plan), else {@code p_fwer}, and with them the
   * whole-map FWER maps (TFCE, cluster extent, cluster mass) the run has.
   */
  @SuppressWarnings("unchecked")
  static List<TailApproximation.Target> tailTargets(RunReport report) {
    List<TailApproximation.Target> targets = new ArrayList<>();
    Map<String, Object> facts = report.result.facts();
    if (facts.get("contrasts") instanceof Map) {
      for (Map.Entry<String, Object> e : ((Map<String, Object>) facts.get("contrasts"))
          .entrySet()) {
        Map<String, Object> plan = (Map<String, Object>) e.getValue();
        wholeMapTargets(targets, "_" + e.getKey(), e.getKey(),
            org.nlspark.core.job.Tail.parse(String.valueOf(plan.get("tail"))),
            Boolean.TRUE.equals(plan.get("exact_enumeration")));
      }
      return targets;
    }
    Object parameters = report.analysis.describe().get("parameters");
    Object tail = parameters instanceof Map
        ? ((Map<String, Object>) parameters).get("tail") : null;
    if (tail != null) {
      wholeMapTargets(targets, "", "observed", org.nlspark.core.job.Tail.parse(
          String.valueOf(tail)), Boolean.TRUE.equals(facts.get("exact_enumeration")));
    }
    return targets;
  }

  /**
   * The voxelwise FWER map and the whole-map ones of one statistic ({@code s} "" or "_tstat1"),
   * named by {@link Findings.Kind}: TFCE keys are the tail's key of the score, cluster sizes are
   * their own key (upper: a size has no sign), masses |mass| (two-tailed keys). Maps the run does
   * not have are skipped.
   */
  private static void wholeMapTargets(List<TailApproximation.Target> targets, String s,
      String statistic, org.nlspark.core.job.Tail tail, boolean enumerated) {
    for (Findings.Kind kind : List.of(Findings.Kind.MAX_T, Findings.Kind.TFCE,
        Findings.Kind.CLUSTER_EXTENT, Findings.Kind.CLUSTER_MASS)) {
      org.nlspark.core.job.Tail keys = !kind.signedScore ? org.nlspark.core.job.Tail.UPPER
          : kind == Findings.Kind.CLUSTER_MASS ? org.nlspark.core.job.Tail.TWO : tail;
      targets.add(new TailApproximation.Target(kind.pMap + s,
          kind.scoreMap == null ? statistic : kind.scoreMap + s, kind.nullMap + s, keys,
          enumerated));
    }
  }

  static RunReport withFdr(RunReport report, NlsparkOptions o) {
    if (!o.fdr() && !o.fslNames() && !o.tailApproximation()) {
      return report;
    }
    Result r = o.tailApproximation()
        ? TailApproximation.of(report.result, tailTargets(report)) : report.result;
    r = o.fdr() ? FdrMaps.of(r) : r;
    r = o.fslNames() ? FslNames.of(r) : r;
    return new RunReport(report.analysis, report.plan, r, report.engine,
        report.parallelism, report.setupSeconds, report.computeSeconds, report.mergeSeconds,
        report.kernelSeconds, report.flops, report.engineFacts).mask(report.mask())
        .maskSource(report.maskSource()).inputs(report.inputs(), report.inputWarnings())
        .backendRequested(report.backendRequested());
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
    return run(spark, Analysis.BOOTSTRAP, samples, null, null, options);
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
    return run(spark, Analysis.ONE_SAMPLE, samples, null, null, options);
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
    return run(spark, Analysis.TWO_SAMPLE, x, y, null, options);
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
    return run(spark, Analysis.CORRELATION, x, null, target, options);
  }

  /**
   * The inputs named by paths, resolved (files, order, format, mask) but not read; see
   * {@link StudyInputs}. {@code input2} is null but for two-sample.
   */
  public static StudyInputs resolve(SparkSession spark, String input, String input2,
      NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    return StudyInputs.resolve(hadoopConf(spark), input, input2, o.maskFile(), o.column(),
        o.orderBy());
  }

  /**
   * Runs the analysis on resolved inputs; the report carries the mask of image inputs.
   * {@code target} is correlation's, else null. Every input form (.npy, NIfTI, Parquet, also
   * sorted by {@code --order-by}) goes to the engine as sources ({@link Sources}): executors read
   * them into voxel blocks, or the driver reads small ones ({@code spark.nlspark.ingest}); so do
   * TFCE and cluster inference, whose whole maps are then assembled from the blocks' slices
   * (DESIGN §9; with {@code --backend gpu} the slices come from the GPU kernels on the
   * executors).
   */
  public static RunReport run(SparkSession spark, Analysis analysis, StudyInputs study,
      double[] target, NlsparkOptions options, boolean progress) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    if (!study.executorsCanRead()) {
      return run(spark, analysis, study.load(hadoopConf(spark), analysis, target), o, progress);
    }
    return run(spark, analysis, ResolvedInputs.of(spark, study, target), o, progress);
  }

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
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
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

  /** Runs any analysis; {@code progress} draws a progress line on stderr. */
  public static RunReport run(SparkSession spark, Analysis analysis, JobInputs inputs,
      NlsparkOptions options, boolean progress) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    return run(spark, analysis, inputs, ResolvedInputs.given(o), o, progress);
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
    return withFdr(report.mask(mask).maskSource(images.maskSource())
        .inputs(images.described(), images.warnings()), o);
  }

  /**
   * Runs a resampling job (bootstrap, one-sample, two-sample, correlation) on inputs described,
   * not read (DESIGN §8): large ones are read by executors into voxel blocks and never pass
   * through the driver; small ones are read here and broadcast ({@code spark.nlspark.ingest}).
   * The outputs are the same bytes either way. Paths reach this through {@link #resolve} and
   * {@link Sources#of}.
   */
  public static RunReport run(SparkSession spark, Analysis analysis, DistributedInputs inputs,
      NlsparkOptions options, boolean progress) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    return run(spark, analysis, new ResolvedInputs(inputs, inputs.mask(), o.maskSource()), o,
        progress);
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
            () -> inputs.load(new HadoopOpener(hadoopConf(spark))));
        RunReport report = run(spark, analysis, loaded, resolved, o, progress);
        report.engineFacts.put("ingest", ingest.facts());
        return report;
      }
      JobSpec spec = o.toSpec(analysis);
      SparkEngine engine = new SparkEngine(spark, o.grid(), o.partitions(), progress);
      TfceAnalysis whole = wholeMapAnalysis(spec, inputs.shape(), engine.parallelism(),
          resolved.grid(), o);
      RunReport report = engine.run(new DescribedAnalysis(whole, inputs, ingest));
      return withFdr(report.mask(resolved.mask()).maskSource(resolved.maskSource())
        .inputs(resolved.described(), resolved.warnings()), o);
    }
    return withFdr(new SparkEngine(spark, o.grid(), o.partitions(), progress)
        .run(o.toSpec(analysis), inputs).mask(resolved.mask())
        .maskSource(resolved.maskSource())
        .inputs(resolved.described(), resolved.warnings()), o);
  }

  /**
   * One row per voxel: {@code voxel} (int), then one double column per per-voxel output, in the
   * order of DESIGN §6 (e.g. mean, std, ci_lower, ci_upper, z, p). Outputs of another shape
   * (samples, null_max) are left out; read them from {@code result.outputs()}.
   */
  public static Dataset<Row> toDataFrame(SparkSession spark, Result result) {
    int voxels = result.voxels();
    List<Output> columns = new ArrayList<>();
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("voxel", DataTypes.IntegerType, false));
    for (Output o : result.outputs()) {
      if (o.shape().length == 1 && o.shape()[0] == voxels) {
        columns.add(o);
        fields.add(DataTypes.createStructField(o.name(), DataTypes.DoubleType, true));
      }
    }
    List<Row> rows = new ArrayList<>(voxels);
    for (int v = 0; v < voxels; v++) {
      Object[] values = new Object[columns.size() + 1];
      values[0] = v;
      for (int c = 0; c < columns.size(); c++) {
        values[c + 1] = columns.get(c).values()[v];
      }
      rows.add(RowFactory.create(values));
    }
    return spark.createDataFrame(rows, DataTypes.createStructType(fields));
  }

  /** A Breeze vector over the same values (copied), for Scala users. */
  public static breeze.linalg.DenseVector<Object> toBreeze(double[] values) {
    return new breeze.linalg.DenseVector$mcD$sp(values.clone());
  }

  /**
   * Writes the outputs and summary.json into {@code dir} atomically (see {@link HadoopOutput.OutputDir}),
   * using the active session's Hadoop configuration. Returns the directory written.
   */
  public static String write(RunReport report, String dir, boolean overwrite) {
    Configuration conf = SparkSession.getActiveSession().isDefined()
        ? hadoopConf(SparkSession.getActiveSession().get()) : new Configuration();
    return write(conf, report, report.summary(), dir, overwrite);
  }

  /** Writes {@code summary} as summary.json next to the report's outputs. */
  public static String write(Configuration conf, RunReport report, Map<String, Object> summary,
      String dir, boolean overwrite) {
    long start = System.nanoTime();
    try (HadoopOutput.OutputDir out = HadoopOutput.OutputDir.open(conf, dir, overwrite)) {
      for (Output o : report.result.outputs()) {
        out.writeNpy(o);
      }
      NiftiOutputs.write(out, "", report);
      Map<String, Object> full = summary;
      if (report.mask() != null && !summary.containsKey("grid")) {
        full = new java.util.LinkedHashMap<>(summary);
        full.put("grid", NiftiOutputs.grid(report.mask(), report.maskSource(), conf));
      }
      // a Python call's staged files are gone once it returns: named by their arguments
      @SuppressWarnings("unchecked")
      Map<String, Object> named = (Map<String, Object>) PythonCall.relabel(full);
      out.writeJson("summary.json", withWriteTime(named, (System.nanoTime() - start) / 1e9));
      String written = out.commit();
      HadoopReport.writeOrWarn(conf, written); // report.html: last, from the finished directory
      return written;
    }
  }

  /** The summary with the time the outputs took to write, so its timings add up to the wall. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> withWriteTime(Map<String, Object> summary, double seconds) {
    Map<String, Object> m = new java.util.LinkedHashMap<>(summary);
    Object t = m.get("timings");
    if (t instanceof Map) {
      Map<String, Object> timings = new java.util.LinkedHashMap<>((Map<String, Object>) t);
      double before = ((Number) timings.getOrDefault("write_seconds", 0.0)).doubleValue();
      timings.put("write_seconds", seconds);
      timings.put("wall_seconds",
          ((Number) timings.get("wall_seconds")).doubleValue() - before + seconds);
      m.put("timings", timings);
    }
    return m;
  }

  static Configuration hadoopConf(SparkSession spark) {
    return spark.sparkContext().hadoopConfiguration();
  }

  /**
   * The TFCE / cluster-extent form of a permutation test: tiles that hold whole maps (see {@link
   * TfceAnalysis}). Needs the grid of image inputs ({@link ResolvedInputs#grid()}); without one,
   * exit 2.
   */
  static TfceAnalysis wholeMapAnalysis(JobSpec spec, JobInputs inputs, int parallelism,
      MaskGrid grid, NlsparkOptions o) {
    return TfceAnalysis.prepare(spec, inputs, parallelism, o.grid(), grid,
        o.wholeMapSettings());
  }

  // ---- glm (DESIGN §9) ----

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
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    PreparedGlm prepared = prepareGlm(spark, input, design, contrasts, o);
    return run(spark, prepared.analysis(), prepared.inputs(), o, progress);
  }

  /**
   * A glm run read and checked, not run: the analysis, and the resolved inputs whose mask the
   * maps are written on.
   */
  public record PreparedGlm(TileAnalysis analysis, ResolvedInputs inputs) {}

  /** The same on data and a model already in memory ({@code blocks} null for none). */
  public static RunReport glm(SparkSession spark, DataMatrix y,
      org.nlspark.core.glm.GlmDesign design, org.nlspark.core.glm.GlmContrasts contrasts,
      int[] blocks, NlsparkOptions options) {
    NlsparkOptions o = options == null ? NlsparkOptions.defaults() : options;
    org.nlspark.core.glm.GlmRun.Options glm = o.toGlmOptions(blocks, "exchangeability blocks");
    WholeMapInference.requireGrid(o.mask() != null, o.wholeMapSettings());
    checkVarianceSmoothing(o, o.mask() != null, contrasts);
    return run(spark, withWholeMaps(org.nlspark.core.glm.GlmAnalysis.prepare(y, design,
        contrasts, glm, o.backendRequested(), o.memoryBudgetGb(), o.demean()), o.mask(), o), o,
        false);
  }

  /**
   * The glm run itself, or with {@code tfce} / {@code clusterThreshold} its whole-map form on
   * the grid of {@code mask} (the inputs' mask, or null; DESIGN §9).
   */
  static TileAnalysis withWholeMaps(org.nlspark.core.glm.GlmAnalysis analysis, NiftiMask mask,
      NlsparkOptions o) {
    if (!o.wholeMapInference() && o.varianceSmoothing() == null) {
      return analysis.withTailApproximation(o.tailApproximation());
    }
    MaskGrid grid = mask == null ? null : MaskGrid.of(mask);
    if (o.varianceSmoothing() == null) {
      return analysis.withWholeMaps(grid, o.wholeMapSettings());
    }
    return analysis.withWholeMaps(grid, o.wholeMapSettings(), o.varianceSmoothing(),
        mask == null ? null : org.nlspark.core.tfce.VarianceSmoothing.voxelSizes(
            mask.grid().affine()));
  }

  /**
   * The refusals of {@code --variance-smoothing} that need no data (exit 2): an input without a
   * grid, F contrasts.
   */
  static void checkVarianceSmoothing(NlsparkOptions o, boolean hasGrid,
      org.nlspark.core.glm.GlmContrasts contrasts) {
    if (o.varianceSmoothing() == null) {
      return;
    }
    org.nlspark.core.tfce.VarianceSmoothing.requireGrid(hasGrid);
    org.nlspark.core.glm.GlmWholeMapAnalysis.requireTContrasts(contrasts.f().length);
  }

  /**
   * Reads and validates everything a glm run needs, before any tile runs: every refusal of
   * DESIGN §9 (design rows, zero or second constant columns, NaN, contrast lengths,
   * non-estimable contrasts, unequal whole blocks) is an exit-2 error here, and so is
   * {@code tfce} or {@code clusterThreshold} without the grid of a mask image. With either, the
   * analysis is {@link org.nlspark.core.glm.GlmWholeMapAnalysis}. {@code input} is any input
   * form of {@link #bootstrap}; .npy and NIfTI inputs take the data plane of DESIGN §8 (a {@link
   * DescribedAnalysis}: executors read them into voxel blocks, or small ones are read here,
   * {@code spark.nlspark.ingest}), with or without TFCE, clusters, {@code --demean} and {@code
   * --variance-smoothing}; for images the run's mask is in the result's {@link ResolvedInputs},
   * so that maps are written on its grid.
   */
  public static PreparedGlm prepareGlm(SparkSession spark, String input,
      String design, String contrasts, NlsparkOptions o) {
    Configuration conf = hadoopConf(spark);
    String blocksPath = o.exchangeabilityBlocks();
    // Options first (an empty stand-in for blocks not read yet), then the files.
    org.nlspark.core.glm.GlmRun.Options glm = o.toGlmOptions(
        blocksPath == null ? null : new int[0], blocksPath);
    // Resolved (headers, the mask), not read: an input without a grid is refused before reading.
    StudyInputs study = resolve(spark, input, null, o);
    WholeMapInference.requireGrid(o.mask() != null || study.hasGrid(), o.wholeMapSettings());
    org.nlspark.core.glm.GlmDesign d = org.nlspark.core.glm.GlmFiles.readDesign(
        readLines(conf, design, "--design"), design);
    String f = o.fContrasts();
    org.nlspark.core.glm.GlmContrasts c = org.nlspark.core.glm.GlmFiles.readContrasts(
        readLines(conf, contrasts, "--contrasts"), contrasts,
        f == null ? null : readLines(conf, f, "--f-contrasts"), f);
    int[] blocks = blocksPath == null ? null : org.nlspark.core.glm.GlmFiles.readBlocks(
        readLines(conf, blocksPath, "--exchangeability-blocks"), blocksPath);
    glm = o.toGlmOptions(blocks, blocksPath);
    checkVarianceSmoothing(o, o.mask() != null || study.hasGrid(), c);
    if (!study.executorsCanRead()) {
      ResolvedInputs images = ResolvedInputs.given(o); // Parquet: read on this JVM
      return new PreparedGlm(withWholeMaps(org.nlspark.core.glm.GlmAnalysis.prepare(
          readWhole(spark, study, images), d, c, glm, o.backendRequested(), o.memoryBudgetGb(),
          o.demean()), images.mask(), o), images);
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
          org.nlspark.core.glm.GlmAnalysis.prepareOnExecutors(inputs.x().samples(),
              inputs.x().voxels(), d, c, glm, o.backendRequested(), o.memoryBudgetGb(),
              o.demean()), resolved.mask(), o), inputs, ingest), resolved);
    }
    DataMatrix y = ingest.readHere(() -> inputs.load(new HadoopOpener(hadoopConf(spark))).x());
    return new PreparedGlm(new DescribedAnalysis(withWholeMaps(
        org.nlspark.core.glm.GlmAnalysis.prepare(y, d, c, glm, o.backendRequested(),
            o.memoryBudgetGb(), o.demean()), resolved.mask(), o), null, ingest), resolved);
  }

  /**
   * One resolved input read whole on this JVM, for analyses that need all samples here, with
   * the readers of every other run: through the sources of {@code images}, else (Parquet) by
   * the study's own reader.
   */
  static DataMatrix readWhole(SparkSession spark, StudyInputs study, ResolvedInputs images) {
    if (images.samples() == null) {
      return study.load(hadoopConf(spark), Analysis.ONE_SAMPLE, null).x();
    }
    return images.samples().load(new HadoopOpener(hadoopConf(spark))).x();
  }

  /** A small text file (a design, contrasts, blocks) through Hadoop, as lines. */
  static List<String> readLines(Configuration conf, String uri, String flag) {
    org.apache.hadoop.fs.Path path = org.nlspark.spark.io.UserPaths.toPath(uri, flag);
    try {
      org.apache.hadoop.fs.FileSystem fs = path.getFileSystem(conf);
      // a FIFO would block the read for ever
      org.nlspark.spark.io.HadoopNiftiFiles.checkLocal(fs.makeQualified(path), flag + " " + uri,
          false);
      org.apache.hadoop.fs.FileStatus status =
          org.nlspark.spark.io.UserPaths.status(fs, path, flag + " " + uri);
      if (!status.isFile()) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri
            + ": it is not a regular file");
      }
      long limit = 64L << 20;
      if (status.getLen() > limit) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri + ": it has "
            + status.getLen() + " bytes, more than the " + limit + " a text table may have");
      }
      try (java.io.BufferedReader r = new java.io.BufferedReader(new java.io.InputStreamReader(
          fs.open(path), java.nio.charset.StandardCharsets.UTF_8))) {
        List<String> lines = new ArrayList<>();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          lines.add(line); // GlmFiles drops a byte-order mark, for every front end
        }
        return lines;
      }
    } catch (java.io.IOException e) {
      throw org.nlspark.spark.io.UserPaths.readFailure(e, flag, uri);
    }
  }
}
