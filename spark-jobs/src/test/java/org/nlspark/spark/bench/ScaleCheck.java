package org.nlspark.spark.bench;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.GZIPInputStream;
import java.util.zip.GZIPOutputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;
import org.apache.spark.scheduler.StageInfo;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.engine.LocalEngine;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.io.nifti.NiftiWriter;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.memory.CpuWorkerPlanner;
import org.nlspark.core.memory.Gb;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.cli.SparkSessions;
import org.nlspark.spark.conf.NlsparkConf;
import org.nlspark.spark.data.DistributedInputs;
import org.nlspark.spark.data.Sources;
import org.nlspark.spark.engine.SparkEngine;
import org.nlspark.spark.io.HadoopNiftiFiles;
import org.nlspark.spark.io.HadoopOpener;
import org.nlspark.spark.io.StudyInputs;

/**
 * The scale check of DESIGN §8 (run by it/scale-check.sh): a study of 3-D {@code .nii.gz}
 * subjects larger than the driver's heap, one-sample t with max-T and a fixed number of sign
 * flips, run on a cluster through the data plane and, as the reference, in one JVM with a large
 * heap through the in-memory path (all samples in one float64 array, core's LocalEngine).
 *
 * <pre>
 *   generate DIR GB SEED        writes DIR/mask.nii.gz, DIR/sub-NNNN.nii.gz (gzip level 1),
 *                               DIR/subjects.txt: at least GB x 1e9 bytes of float32 volumes
 *   reference DIR OUT P SEED [GLM_OUT GLM_P]  one JVM, the samples read whole, outputs +
 *                               summary.json in OUT; with GLM_OUT also glm-reference's run on
 *                               the same samples (one read of the study for both)
 *   glm-design DIR SEED         writes DIR/design.csv (intercept and 3 covariates, one of them
 *                               the planted blob's regressor) and DIR/contrasts.csv (2 t
 *                               contrasts) for the subjects of DIR/subjects.txt
 *   glm-reference DIR OUT P SEED  glm --tfce in one JVM, the samples read whole (LocalEngine)
 *   glm-cluster DIR OUT P SEED  glm --tfce on the cluster from voxel blocks (whole maps from
 *                               the blocks' slices, DESIGN §9)
 *   cluster DIR OUT P SEED      the Spark session spark-submit gives; executors read the files
 *                               into voxel blocks; also times plain inflate of the same files
 *   small-reference DIR LIST OUT P SEED  one JVM, the samples of the list file LIST read whole
 *                               once: one-sample t with max-T (OUT/dataframe) and with
 *                               --cluster-threshold (OUT/cluster-threshold)
 *   cluster-threshold DIR LIST OUT P SEED  one-sample t --cluster-threshold on the cluster from
 *                               voxel blocks (whole maps from the blocks' slices)
 *   table DIR LIST TABLE        local Spark: writes the masked samples of LIST as a Parquet
 *                               table TABLE (subject int, voxels array of float)
 *   dataframe TABLE OUT P SEED  one-sample t with max-T on the cluster, the samples a DataFrame
 *                               read from TABLE (its partitions the read splits)
 * </pre>
 */
public final class ScaleCheck {
  /** An MNI-like grid at 2.25 mm: 80 x 96 x 80 voxels. */
  static final int NX = 80;
  static final int NY = 96;
  static final int NZ = 80;

  private ScaleCheck() {}

  public static void main(String[] args) throws Exception {
    int needed = args.length == 0 ? 1 : switch (args[0]) {
      case "glm-design" -> 3;
      case "small-reference", "cluster-threshold" -> 6;
      default -> 4;
    };
    if (args.length < needed) {
      System.err.println("usage: ScaleCheck generate DIR GB SEED | reference DIR OUT P SEED"
          + " | cluster DIR OUT P SEED | glm-design DIR SEED | glm-reference DIR OUT P SEED"
          + " | glm-cluster DIR OUT P SEED | small-reference DIR LIST OUT P SEED"
          + " | cluster-threshold DIR LIST OUT P SEED | table DIR LIST TABLE"
          + " | dataframe TABLE OUT P SEED");
      System.exit(2);
    }
    switch (args[0]) {
      case "generate" -> generate(Path.of(args[1]), Double.parseDouble(args[2]),
          Long.parseLong(args[3]));
      case "reference" -> reference(args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]), args.length > 6 ? args[5] : null,
          args.length > 6 ? Long.parseLong(args[6]) : 0);
      case "cluster" -> cluster(args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]));
      case "glm-design" -> glmDesign(Path.of(args[1]), Long.parseLong(args[2]));
      case "glm-reference" -> glmReference(args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]));
      case "glm-cluster" -> glmCluster(args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]));
      case "small-reference" -> smallReference(args[1], args[2], args[3],
          Long.parseLong(args[4]), Long.parseLong(args[5]));
      case "cluster-threshold" -> clusterThreshold(args[1], args[2], args[3],
          Long.parseLong(args[4]), Long.parseLong(args[5]));
      case "table" -> table(args[1], args[2], args[3]);
      case "dataframe" -> dataframe(args[1], args[2], Long.parseLong(args[3]),
          Long.parseLong(args[4]));
      default -> {
        System.err.println("unknown mode: " + args[0]);
        System.exit(2);
      }
    }
  }

  static NlsparkOptions.Builder options(long permutations, long seed) {
    return NlsparkOptions.builder().statistic("t").replicates(permutations).seed(seed)
        .fwer(true);
  }

  /** A rounded brain-like mask (a superellipsoid filling about 80% of the grid). */
  static NiftiMask mask() {
    NiftiHeader h = NiftiHeader.builder().datatype(NiftiDatatype.UINT8).shape(NX, NY, NZ)
        .sform(1, new double[][] {{-2.25, 0, 0, 90}, {0, 2.25, 0, -126}, {0, 0, 2.25, -72}})
        .build();
    double[] m = new double[NX * NY * NZ];
    for (int k = 0; k < NZ; k++) {
      for (int j = 0; j < NY; j++) {
        for (int i = 0; i < NX; i++) {
          double a = (i - NX / 2.0 + 0.5) / (NX / 2.0);
          double b = (j - NY / 2.0 + 0.5) / (NY / 2.0);
          double c = (k - NZ / 2.0 + 0.5) / (NZ / 2.0);
          m[i + NX * (j + NY * k)] = a * a * a * a + b * b * b * b + c * c * c * c <= 1 ? 1 : 0;
        }
      }
    }
    return NiftiMask.fromImage(h, m, "mask");
  }

  static void generate(Path dir, double gb, long seed) throws Exception {
    Files.createDirectories(dir);
    NiftiMask mask = mask();
    NiftiWriter.writeMask(dir.resolve("mask.nii.gz"), mask);
    // The header of a float32 map on this grid, taken from the writer (then written at level 1).
    ByteArrayOutputStream template = new ByteArrayOutputStream();
    NiftiWriter.writeMap(template, mask, new float[mask.count()], 0f);
    byte[] header;
    try (NiftiReader r = NiftiReader.open(new ByteArrayInputStream(template.toByteArray()),
        template.size(), "template");
        InputStream raw = new GZIPInputStream(new ByteArrayInputStream(template.toByteArray()))) {
      header = raw.readNBytes((int) r.header().voxOffset());
    }
    int grid = NX * NY * NZ;
    int subjects = (int) Math.ceil(gb * 1e9 / (4.0 * grid));
    List<String> names = new ArrayList<>();
    for (int s = 0; s < subjects; s++) {
      names.add(String.format(Locale.ROOT, "sub-%04d.nii.gz", s));
    }
    double[] blob = new double[mask.count()]; // the planted effect, the same in every subject
    for (int n = 0; n < blob.length; n++) {
      int[] ijk = mask.ijk(n);
      blob[n] = 0.8 * StrictMath.exp(-(sq(ijk[0] - 50) + sq(ijk[1] - 40) + sq(ijk[2] - 45)) / 50.0);
    }
    ExecutorService pool = Executors.newFixedThreadPool(
        Math.max(1, Runtime.getRuntime().availableProcessors()));
    List<Future<?>> done = new ArrayList<>();
    for (int s = 0; s < subjects; s++) {
      int subject = s;
      done.add(pool.submit(() -> writeSubject(dir.resolve(names.get(subject)), header, mask,
          blob, seed * 1_000_003L + subject)));
    }
    for (Future<?> f : done) {
      f.get();
    }
    pool.shutdown();
    Files.writeString(dir.resolve("subjects.txt"), String.join("\n", names) + "\n");
    System.out.printf(Locale.ROOT, "generated %d subjects x %d grid voxels (%d in the mask):"
        + " %.3f GB of float32 volumes%n", subjects, grid, mask.count(),
        4.0 * grid * subjects / 1e9);
  }

  /** Noise on a 1/64 lattice (compressible like real data) plus a planted blob. */
  private static void writeSubject(Path file, byte[] header, NiftiMask mask, double[] blob,
      long seed) {
    SplittableRandom r = new SplittableRandom(seed);
    int grid = NX * NY * NZ;
    byte[] data = new byte[grid * 4];
    ByteBuffer b = ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN);
    float[] volume = new float[grid];
    for (int n = 0; n < mask.count(); n++) {
      double g = r.nextGaussian() + blob[n];
      volume[mask.fileIndex(n)] = (float) (Math.rint(g * 64) / 64);
    }
    b.asFloatBuffer().put(volume);
    try (OutputStream out = new GZIPOutputStream(Files.newOutputStream(file), 1 << 16) {
      {
        def.setLevel(1);
      }
    }) {
      out.write(header);
      out.write(data);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + file + ": " + e.getMessage(), e);
    }
  }

  private static double sq(double v) {
    return v * v;
  }

  static void reference(String dir, String out, long permutations, long seed, String glmOut,
      long glmPermutations) {
    Configuration conf = new Configuration();
    StudyInputs study = StudyInputs.resolve(conf, dir + "/subjects.txt", null,
        dir + "/mask.nii.gz", null, null);
    DistributedInputs described = Sources.of(conf, study, null);
    SampleSource x = described.x();
    long start = System.nanoTime();
    JobInputs inputs = DistributedInputs.of(x).load(new HadoopOpener(conf));
    double readSeconds = (System.nanoTime() - start) / 1e9;
    // The planner's per-worker estimate (3x the data, from the reference's process workers) is
    // set as the budget: threads here share the one array, and a budget measured from the
    // machine's free memory would make the reference depend on what else runs beside it.
    double budgetGb = Gb.fromBytes(CpuWorkerPlanner.bytesPerWorker(inputs.bytes(), permutations));
    RunReport report = LocalEngine.defaults().run(options(permutations, seed)
        .memoryBudgetGb(Math.ceil(budgetGb * 1.05)).build().toSpec(Analysis.ONE_SAMPLE), inputs);
    writeReference(conf, report, readSeconds, out, "reference: %d samples x %d voxels read in"
        + " %.1f s, run in %.1f s, peak heap %.2f GB%n", x.samples(), x.voxels());
    if (glmOut != null) {
      glmReference(conf, described, inputs, readSeconds, dir, glmOut, glmPermutations, seed);
    }
  }

  /**
   * Writes a one-JVM reference run with this JVM's heap and read time in its summary, then prints
   * {@code format} with samples, voxels, read seconds, run seconds and peak heap (GB).
   */
  private static void writeReference(Configuration conf, RunReport report, double readSeconds,
      String out, String format, long samples, long voxels) {
    Map<String, Object> summary = report.summary();
    Map<String, Object> memory = new LinkedHashMap<>();
    memory.put("driver_peak_heap_bytes", peakHeapBytes());
    memory.put("driver_max_heap_bytes", Runtime.getRuntime().maxMemory());
    memory.put("driver_read_seconds", readSeconds);
    summary.put("memory", memory);
    Nlspark.write(conf, report, summary, out, true);
    System.out.printf(Locale.ROOT, format, samples, voxels, readSeconds, report.wallSeconds(),
        peakHeapBytes() / 1e9);
  }

  static void cluster(String dir, String out, long permutations, long seed) {
    long start = System.nanoTime();
    SparkSession spark = SparkSessions.dataPlaneDefaults(SparkSession.builder()).getOrCreate();
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    IngestCpu ingestCpu = new IngestCpu();
    spark.sparkContext().addSparkListener(ingestCpu);
    RunReport report = Nlspark.oneSample(spark, dir + "/subjects.txt",
        options(permutations, seed).maskFile(dir + "/mask.nii.gz").build());
    Map<String, Object> summary = report.summary();
    @SuppressWarnings("unchecked")
    Map<String, Object> engine = (Map<String, Object>) summary.get("engine");
    @SuppressWarnings("unchecked")
    Map<String, Object> ingest = (Map<String, Object>) engine.get("ingest");
    Map<String, Object> bench = inflateBenchmark(spark, conf, dir,
        ((Number) ingest.get("ingest_seconds")).doubleValue(),
        ((Number) ingest.get("read_task_seconds")).doubleValue(), report.parallelism);
    double ingestCpuSeconds = ingestCpu.seconds();
    double inflateCpuSeconds = ((Number) bench.get("inflate_task_cpu_seconds")).doubleValue();
    bench.put("ingest_task_cpu_seconds", ingestCpuSeconds);
    // Task threads' CPU only (no JIT or GC threads), so the machine's other load counts less.
    bench.put("cpu_ratio", ingestCpuSeconds > 0 ? inflateCpuSeconds / ingestCpuSeconds : 0.0);
    summary.put("ingest_benchmark", bench);
    Nlspark.write(conf, report, summary, out, true);
    @SuppressWarnings("unchecked")
    Map<String, Object> memory = (Map<String, Object>) engine.get("memory");
    System.out.printf(Locale.ROOT, "cluster: ingest %.1f s, tiles %.1f s; driver peak heap"
        + " %.0f MB of %.0f MB; executor peak heap %.0f MB%n",
        ((Number) ingest.get("ingest_seconds")).doubleValue(), report.computeSeconds,
        ((Number) memory.get("driver_peak_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("driver_max_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("executor_peak_heap_bytes")).doubleValue() / 1e6);
    System.out.printf(Locale.ROOT, "ingest benchmark: files -> voxel blocks %.1f MB/s per core,"
        + " plain java.util.zip inflate %.1f MB/s per core, ratio %.2f (goal >= 0.5); read side"
        + " alone %.1f MB/s per core, ratio %.2f; task CPU: ingest %.1f s, inflate %.1f s,"
        + " ratio %.2f%n",
        bench.get("ingest_mb_per_core_second"), bench.get("inflate_mb_per_core_second"),
        bench.get("ratio"), bench.get("read_mb_per_core_second"), bench.get("read_ratio"),
        bench.get("ingest_task_cpu_seconds"), bench.get("inflate_task_cpu_seconds"),
        bench.get("cpu_ratio"));
    printRow("one-sample", "one-sample max-T", report, start);
    spark.stop();
  }

  /** glm --tfce with the model of {@link #glmDesign}: the same options in both runs. */
  static NlsparkOptions glmOptions(String dir, long permutations, long seed) {
    return NlsparkOptions.builder().replicates(permutations).seed(seed).tfce(true)
        .maskFile(dir + "/mask.nii.gz").build();
  }

  /**
   * A design of intercept, age, sex and site (3 covariates) for the study's subjects, and two t
   * contrasts (age, and sex against the other covariates).
   */
  static void glmDesign(Path dir, long seed) throws IOException {
    long subjects = Files.readAllLines(dir.resolve("subjects.txt")).stream()
        .filter(l -> !l.isBlank()).count();
    SplittableRandom r = new SplittableRandom(seed);
    List<String> lines = new ArrayList<>(List.of("intercept,age,sex,site"));
    for (long s = 0; s < subjects; s++) {
      lines.add(String.format(Locale.ROOT, "1,%.4f,%d,%.4f", 40 + 10 * r.nextGaussian(), s % 2,
          (double) (s % 3)));
    }
    Files.write(dir.resolve("design.csv"), lines);
    Files.write(dir.resolve("contrasts.csv"), List.of("name,intercept,age,sex,site",
        "age,0,1,0,0", "sex,0,0,1,0"));
  }

  static void glmReference(String dir, String out, long permutations, long seed) {
    Configuration conf = new Configuration();
    StudyInputs study = StudyInputs.resolve(conf, dir + "/subjects.txt", null,
        dir + "/mask.nii.gz", null, null);
    DistributedInputs described = Sources.of(conf, study, null);
    long start = System.nanoTime();
    JobInputs inputs = DistributedInputs.of(described.x()).load(new HadoopOpener(conf));
    glmReference(conf, described, inputs, (System.nanoTime() - start) / 1e9, dir, out,
        permutations, seed);
  }

  /** glm --tfce in this JVM on the samples {@code inputs} already read (LocalEngine). */
  static void glmReference(Configuration conf, DistributedInputs described, JobInputs inputs,
      double readSeconds, String dir, String out, long permutations, long seed) {
    SampleSource x = described.x();
    NlsparkOptions o = glmOptions(dir, permutations, seed);
    org.nlspark.core.glm.GlmAnalysis glm = org.nlspark.core.glm.GlmAnalysis.prepare(
        inputs.x(), org.nlspark.core.glm.GlmFiles.readDesign(Path.of(dir, "design.csv")),
        org.nlspark.core.glm.GlmFiles.readContrasts(Path.of(dir, "contrasts.csv"), null),
        o.toGlmOptions(null, null), "cpu", null);
    RunReport report = LocalEngine.defaults().run(glm.withWholeMaps(
        org.nlspark.core.tfce.MaskGrid.of(described.mask()), o.wholeMapSettings()));
    writeReference(conf, report, readSeconds, out, "glm reference: %d samples x %d voxels read"
        + " in %.1f s, glm --tfce run in %.1f s, peak heap %.2f GB%n", x.samples(), x.voxels());
  }

  static void glmCluster(String dir, String out, long permutations, long seed) {
    long start = System.nanoTime();
    SparkSession spark = SparkSessions.dataPlaneDefaults(SparkSession.builder()).getOrCreate();
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    RunReport report = Nlspark.glm(spark, dir + "/subjects.txt", dir + "/design.csv",
        dir + "/contrasts.csv", glmOptions(dir, permutations, seed));
    Nlspark.write(conf, report, report.summary(), out, true);
    @SuppressWarnings("unchecked")
    Map<String, Object> engine = (Map<String, Object>) report.summary().get("engine");
    @SuppressWarnings("unchecked")
    Map<String, Object> ingest = (Map<String, Object>) engine.get("ingest");
    @SuppressWarnings("unchecked")
    Map<String, Object> memory = (Map<String, Object>) engine.get("memory");
    System.out.printf(Locale.ROOT, "glm cluster: ingest %.1f s, whole-map tiles %.1f s (%s"
        + " map-slice partitions); driver peak heap %.0f MB of %.0f MB; executor peak heap"
        + " %.0f MB%n", ((Number) ingest.get("ingest_seconds")).doubleValue(),
        report.computeSeconds, ingest.get("map_slice_partitions"),
        ((Number) memory.get("driver_peak_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("driver_max_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("executor_peak_heap_bytes")).doubleValue() / 1e6);
    printRow("glm", "glm 3 cov 2 con --tfce", report, start);
    spark.stop();
  }

  /** The cluster-forming threshold of the --cluster-threshold check (a t of 3.1). */
  static final double CLUSTER_T = 3.1;

  /**
   * The small study's two one-JVM references from one read of LIST's samples: one-sample t with
   * max-T (the DataFrame run's) in OUT/dataframe and with --cluster-threshold {@link #CLUSTER_T}
   * (whole maps in memory, core's TfceAnalysis) in OUT/cluster-threshold.
   */
  static void smallReference(String dir, String list, String out, long permutations,
      long seed) {
    Configuration conf = new Configuration();
    StudyInputs study = StudyInputs.resolve(conf, list, null, dir + "/mask.nii.gz", null, null);
    DistributedInputs described = Sources.of(conf, study, null);
    SampleSource x = described.x();
    long start = System.nanoTime();
    JobInputs inputs = DistributedInputs.of(x).load(new HadoopOpener(conf));
    double readSeconds = (System.nanoTime() - start) / 1e9;
    double budgetGb = Gb.fromBytes(CpuWorkerPlanner.bytesPerWorker(inputs.bytes(), permutations));
    RunReport plain = LocalEngine.defaults().run(options(permutations, seed)
        .memoryBudgetGb(Math.ceil(budgetGb * 1.05)).build().toSpec(Analysis.ONE_SAMPLE), inputs);
    writeReference(conf, plain, readSeconds, out + "/dataframe", "small reference: %d samples"
        + " x %d voxels read in %.1f s, one-sample max-T run in %.1f s, peak heap %.2f GB%n",
        x.samples(), x.voxels());
    NlsparkOptions o = clusterOptions(dir, permutations, seed);
    LocalEngine local = LocalEngine.defaults();
    RunReport clusters = local.run(org.nlspark.core.tfce.TfceAnalysis.prepare(
        o.toSpec(Analysis.ONE_SAMPLE), inputs, local.parallelism(),
        org.nlspark.core.tile.Grid.DEFAULT,
        org.nlspark.core.tfce.MaskGrid.of(described.mask()), o.wholeMapSettings()));
    writeReference(conf, clusters, readSeconds, out + "/cluster-threshold", "small reference:"
        + " %d samples x %d voxels read in %.1f s, one-sample --cluster-threshold run in %.1f s,"
        + " peak heap %.2f GB%n", x.samples(), x.voxels());
  }

  /** One-sample t with max-T and --cluster-threshold {@link #CLUSTER_T}, with the mask. */
  static NlsparkOptions clusterOptions(String dir, long permutations, long seed) {
    return options(permutations, seed).clusterThreshold(CLUSTER_T)
        .maskFile(dir + "/mask.nii.gz").build();
  }

  static void clusterThreshold(String dir, String list, String out, long permutations,
      long seed) {
    long start = System.nanoTime();
    SparkSession spark = SparkSessions.dataPlaneDefaults(SparkSession.builder()).getOrCreate();
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    RunReport report = Nlspark.oneSample(spark, list,
        clusterOptions(dir, permutations, seed));
    Nlspark.write(conf, report, report.summary(), out, true);
    printRow("cluster-threshold", "cluster-threshold " + CLUSTER_T, report, start);
    spark.stop();
  }

  /**
   * Writes LIST's masked samples as a Parquet table (an int column subject, the sample's index,
   * and the float32 values in voxels) with a local Spark: the executors of {@link #dataframe}
   * then read it as any DataFrame.
   */
  static void table(String dir, String list, String table) {
    SparkSession spark = SparkSession.builder().master("local[2]").appName("scale-check-table")
        .config("spark.driver.host", "127.0.0.1").config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.ui.enabled", "false").getOrCreate();
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    StudyInputs study = StudyInputs.resolve(conf, list, null, dir + "/mask.nii.gz", null, null);
    SampleSource x = Sources.of(conf, study, null).x();
    HadoopOpener opener = new HadoopOpener(conf);
    List<Integer> splits = new ArrayList<>();
    for (int s = 0; s < x.splits(); s++) {
      splits.add(s);
    }
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    org.apache.spark.api.java.JavaRDD<org.apache.spark.sql.Row> rows =
        jsc.parallelize(splits, splits.size()).flatMap(split -> {
          List<org.apache.spark.sql.Row> out = new ArrayList<>();
          x.read(split, opener, new SampleSource.Sink() {
            @Override
            public void float32(int sample, float[] values) {
              out.add(org.apache.spark.sql.RowFactory.create(sample, values.clone()));
            }

            @Override
            public void float64(int sample, double[] values) {
              throw new IllegalStateException("the study is float32; sample " + sample
                  + " came as float64");
            }
          });
          return out.iterator();
        });
    org.apache.spark.sql.types.StructType schema = new org.apache.spark.sql.types.StructType()
        .add("subject", org.apache.spark.sql.types.DataTypes.IntegerType, false)
        .add("voxels", org.apache.spark.sql.types.DataTypes.createArrayType(
            org.apache.spark.sql.types.DataTypes.FloatType, false), false);
    spark.createDataFrame(rows, schema).write().mode("overwrite").parquet(table);
    System.out.printf(Locale.ROOT, "table: %d samples x %d voxels in %d read splits%n",
        x.samples(), x.voxels(), x.splits());
    spark.stop();
  }

  /**
   * One-sample t with max-T on a DataFrame read from the Parquet TABLE of {@link #table},
   * ordered by its subject column (Spark ranks the keys; the DataFrame's partitions are the
   * read splits of the voxel blocks).
   */
  static void dataframe(String table, String out, long permutations, long seed) {
    long start = System.nanoTime();
    SparkSession spark = SparkSessions.dataPlaneDefaults(SparkSession.builder()).getOrCreate();
    spark.conf().set(NlsparkConf.INGEST, "blocks");
    Configuration conf = spark.sparkContext().hadoopConfiguration();
    org.apache.spark.sql.Dataset<org.apache.spark.sql.Row> samples = spark.read().parquet(table);
    RunReport report = Nlspark.oneSample(spark, samples,
        options(permutations, seed).orderBy("subject").build());
    Nlspark.write(conf, report, report.summary(), out, true);
    printRow("dataframe", "one-sample max-T", report, start);
    spark.stop();
  }

  /**
   * The line of a cluster run for the script's table ({@code row: } then tab-separated: run,
   * analysis, samples, voxels, GB of float32, ingest s, tiles s, run s, driver peak/max heap MB,
   * executor peak heap MB), its facts from the report's engine.ingest and engine.memory.
   */
  static void printRow(String run, String analysis, RunReport report, long startNanos) {
    Map<String, Object> ingest = section(section(report.summary(), "engine"), "ingest");
    Map<String, Object> input = section(report.summary(), "input");
    printRow(run, analysis, ((Number) input.get("samples")).longValue(),
        ((Number) input.get("voxels")).longValue(), String.format(Locale.ROOT, "%.1f",
            ((Number) ingest.get("ingest_seconds")).doubleValue()), report, startNanos);
  }

  /** The row of any cluster run: {@code ingest} as printed ("-" for a run without blocks). */
  static void printRow(String run, String analysis, long samples, long voxels, String ingest,
      RunReport report, long startNanos) {
    Map<String, Object> memory = section(section(report.summary(), "engine"), "memory");
    System.out.printf(Locale.ROOT, "row: %s\t%s\t%d\t%d\t%.2f\t%s\t%.1f\t%.1f\t%.0f/%.0f\t%.0f%n",
        run, analysis, samples, voxels, 4.0 * samples * voxels / 1e9, ingest,
        report.computeSeconds, (System.nanoTime() - startNanos) / 1e9,
        ((Number) memory.get("driver_peak_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("driver_max_heap_bytes")).doubleValue() / 1e6,
        ((Number) memory.get("executor_peak_heap_bytes")).doubleValue() / 1e6);
  }

  /** summary.json's section {@code key} of {@code map}. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> section(Map<String, Object> map, String key) {
    return (Map<String, Object>) map.get(key);
  }


  /**
   * The same files inflated with plain java.util.zip by the same cluster (one task per file
   * group, bytes discarded): the per-core rate the ingest is measured against (DESIGN §8 item 7).
   * Rates are of uncompressed bytes; ingest's is its wall time times the task slots.
   */
  static Map<String, Object> inflateBenchmark(SparkSession spark, Configuration conf,
      String dir, double ingestSeconds, double readTaskSeconds, int slots) {
    HadoopOpener opener = new HadoopOpener(conf);
    List<String> files = HadoopNiftiFiles.resolveInputs(conf,
        dir + "/subjects.txt", "--input");
    JavaSparkContext jsc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    List<long[]> parts = jsc.parallelize(files, Math.max(1, files.size() / 8))
        .mapPartitions(it -> {
          long bytes = 0;
          long nanos = 0;
          long cpu = 0;
          java.lang.management.ThreadMXBean threads =
              java.lang.management.ManagementFactory.getThreadMXBean();
          byte[] buf = new byte[1 << 16];
          while (it.hasNext()) {
            String f = it.next();
            long t = System.nanoTime();
            long c = threads.getCurrentThreadCpuTime();
            try (InputStream in = new GZIPInputStream(opener.open(f), 1 << 16)) {
              for (int n; (n = in.read(buf)) > 0; ) {
                bytes += n;
              }
            }
            cpu += threads.getCurrentThreadCpuTime() - c;
            nanos += System.nanoTime() - t;
          }
          return List.of(new long[] {bytes, nanos, cpu}).iterator();
        }).collect();
    long bytes = 0;
    long nanos = 0;
    long cpu = 0;
    for (long[] p : parts) {
      bytes += p[0];
      nanos += p[1];
      cpu += p[2];
    }
    double inflate = bytes / 1e6 / (nanos / 1e9);
    double ingest = bytes / 1e6 / (ingestSeconds * Math.max(1, slots));
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("uncompressed_bytes", bytes);
    m.put("task_slots", slots);
    m.put("ingest_seconds", ingestSeconds);
    m.put("inflate_task_seconds", nanos / 1e9);
    m.put("inflate_task_cpu_seconds", cpu / 1e9);
    m.put("ingest_mb_per_core_second", ingest);
    m.put("inflate_mb_per_core_second", inflate);
    m.put("ratio", ingest / inflate);
    // The read side alone (inflate, scale, mask, cut into blocks; no shuffle), per task second.
    m.put("read_task_seconds", readTaskSeconds);
    m.put("read_mb_per_core_second", bytes / 1e6 / readTaskSeconds);
    m.put("read_ratio", bytes / 1e6 / readTaskSeconds / inflate);
    return m;
  }

  /**
   * Sums the executor CPU time of the tasks of the jobs that read the samples into voxel blocks
   * (described with {@link SparkEngine#INGEST_JOB_MARK}): the read stage with its shuffle
   * writes, and the fetch and assembly of the blocks. Task threads only: the JIT's and the
   * garbage collector's threads are not in it.
   */
  public static final class IngestCpu extends SparkListener {
    private final Set<Integer> stages = ConcurrentHashMap.newKeySet();
    private final AtomicLong expected = new AtomicLong();
    private final AtomicLong ended = new AtomicLong();
    private final AtomicLong nanos = new AtomicLong();

    @Override
    public void onJobStart(SparkListenerJobStart e) {
      String description = e.properties() == null ? null
          : e.properties().getProperty("spark.job.description");
      if (description == null || !description.contains(SparkEngine.INGEST_JOB_MARK)) {
        return;
      }
      scala.collection.Iterator<StageInfo> infos = e.stageInfos().iterator();
      while (infos.hasNext()) {
        StageInfo info = infos.next();
        stages.add(info.stageId());
        expected.addAndGet(info.numTasks());
      }
    }

    @Override
    public void onTaskEnd(SparkListenerTaskEnd e) {
      if (stages.contains(e.stageId())) {
        if (e.taskMetrics() != null) {
          nanos.addAndGet(e.taskMetrics().executorCpuTime());
        }
        ended.incrementAndGet();
      }
    }

    /** The sum in seconds, once the listener bus has delivered every task's end (or 30 s). */
    public double seconds() {
      long until = System.nanoTime() + 30_000_000_000L;
      while (ended.get() < expected.get() && System.nanoTime() < until) {
        try {
          Thread.sleep(50);
        } catch (InterruptedException ie) {
          Thread.currentThread().interrupt();
          break;
        }
      }
      return nanos.get() / 1e9;
    }
  }

  static long peakHeapBytes() {
    long sum = 0;
    for (java.lang.management.MemoryPoolMXBean pool
        : java.lang.management.ManagementFactory.getMemoryPoolMXBeans()) {
      if (pool.getType() == java.lang.management.MemoryType.HEAP) {
        sum += pool.getPeakUsage().getUsed();
      }
    }
    return sum;
  }
}
