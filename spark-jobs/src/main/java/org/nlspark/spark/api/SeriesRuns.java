package org.nlspark.spark.api;

import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.NpyArray;
import org.nlspark.core.isc.Isc;
import org.nlspark.core.isc.IscAnalysis;
import org.nlspark.core.ridge.RidgeAnalysis;
import org.nlspark.core.ridge.RidgeBootstrap;
import org.nlspark.core.tile.TileAnalysis;
import org.nlspark.core.timeseries.TimeSeriesAnalysis;
import org.nlspark.core.timeseries.TimeSeriesCorrelation;
import org.nlspark.spark.data.DescribedAnalysis;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Ingest;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.UserPaths;

/**
 * The runs of {@link Nlspark} on time series and on ridge inputs: each decides where its samples
 * are read ({@link Ingest}), prepares its analysis there, and hands it to {@link Nlspark#run}.
 */
final class SeriesRuns {
  private SeriesRuns() {}

  /** {@link Nlspark#isc(SparkSession, SeriesInputs, NlsparkOptions)}. */
  static RunReport isc(SparkSession spark, SeriesInputs input, NlsparkOptions o) {
    Isc.Options isc = o.toIscOptions();
    DistributedInputs inputs = Sources.series(spark, input, 3, null);
    ResolvedInputs images = resolved(input, inputs);
    Ingest ingest = Ingest.of(spark, inputs);
    // files: one a subject; an .npy: its first axis (an empty one is refused by Isc's checks)
    int subjects = input.hasGrid() || input.surface() != null ? input.files().size()
        : (int) ((NpySamples) inputs.x()).shape()[0];
    int timepoints = subjects == 0 ? 0 : inputs.x().samples() / subjects;
    if (ingest.onExecutors()) {
      return Nlspark.run(spark, new DescribedAnalysis(IscAnalysis.prepareOnExecutors(subjects,
          timepoints, inputs.x().voxels(), isc, o.memoryBudgetGb()), inputs, ingest), images, o,
          false);
    }
    IscAnalysis analysis = ingest.readHere(() -> {
      if (input.surface() != null) { // read as executors would, split by split
        return IscAnalysis.prepare(inputs.x().readAll(new HadoopOpener(Nlspark.hadoopConf(
            spark))).values(), subjects, timepoints, inputs.x().voxels(), isc,
            o.memoryBudgetGb());
      }
      if (!input.hasGrid()) {
        return IscAnalysis.prepare(NpyInputs.readNpy(Nlspark.hadoopConf(spark), input.uri(),
            "--input", 3), isc, o.memoryBudgetGb());
      }
      SeriesInputs.Series s = input.read(Nlspark.hadoopConf(spark), inputs.mask());
      return IscAnalysis.prepare(s.values(), s.subjects(), s.timepoints(), s.voxels(), isc,
          o.memoryBudgetGb());
    });
    return Nlspark.run(spark, new DescribedAnalysis(analysis, null, ingest), images, o, false);
  }

  /** {@link Nlspark#timeseriesCorrelation(SparkSession, SeriesInputs, String,
   * NlsparkOptions)}. */
  static RunReport timeseriesCorrelation(SparkSession spark, SeriesInputs input,
      String targetPath, NlsparkOptions o) {
    TimeSeriesCorrelation.Options ts = o.toTimeSeriesOptions();
    Configuration conf = Nlspark.hadoopConf(spark);
    input.requireOneSubject("timeseries-correlation");
    DistributedInputs series = Sources.series(spark, input, 2, null);
    NpyArray target = NpyInputs.readNpy(conf, targetPath, "--target", 1);
    DistributedInputs inputs = DistributedInputs.withTarget(series.x(), target.data());
    ResolvedInputs images = resolved(input, inputs);
    Ingest ingest = Ingest.of(spark, inputs);
    if (ingest.onExecutors()) {
      return Nlspark.run(spark, new DescribedAnalysis(TimeSeriesCorrelation.prepareOnExecutors(
          inputs.x().samples(), inputs.x().voxels(), target.data(), ts)
          .withRequestedBudgetGb(o.memoryBudgetGb()), inputs, ingest), images, o, false);
    }
    TimeSeriesAnalysis analysis = ingest.readHere(() -> {
      if (input.surface() != null) { // read as executors would, split by split
        return TimeSeriesCorrelation.prepare(inputs.x().readAll(new HadoopOpener(conf))
            .values(), inputs.x().samples(), inputs.x().voxels(), target.data(), ts);
      }
      if (!input.hasGrid()) {
        return TimeSeriesCorrelation.prepare(NpyInputs.readNpy(conf, input.uri(),
            "--input", 2), target, ts);
      }
      SeriesInputs.Series s = input.read(conf, inputs.mask());
      return TimeSeriesCorrelation.prepare(s.values(), s.timepoints(), s.voxels(),
          target.data(), ts);
    });
    return Nlspark.run(spark, new DescribedAnalysis(
        analysis.withRequestedBudgetGb(o.memoryBudgetGb()), null, ingest), images, o, false);
  }

  /**
   * Where the maps are written: on the grid of images (their mask), on the mesh of surface data
   * in its format, or (an .npy) as arrays only.
   */
  private static ResolvedInputs resolved(SeriesInputs input, DistributedInputs inputs) {
    return input.surface() != null ? new ResolvedInputs(null, null, null, input.surface())
        : input.hasGrid() ? ResolvedInputs.read(inputs.mask(), input.maskSource())
        : ResolvedInputs.read(null, null);
  }

  /** {@link Nlspark#ridgeBootstrap}: every replicate's SVD takes all of X, so no voxel blocks. */
  static RunReport ridgeBootstrap(SparkSession spark, String inputPath, String targetPath,
      String xTestPath, NlsparkOptions o) {
    RidgeBootstrap.Options ridge = o.toRidgeOptions();
    Configuration conf = Nlspark.hadoopConf(spark);
    // Every replicate's SVD takes all of X, so there are no voxel blocks: large inputs are read
    // whole by each task where it runs (DESIGN §8), from headers described here.
    HadoopOpener files = new HadoopOpener(conf);
    NpySamples y = describeNpy(conf, files, targetPath, "--target", 0);
    NpySamples x = describeNpy(conf, files, inputPath, "--input", 2);
    NpySamples xTest = xTestPath == null ? null
        : describeNpy(conf, files, xTestPath, "--x-test", 2);
    long bytes = x.float64Bytes() + y.float64Bytes() + (xTest == null ? 0 : xTest.float64Bytes());
    Ingest ingest = Ingest.whole(spark, bytes, "NpySamples");
    if (ingest.onExecutors()) {
      RidgeBootstrap.checkShapes(x.shape(), y.shape(), xTest == null ? null : xTest.shape());
      return Nlspark.run(spark, new DescribedAnalysis(RidgeBootstrap.prepareOnExecutors(
          new RidgeAnalysis.Files(x, y, xTest, files), x.samples(),
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
    return Nlspark.run(spark, new DescribedAnalysis(analysis, null, ingest), o, false);
  }

  /** An .npy input described from its header (the checks of the driver read first). */
  private static NpySamples describeNpy(Configuration conf,
      HadoopOpener files, String uri, String flag, int rank) {
    NpyInputs.checkNpyInput(conf, uri, flag);
    try {
      return NpySamples.describe(files, uri, flag + " " + uri,
          Sources.SPLIT_BYTES, rank);
    } catch (java.io.UncheckedIOException e) {
      throw UserPaths.readFailure(e.getCause(), flag, uri);
    }
  }
}
