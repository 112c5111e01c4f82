package org.nlspark.spark.data;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.ConcatenatedSamples;
import org.nlspark.core.data.NiftiSamples;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.data.VertexSamples;
import org.nlspark.core.data.SeriesImages;
import org.nlspark.core.io.nifti.DefaultMaskBuilder;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.spark.errors.TaskFailures;
import org.nlspark.spark.io.HadoopNiftiFiles;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.NpyInputs;
import org.nlspark.spark.io.ParquetSamples;
import org.nlspark.spark.io.SeriesInputs;
import org.nlspark.spark.io.StudyInputs;

/**
 * Resolved inputs ({@link StudyInputs}: the one place that decides files, order, format and
 * mask) as {@link SampleSource}s that any JVM can read from headers alone: an {@code .npy} as
 * row ranges, one 4-D NIfTI as volume ranges, 3-D NIfTI files as runs of files, a Parquet
 * table as its files. Without
 * {@code --mask}, the default mask (DESIGN §8) is computed here by the executors in one pass
 * over the images ({@link #defaultMask}); the driver reads no sample.
 */
public final class Sources {
  /** About how many bytes of values one read split holds (one task's read, in float32). */
  public static final long SPLIT_BYTES = 64L << 20;

  private Sources() {}

  /**
   * The inputs of {@code study} described for the engine; {@code target} is correlation's,
   * else null. Only inputs that {@link StudyInputs#executorsCanRead} are described here.
   */
  public static DistributedInputs of(SparkSession spark, StudyInputs study, double[] target) {
    return of(spark, spark.sparkContext().hadoopConfiguration(), study, target);
  }

  /**
   * As {@link #of(SparkSession, StudyInputs, double[])} without Spark, for inputs that need no
   * default mask (an .npy, or images with {@code --mask}): a one-JVM reference run.
   */
  public static DistributedInputs of(Configuration conf, StudyInputs study, double[] target) {
    if (study.hasGrid() && study.givenMask() == null) {
      throw new IllegalStateException("[BUG] the default mask is computed by Spark executors");
    }
    return of(null, conf, study, target);
  }

  private static DistributedInputs of(SparkSession spark, Configuration conf, StudyInputs study,
      double[] target) {
    if (!study.executorsCanRead()) {
      throw new IllegalStateException("[BUG] " + study.x().format.label()
          + " inputs are read on the driver, not described as sources");
    }
    HadoopOpener files = new HadoopOpener(conf);
    NiftiMask given = study.givenMask();
    // Without --mask, image sources span the whole grid until the default mask is built.
    NiftiMask mask = !study.hasGrid() ? null : given != null ? given
        : wholeGrid(study.referenceHeader(), study.x().flag + " " + study.x().uri);
    SampleSource x = source(spark, conf, files, study, study.x(), mask);
    SampleSource y = study.y() == null ? null
        : source(spark, conf, files, study, study.y(), mask);
    if (study.hasGrid() && given == null) {
      List<NiftiSamples> images = new ArrayList<>();
      images.add((NiftiSamples) x);
      if (y != null) {
        images.add((NiftiSamples) y);
      }
      NiftiMask computed = defaultMask(spark, files, images);
      x = ((NiftiSamples) x).withMask(computed);
      y = y == null ? null : ((NiftiSamples) y).withMask(computed);
    }
    if (y != null) {
      return DistributedInputs.twoGroups(x, y);
    }
    return target != null ? DistributedInputs.withTarget(x, target) : DistributedInputs.of(x);
  }

  /**
   * The series of {@code isc} or {@code timeseries-correlation} described for the engine
   * (DESIGN §8): one sample per (subject, time point) in C order, so a voxel block holds every
   * subject's series of its voxels: an {@code .npy} of {@code npyRank} (3 for isc's (subjects,
   * timepoints, voxels), 2 for a (timepoints, voxels) series) as row ranges, images as volume
   * ranges of each subject's 4-D file, read with {@link NiftiSamples#series}'s values (those of
   * {@link SeriesInputs#read}). Without {@code --mask} executors compute the default mask.
   *
   * @param target timeseries-correlation's target, else null
   */
  public static DistributedInputs series(SparkSession spark, SeriesInputs series, int npyRank,
      double[] target) {
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    HadoopOpener files = new HadoopOpener(conf);
    String what = series.flag() + " " + series.uri();
    if (series.surface() != null) {
      return surfaceSeries(conf, series.surface(), what, target);
    }
    if (!series.hasGrid()) {
      NpyInputs.checkNpyInput(conf, series.uri(), series.flag());
      SampleSource x;
      try {
        x = NpySamples.describe(files, series.uri(), what, SPLIT_BYTES, npyRank);
      } catch (java.io.UncheckedIOException e) {
        throw org.nlspark.spark.io.UserPaths.readFailure(e.getCause(), series.flag(),
            series.uri());
      }
      return target != null ? DistributedInputs.withTarget(x, target) : DistributedInputs.of(x);
    }
    SeriesImages images = series.images();
    NiftiMask given = series.givenMask();
    NiftiMask mask = given != null ? given : wholeGrid(images.reference(), what);
    int perSplit = (int) Math.max(1, SPLIT_BYTES / (4L * mask.grid().voxels()));
    List<NiftiSamples> parts = new ArrayList<>();
    for (String file : images.files()) {
      parts.add(NiftiSamples.series(files, file, file, mask, perSplit));
    }
    if (given == null) {
      NiftiMask computed = defaultMask(spark, files, parts);
      parts.replaceAll(p -> p.withMask(computed));
    }
    SampleSource x = parts.size() == 1 ? parts.get(0) : ConcatenatedSamples.of(what, parts);
    return target != null ? DistributedInputs.withTarget(x, target) : DistributedInputs.of(x);
  }

  /** One resolved input as a source: its files are already listed and in sample order. */
  private static SampleSource source(SparkSession spark, Configuration conf, HadoopOpener files,
      StudyInputs study, StudyInputs.Source s, NiftiMask mask) {
    String what = s.flag + " " + s.uri;
    if (s.format == StudyInputs.Format.NPY) {
      NpyInputs.checkNpyInput(conf, s.uri, s.flag);
      try {
        return NpySamples.describe(files, s.uri, what, SPLIT_BYTES);
      } catch (java.io.UncheckedIOException e) {
        throw org.nlspark.spark.io.UserPaths.readFailure(e.getCause(), s.flag, s.uri);
      }
    }
    if (s.format == StudyInputs.Format.SURFACE) {
      return surfaceSource(conf, study, s, what);
    }
    if (s.format == StudyInputs.Format.PARQUET) {
      ParquetSamples table = ParquetSamples.describe(conf, s, study.column(), SPLIT_BYTES);
      return study.orderBy() == null ? table
          : table.orderedBy(orderKeys(spark, files, table, s.flag, study.orderBy()),
              study.orderBy());
    }
    NiftiHeader first;
    try (NiftiReader reader = HadoopNiftiFiles.open(conf, s.files.get(0), s.flag)) {
      first = reader.header();
    }
    int perSplit = (int) Math.max(1, SPLIT_BYTES / (4L * mask.grid().voxels()));
    if (s.files.size() == 1 && first.volumes() > 1) {
      return NiftiSamples.fourD(files, s.files.get(0), what, mask, perSplit);
    }
    return NiftiSamples.volumes(what, s.files, mask, perSplit, !first.prefersDouble());
  }

  /**
   * Surface data on the study's mesh: one file per sample, or one file of every sample (read
   * here once to count them; GIFTI and MGH files are small; a CIFTI file's header counts them).
   */
  private static SampleSource surfaceSource(Configuration conf, StudyInputs study,
      StudyInputs.Source s, String what) {
    org.nlspark.core.tfce.MeshAdjacency mesh = study.surface();
    if (s.files.size() == 1) {
      return surfaceFile(conf, study, s.files.get(0), s.flag, what);
    }
    int[] vertexOf = vertexOf(mesh);
    int perSplit = (int) Math.max(1, SPLIT_BYTES / (4L * mesh.meshVertices()));
    return VertexSamples.perFile(what, s.files, mesh.meshVertices(), mesh.meshName(), vertexOf,
        perSplit, study.grayordinates());
  }

  /**
   * Every sample of one surface file on the study's mesh: a CIFTI file counted from its header;
   * a GIFTI or MGH file read here once to count them, one file at a time (a map file is small; a
   * series file holds one subject's series here, beside which executors read it again).
   */
  private static SampleSource surfaceFile(Configuration conf, StudyInputs study, String file,
      String flag, String what) {
    org.nlspark.core.tfce.MeshAdjacency mesh = study.surface();
    if (study.grayordinates() != null) {
      return VertexSamples.oneFile(what, file,
          org.nlspark.spark.io.SurfaceFiles.readCiftiHead(conf, file, flag), mesh.meshName(),
          mesh.meshVertices(), vertexOf(mesh), study.grayordinates());
    }
    return VertexSamples.oneFile(what, file,
        org.nlspark.spark.io.SurfaceFiles.readData(conf, file, flag), mesh.meshName(),
        mesh.meshVertices(), vertexOf(mesh), null);
  }

  private static int[] vertexOf(org.nlspark.core.tfce.MeshAdjacency mesh) {
    int[] vertexOf = new int[mesh.voxels()];
    for (int n = 0; n < vertexOf.length; n++) {
      vertexOf[n] = mesh.vertexOf(n);
    }
    return vertexOf;
  }

  /**
   * Surface series (DESIGN §8): one file per subject, each row a time point, on the study's
   * mesh and vertex mask, in subject then time order, as images are; every subject's series
   * must have the first one's length (exit 2 naming the file).
   */
  private static DistributedInputs surfaceSeries(Configuration conf, StudyInputs study,
      String what, double[] target) {
    StudyInputs.Source x = study.x();
    List<SampleSource> parts = new ArrayList<>();
    for (String file : x.files) {
      SampleSource part = surfaceFile(conf, study, file, x.flag, what);
      if (!parts.isEmpty() && part.samples() != parts.get(0).samples()) {
        throw new InvalidInputException("Cannot use " + file + " as subject " + parts.size()
            + " of " + what + ": it has " + part.samples() + " time points, but "
            + x.files.get(0) + " has " + parts.get(0).samples() + "; every subject's series"
            + " must have the same length (a row per time point), so trim them to a common"
            + " length");
      }
      parts.add(part);
    }
    SampleSource all = parts.size() == 1 ? parts.get(0) : ConcatenatedSamples.of(what, parts);
    return target != null ? DistributedInputs.withTarget(all, target) : DistributedInputs.of(all);
  }

  /**
   * Every row's {@code --order-by} key, in file then row order: each task reads one file's key
   * column (no voxel value), the driver gets one key per sample, O(samples), and ranks them.
   * Without Spark (a one-JVM reference run) the keys are read here.
   */
  private static List<Object> orderKeys(SparkSession spark, HadoopOpener files,
      ParquetSamples table, String flag, String orderBy) {
    List<String> names = table.files();
    List<List<Object>> perFile;
    if (spark == null) {
      perFile = new ArrayList<>();
      for (String file : names) {
        perFile.add(ParquetSamples.keys(files.configuration(), file, flag + " " + file,
            orderBy));
      }
    } else {
      try {
        perFile = JavaSparkContext.fromSparkContext(spark.sparkContext())
            .parallelize(names, names.size())
            .map(file -> ParquetSamples.keys(files.configuration(), file, flag + " " + file,
                orderBy))
            .collect();
      } catch (Exception e) { // a bad key inside a task: its own message, exit 2
        throw TaskFailures.unwrapAny(e);
      }
    }
    List<Object> keys = new ArrayList<>();
    for (List<Object> k : perFile) {
      keys.addAll(k);
    }
    return keys;
  }

  private static NiftiMask wholeGrid(NiftiHeader first, String what) {
    boolean[] all = new boolean[first.voxelsPerVolume()];
    Arrays.fill(all, true);
    return NiftiMask.fromSelection(first, all, what);
  }

  /**
   * The default mask of DESIGN §8 over every sample of {@code images} (both groups of a
   * two-sample test): every voxel finite in every sample and non-zero in at least one. Each
   * task scans one read split and returns O(grid) bits; the driver ORs them.
   */
  static NiftiMask defaultMask(SparkSession spark, HadoopOpener files,
      List<NiftiSamples> images) {
    List<int[]> splits = new ArrayList<>(); // (source, split)
    for (int i = 0; i < images.size(); i++) {
      for (int s = 0; s < images.get(i).splits(); s++) {
        splits.add(new int[] {i, s});
      }
    }
    List<NiftiSamples> sources = List.copyOf(images);
    DefaultMaskBuilder built;
    try {
      built = JavaSparkContext.fromSparkContext(spark.sparkContext())
          .parallelize(splits, Math.max(1, splits.size()))
          .map(t -> sources.get(t[0]).scan(t[1], files))
          .treeReduce(DefaultMaskBuilder::merge);
    } catch (Exception e) { // a bad image inside a task: its own message, exit 2
      throw TaskFailures.unwrapAny(e);
    }
    return built.build(images.get(0).mask().geometry());
  }
}
