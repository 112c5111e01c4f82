package org.nlspark.spark.cli;

import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.spark.api.Nlspark;
import org.nlspark.spark.api.NlsparkOptions;
import org.nlspark.spark.output.HadoopOutput;
import org.nlspark.spark.output.NiftiOutputs;
import org.nlspark.spark.io.StudyInputs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nlspark demo}: writes a synthetic study as NIfTI files ({@link DemoStudy}: 40 subjects,
 * a brain-shaped mask on a 4 mm grid, a planted blob), then runs a bootstrap of the mean and a
 * sign-flip t test with FWER on those files with the mask, as {@code bootstrap --input
 * data/subjects.txt --mask data/mask.nii.gz} would. Each of data/, bootstrap/ and one-sample/
 * under the output directory is written atomically.
 */
@Command(sortOptions = false, name = "demo",
    description = {"Writes a synthetic study as NIfTI files (40 subjects, a brain-shaped mask on"
        + " a 40x48x40 grid of 4 mm voxels, an effect planted in a blob), runs bootstrap and"
        + " one-sample --stat t on them, and prints a table and where the maps are (default"
        + " DIR: " + DemoCommand.DEFAULT_OUTPUT + ")."},
    customSynopsis = "nlspark demo [--output DIR] [--samples B] [--permutations P] [options]")
public final class DemoCommand extends NlsparkCommand {
  public static final int SUBJECTS = DemoStudy.SUBJECTS;
  public static final double EFFECT = DemoStudy.EFFECT;
  public static final String DEFAULT_OUTPUT = "nlspark-out/demo";

  @Option(names = "--samples", paramLabel = "B", order = 10,
      description = "bootstrap samples (default 1000)")
  Long samples;

  @Option(names = "--permutations", paramLabel = "P", order = 11,
      description = "sign-flip permutations (default " + JobSpec.DEFAULT_PERMUTATIONS + ")")
  Long permutations;

  @Mixin CommonOptions common;
  @Mixin PartitionsOption partitions;

  @Override
  public String name() {
    return "demo";
  }

  @Override
  public void validate() {
    bootstrapOptions().toSpec(Analysis.BOOTSTRAP);
    permutationOptions().toSpec(Analysis.ONE_SAMPLE);
  }

  private NlsparkOptions bootstrapOptions() {
    return options().seed(common.seed()).replicates(samples == null ? 1000 : samples).build();
  }

  private NlsparkOptions permutationOptions() {
    NlsparkOptions.Builder perm = options().seed(common.seed()).statistic("t");
    if (permutations != null) {
      perm.replicates(permutations);
    }
    return perm.build();
  }

  private NlsparkOptions.Builder options() {
    return common.optionsBuilder().partitions(partitions.partitions);
  }

  /** Whether the run replaces files: --overwrite, or the directory holds an earlier demo. */
  private boolean overwrite;

  @Override
  protected int run() {
    String dir = common.output == null ? DEFAULT_OUTPUT : common.output;
    overwrite = common.overwrite;
    validate();
    refuseForeignContents(dir, overwrite);
    String data = child(dir, "data");
    String bootDir = child(dir, "bootstrap");
    String permDir = child(dir, "one-sample");
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark demo")) {
      SparkSession spark = session.spark;
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      if (!overwrite && earlierDemo(conf, dir)) {
        // a second `nlspark demo` replaces its own results (only the files they listed)
        overwrite = true;
        if (!common.quiet) {
          err.println("nlspark demo: replacing the results of an earlier demo in "
              + Untrusted.escape(dir));
        }
      }
      // All three directories checked and locked before anything is written.
      try (HadoopOutput.OutputDir.Reservation dataDir = HadoopOutput.OutputDir.preflight(conf, data,
              overwrite, 0);
          HadoopOutput.OutputDir.Reservation bootTarget = HadoopOutput.OutputDir.preflight(conf,
              bootDir, overwrite, 0);
          HadoopOutput.OutputDir.Reservation permTarget = HadoopOutput.OutputDir.preflight(conf,
              permDir, overwrite, 0)) {
        runStudy(spark, conf, dir, data, bootDir, permDir);
      }
    }
    return 0;
  }

  /**
   * Whether {@code dir} holds an earlier demo's results and nothing else of the user's: its
   * data/summary.json says command demo, and each of bootstrap/ and one-sample/ is absent or
   * holds a summary.json (the files a run lists there are all --overwrite replaces).
   */
  static boolean earlierDemo(Configuration conf, String dir) {
    try {
      org.nlspark.report.ReportFiles files = org.nlspark.spark.output.HadoopReport.files(conf, dir);
      byte[] about = files.read("data/summary.json");
      if (about == null) {
        return false;
      }
      Object parsed = org.nlspark.core.io.Json.parse(new String(about,
          java.nio.charset.StandardCharsets.UTF_8));
      if (!(parsed instanceof Map) || !"demo".equals(((Map<?, ?>) parsed).get("command"))) {
        return false;
      }
      for (String sub : new String[] {"bootstrap", "one-sample"}) {
        org.apache.hadoop.fs.Path p = new org.apache.hadoop.fs.Path(
            org.nlspark.spark.io.UserPaths.toPath(dir, "--output"), sub);
        org.apache.hadoop.fs.FileSystem fs = p.getFileSystem(conf);
        if (fs.exists(p) && fs.listStatus(p).length > 0
            && files.read(sub + "/summary.json") == null) {
          return false;
        }
      }
      return true;
    } catch (java.io.IOException | RuntimeException e) {
      return false; // then the usual checks say what is in the way
    }
  }

  /** Writes the study into {@code data}, runs both analyses on it and writes their results. */
  private void runStudy(SparkSession spark, Configuration conf, String dir, String data,
      String bootDir, String permDir) {
    boolean quiet = common.quiet;
    long seed = common.seed();
    NlsparkOptions boot = bootstrapOptions();
    NlsparkOptions perm = permutationOptions();
    NiftiMask mask = DemoStudy.mask();
    if (!quiet) {
      err.printf("nlspark demo: %d subjects on a %dx%dx%d grid of %.0f mm voxels, %,d in the"
          + " mask, effect %.1f SD in a blob of radius %.0f voxels%n", SUBJECTS, DemoStudy.NX,
          DemoStudy.NY, DemoStudy.NZ, DemoStudy.VOXEL_MM, mask.count(), EFFECT,
          DemoStudy.BLOB_RADIUS);
    }
    try (HadoopOutput.OutputDir target = HadoopOutput.OutputDir.open(conf, data, overwrite)) {
      DemoStudy.write(target, "", mask, seed);
      Map<String, Object> about = new LinkedHashMap<>();
      about.put("command", "demo");
      about.put("subjects", SUBJECTS);
      about.put("seed", seed);
      about.put("grid", NiftiOutputs.grid(mask, "mask.nii.gz"));
      target.writeJson("summary.json", about);
      target.commit();
    }
    String list = child(data, "subjects.txt");
    String maskFile = child(data, "mask.nii.gz");
    StudyInputs study = StudyInputs.resolve(conf, list, null, maskFile, null, null);
    boolean progress = Summaries.progressWanted(quiet);
    RunReport b = Nlspark.run(spark, Analysis.BOOTSTRAP, study, null, boot, progress);
    String[] bootArgs = {"bootstrap", "--input", list, "--mask", maskFile, "--stat", "mean",
        "--samples", Long.toString(b.job().spec.replicates()), "--seed", Long.toString(seed),
        "--output", bootDir};
    Nlspark.write(conf, b, summary(b, bootArgs, study), bootDir, overwrite);
    RunReport t = Nlspark.run(spark, Analysis.ONE_SAMPLE, study, null, perm, progress);
    String[] permArgs = {"one-sample", "--input", list, "--mask", maskFile, "--stat", "t",
        "--permutations", Long.toString(t.job().spec.replicates()), "--seed",
        Long.toString(seed), "--output", permDir};
    Map<String, Object> permSummary = summary(t, permArgs, study);
    String written = Nlspark.write(conf, t, permSummary, permDir, overwrite);
    out.print(table(b, t, Untrusted.escape(dir)));
    Summaries.printResultLine(out, conf, permSummary, written);
  }

  /**
   * Without --overwrite the demo's directory must be missing, empty, or hold only the demo's
   * own three directories (each then refused on its own when not empty): it writes into
   * sub-directories, and the user's files beside them would otherwise pass unnoticed.
   */
  static void refuseForeignContents(String dir, boolean overwrite) {
    if (overwrite) {
      return;
    }
    org.apache.hadoop.fs.FileStatus[] entries;
    try {
      org.apache.hadoop.fs.Path p = org.nlspark.spark.io.UserPaths.toPath(dir, "--output");
      org.apache.hadoop.fs.FileSystem fs = p.getFileSystem(new Configuration());
      if (!fs.exists(p) || !fs.getFileStatus(p).isDirectory()) {
        return; // created, or refused by the output checks with their own words
      }
      entries = fs.listStatus(p);
    } catch (java.io.IOException | RuntimeException e) {
      return; // the output checks say what is wrong
    }
    for (org.apache.hadoop.fs.FileStatus e : entries) {
      String name = e.getPath().getName();
      if (!java.util.Set.of("data", "bootstrap", "one-sample").contains(name)
          && !name.startsWith(".nlspark-")) {
        throw new org.nlspark.core.InvalidInputException("Cannot write --output " + dir
            + ": the directory exists and is not empty (it holds " + name + "); choose another directory or pass --overwrite (which"
            + " replaces only the demo's own files there)");
      }
    }
  }

  private static String child(String dir, String name) {
    return dir.endsWith("/") ? dir + name : dir + "/" + name;
  }

  private static Map<String, Object> summary(RunReport report, String[] args, StudyInputs study) {
    Map<String, Object> m = Summaries.summary(report, args);
    m.put("inputs", study.describe());
    return m;
  }

  static String table(RunReport boot, RunReport perm, String dir) {
    BootstrapResult b = (BootstrapResult) boot.result;
    PermutationResult p = (PermutationResult) perm.result;
    int planted = 0;
    int hits = 0;
    int falseHits = 0;
    double widthPlanted = 0;
    double widthNull = 0;
    int ciExcludesZero = 0;
    for (int v = 0; v < b.voxels(); v++) {
      double width = b.ciUpper[v] - b.ciLower[v];
      if (b.ciLower[v] > 0 || b.ciUpper[v] < 0) {
        ciExcludesZero++;
      }
      boolean significant = p.pFwer != null && p.pFwer[v] < 0.05;
      if (DemoStudy.isPlanted(boot.mask(), v)) {
        planted++;
        widthPlanted += width;
        hits += significant ? 1 : 0;
      } else {
        widthNull += width;
        falseHits += significant ? 1 : 0;
      }
    }
    widthPlanted /= Math.max(1, planted);
    widthNull /= Math.max(1, b.voxels() - planted);
    StringBuilder s = new StringBuilder();
    s.append(String.format("%n%-34s %-22s %s%n", "", "bootstrap (mean)", "one-sample (t)"));
    s.append(String.format("%-34s %-22d %d%n", "replicates", boot.analysis.replicates(),
        perm.analysis.replicates()));
    s.append(String.format("%-34s %-22s %d of %d in the blob, %d others%n",
        "significant after FWER (p < 0.05)", "-", hits, planted, falseHits));
    s.append(String.format("%-34s %-22s %s%n", "95% CI excludes 0 (uncorrected)",
        ciExcludesZero + " voxels", "-"));
    s.append(String.format("%-34s %-22.4f %s%n", "mean CI width, blob voxels", widthPlanted,
        "-"));
    s.append(String.format("%-34s %-22.4f %s%n", "mean CI width, other voxels", widthNull, "-"));
    s.append(String.format("%-34s %-22s %.2f%n", "time (s)",
        String.format("%.2f", boot.wallSeconds()), perm.wallSeconds()));
    s.append(String.format("%-34s %-22s %s%n", "tiles / partitions",
        boot.plan.tileCount() + " / " + boot.engineFacts.get("partitions"),
        perm.plan.tileCount() + " / " + perm.engineFacts.get("partitions")));
    s.append(String.format("%-34s %s (%s)%n", "backend",
        boot.backend().kind().name().toLowerCase(java.util.Locale.ROOT),
        boot.engineFacts.get("master")));
    s.append(String.format("%-34s %s%n", "BLAS", Blas.describe()));
    s.append(String.format("%nStudy: %s/data/ (sub-01..%02d.nii.gz, subjects.txt, mask.nii.gz,"
        + " effect.nii.gz = the planted blob)%n", dir, SUBJECTS));
    s.append(String.format("Maps:  %s/bootstrap/ (mean, std, ci_lower, ci_upper, z, p .nii.gz)"
        + "%n       %s/one-sample/ (observed = t, p, p_fwer .nii.gz); each has .npy copies and"
        + " summary.json%n", dir, dir));
    return s.toString();
  }
}
