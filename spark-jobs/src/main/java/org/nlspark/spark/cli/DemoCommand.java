package org.nlspark.spark.cli;

import java.util.SplittableRandom;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.backend.Blas;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.result.BootstrapResult;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.PermutationResult;
import org.nlspark.spark.Nlspark;
import org.nlspark.spark.NlsparkOptions;
import org.nlspark.spark.io.HadoopFiles;
import org.nlspark.spark.io.HadoopReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code nlspark demo}: a synthetic study of {@value #SUBJECTS} subjects x {@value #VOXELS}
 * voxels of N(0, 1) noise with an effect of {@value #EFFECT} SD planted in every
 * {@value #EFFECT_EVERY}th voxel, then a bootstrap of the mean and a sign-flip t test with FWER,
 * written (data, both result directories) atomically under one output directory.
 */
@Command(sortOptions = false, name = "demo",
    description = {"Makes a synthetic data set (40 subjects x 20,000 voxels, an effect planted in"
        + " voxels 0, 50, 100, ...), runs bootstrap and one-sample --stat t, and prints a table"
        + " and where the files are (default DIR: " + DemoCommand.DEFAULT_OUTPUT + ")."},
    customSynopsis = "nlspark demo [--output DIR] [--samples B] [--permutations P] [options]")
public final class DemoCommand extends NlsparkCommand {
  public static final int SUBJECTS = 40;
  public static final int VOXELS = 20_000;
  public static final int EFFECT_EVERY = 50;
  public static final double EFFECT = 1.0;
  public static final String DEFAULT_OUTPUT = "nlspark-out/demo";

  @Option(names = "--samples", paramLabel = "B", order = 10,
      description = "bootstrap samples (default 1000)")
  Long samples;

  @Option(names = "--permutations", paramLabel = "P", order = 11,
      description = "sign-flip permutations (default 5000)")
  Long permutations;

  @Mixin CommonOptions common;
  @Mixin PartitionsOption partitions;

  @Override
  public String name() {
    return "demo";
  }

  /** Row-major data: noise from (seed), plus {@link #EFFECT} in the planted voxels. */
  public static DataMatrix syntheticData(long seed) {
    SplittableRandom random = new SplittableRandom(seed);
    double[] x = new double[SUBJECTS * VOXELS];
    for (int i = 0; i < SUBJECTS; i++) {
      for (int v = 0; v < VOXELS; v++) {
        double noise = gaussian(random);
        x[i * VOXELS + v] = noise + (isPlanted(v) ? EFFECT : 0.0);
      }
    }
    return DataMatrix.of(SUBJECTS, VOXELS, x, "demo data");
  }

  public static boolean isPlanted(int voxel) {
    return voxel % EFFECT_EVERY == 0;
  }

  private static double gaussian(SplittableRandom r) {
    // Box-Muller; one value per call keeps the stream simple to reproduce.
    double u = 1.0 - r.nextDouble();
    double w = r.nextDouble();
    return Math.sqrt(-2.0 * Math.log(u)) * Math.cos(2.0 * Math.PI * w);
  }

  @Override
  public void validate() {
    bootstrapOptions().toSpec(Analysis.BOOTSTRAP);
    permutationOptions().toSpec(Analysis.ONE_SAMPLE);
  }

  private NlsparkOptions bootstrapOptions() {
    return options().seed(common.seed()).replicates(samples == null ? 1000 : samples);
  }

  private NlsparkOptions permutationOptions() {
    NlsparkOptions perm = options().seed(common.seed()).statistic("t");
    if (permutations != null) {
      perm.replicates(permutations);
    }
    return perm;
  }

  private NlsparkOptions options() {
    NlsparkOptions o = common.toOptions();
    o.partitions(partitions.partitions);
    return o;
  }

  @Override
  protected int run() {
    String dir = common.output == null ? DEFAULT_OUTPUT : common.output;
    boolean overwrite = common.overwrite;
    boolean quiet = common.quiet;
    long seed = common.seed();
    NlsparkOptions boot = bootstrapOptions();
    NlsparkOptions perm = permutationOptions();
    validate();
    try (SparkSessions.Handle session = SparkSessions.open(common.master, "nlspark demo")) {
      SparkSession spark = session.spark;
      Configuration conf = spark.sparkContext().hadoopConfiguration();
      try (HadoopFiles.OutputDir target = HadoopFiles.OutputDir.open(conf, dir, overwrite)) {
        if (!quiet) {
          err.printf("nlspark demo: %d subjects x %,d voxels, effect %.1f SD in every %dth voxel%n",
              SUBJECTS, VOXELS, EFFECT, EFFECT_EVERY);
        }
        DataMatrix x = syntheticData(seed);
        target.writeNpy("data/X.npy", new long[] {SUBJECTS, VOXELS}, x.values());
        boolean progress = Summaries.progressWanted(quiet);
        RunReport b = Nlspark.run(spark, Analysis.BOOTSTRAP, JobInputs.of(x), boot, progress);
        writeInto(target, "bootstrap", b, new String[] {"bootstrap", "--input", "data/X.npy",
            "--stat", "mean", "--samples", Long.toString(b.job().spec.replicates())});
        RunReport t = Nlspark.run(spark, Analysis.ONE_SAMPLE, JobInputs.of(x), perm, progress);
        writeInto(target, "one-sample", t, new String[] {"one-sample", "--input", "data/X.npy",
            "--stat", "t", "--permutations", Long.toString(t.job().spec.replicates())});
        String written = target.commit();
        HadoopReport.writeOrWarn(conf, written);
        out.print(table(b, t, Untrusted.escape(written)));
        Summaries.printResultLine(out, conf, Summaries.summary(t, new String[0]), written);
      }
    }
    return 0;
  }

  private static void writeInto(HadoopFiles.OutputDir target, String sub, RunReport report,
      String[] equivalentArgs) {
    for (Output o : report.result.outputs()) {
      target.writeNpy(sub + "/" + o.name() + ".npy", o.shape(), o.values());
    }
    target.writeJson(sub + "/summary.json", Summaries.summary(report, equivalentArgs));
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
      if (isPlanted(v)) {
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
    s.append(String.format("%-34s %-22s %d of %d planted, %d others%n",
        "significant after FWER (p < 0.05)", "-", hits, planted, falseHits));
    s.append(String.format("%-34s %-22s %s%n", "95% CI excludes 0 (uncorrected)",
        ciExcludesZero + " voxels", "-"));
    s.append(String.format("%-34s %-22.4f %s%n", "mean CI width, planted voxels", widthPlanted,
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
    s.append(String.format("%nFiles: %s/data/X.npy, %s/bootstrap/, %s/one-sample/"
        + " (each with summary.json)%n", dir, dir, dir));
    return s.toString();
  }
}
