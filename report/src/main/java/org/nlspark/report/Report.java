package org.nlspark.report;

import com.github.mustachejava.DefaultMustacheFactory;
import com.github.mustachejava.Mustache;
import java.awt.Color;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import javax.imageio.ImageIO;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.Json;
import org.nlspark.core.io.OutputFormat;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.tfce.MeshAdjacency;

/**
 * report.html of a finished output directory: one self-contained page (images embedded as
 * data: URIs, no script, nothing fetched) saying what was run, what the permutation tests and
 * bootstrap intervals found, and, when the inputs had a grid, where (slice montages and a
 * cluster table). A directory whose runs sit in sub-directories (the demo) gets one section
 * per run.
 *
 * <p>Counts on the page carry {@code data-file}/{@code data-alpha} attributes naming the
 * output they were counted from, so a checker can recompute them from the {@code .npy} files.
 */
public final class Report {
  public static final String FILE = "report.html";
  /** Temporary files in an output directory start so (the output writer's convention). */
  public static final String TEMP_PREFIX = ".nlspark-tmp-report-";
  static final double ALPHA = 0.05;
  private static final String TEMPLATE = "org/nlspark/report/report.mustache";

  static {
    // drawn off screen: never reach for a display, even where DISPLAY is set
    if (System.getProperty("java.awt.headless") == null) {
      System.setProperty("java.awt.headless", "true");
    }
  }

  private Report() {}

  /** Renders report.html of the directory; throws when it holds no summary.json at all. */
  public static String render(ReportFiles files) {
    return render(files, null, null);
  }

  /**
   * The same with a grey underlay under the maps (a 3-D NIfTI on the runs' grid; null: the
   * run's mean image when it wrote one, else the mask).
   */
  public static String render(ReportFiles files, byte[] underlay, String underlayName) {
    try {
      List<RunData> runs = new ArrayList<>();
      RunData top = RunData.load(files, "", underlay, underlayName);
      if (top != null) {
        runs.add(top);
      } else {
        for (String sub : subRuns(files)) {
          RunData r = RunData.load(files, sub + "/", underlay, underlayName);
          if (r != null) {
            runs.add(r);
          }
        }
      }
      if (runs.isEmpty()) {
        throw new InvalidInputException("Cannot write a report of " + files.location()
            + ": it holds no summary.json (neither at the top nor in a run's sub-directory);"
            + " name the output directory of a finished nlspark run");
      }
      Map<String, Object> page = new LinkedHashMap<>();
      page.put("location", files.location());
      List<Map<String, Object>> sections = new ArrayList<>();
      for (RunData r : runs) {
        sections.add(new Section(r).build());
      }
      page.put("sections", sections);
      page.put("title", "nlspark report: " + String.join(", ",
          sections.stream().map(s -> String.valueOf(s.get("title"))).toList()));
      Mustache m = new DefaultMustacheFactory().compile(TEMPLATE);
      StringWriter w = new StringWriter();
      m.execute(w, page).flush();
      return w.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a report of " + files.location() + ": "
          + e.getMessage(), e);
    }
  }

  /**
   * The sub-directories whose runs a top-level summary-less directory holds (the demo's, or a
   * study's run folders under any names): those named after a command first, in this order,
   * then every other sub-directory holding a summary.json nlspark wrote, by name. The command
   * of each run comes from its summary.json, never from the folder's name.
   */
  private static List<String> subRuns(ReportFiles files) throws IOException {
    List<String> commands = List.of("bootstrap", "one-sample", "two-sample", "correlation",
        "isc", "timeseries-correlation", "ridge-bootstrap", "glm");
    List<String> subs = new ArrayList<>();
    for (String s : commands) {
      if (files.read(s + "/summary.json") != null) {
        subs.add(s);
      }
    }
    for (String s : files.subdirectories()) {
      if (commands.contains(s)) {
        continue;
      }
      byte[] json = files.read(s + "/summary.json");
      if (json != null && isNlsparksSummary(json)) {
        subs.add(s); // another tool's summary.json in a sub-directory is not a run of ours
      }
    }
    return subs;
  }

  /**
   * Whether a report.html is a page nlspark wrote: its generator tag, or (pages written before
   * the tag) its title.
   */
  public static boolean isNlsparksPage(byte[] html) {
    String head = new String(html, 0, Math.min(html.length, 8192), StandardCharsets.UTF_8);
    return head.contains("<meta name=\"generator\" content=\"nlspark\">")
        || head.contains("<title>nlspark report: ");
  }

  private static boolean isNlsparksSummary(byte[] json) {
    try {
      return OutputFormat.isNlsparks(Json.parse(new String(json, StandardCharsets.UTF_8)));
    } catch (RuntimeException e) {
      return false; // not JSON at all: not nlspark's
    }
  }

  /**
   * The run's mask, as the page finds it: mask.nii.gz beside the outputs (a computed mask), else
   * the {@code --mask} path summary.json records; null when the run had no grid or the file
   * cannot be read (the result line then names voxel indices instead of mm).
   */
  public static NiftiMask mask(ReportFiles files, Map<String, Object> summary) {
    try {
      return RunData.readMask(files, "", summary);
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  /**
   * What a run found, in one line, from summary.json's findings (and the mask for mm): e.g.
   * "312 voxels p_fwer < 0.05, max t 7.9 at (-42, 18, 6) mm". Null when there are no findings.
   */
  public static String findingsLine(Map<String, Object> summary, NiftiMask mask) {
    Object f = summary.get("findings");
    if (!(f instanceof Map) || ((Map<?, ?>) f).isEmpty()) {
      return null;
    }
    Map<?, ?> findings = (Map<?, ?>) f;
    List<String> parts = new ArrayList<>();
    String units = units(findings.get("elements"));
    if (findings.get("p_fwer_below_0_05") instanceof Number) {
      parts.add(findings.get("p_fwer_below_0_05") + units + "p_fwer < 0.05");
    } else if (findings.get("p_below_0_05") instanceof Number) {
      parts.add(findings.get("p_below_0_05") + units + "p < 0.05 (uncorrected)");
    }
    if (findings.get("max_abs_statistic") instanceof Number) {
      double max = ((Number) findings.get("max_abs_statistic")).doubleValue();
      String where = "";
      if ("vertices".equals(findings.get("elements"))) {
        where = ""; // the inference lines name the peak vertex
      } else if (findings.get("max_abs_statistic_voxel") instanceof Number) {
        int voxel = ((Number) findings.get("max_abs_statistic_voxel")).intValue();
        if (mask != null && voxel >= 0 && voxel < mask.count()) {
          double[] mm = Clusters.toMm(mask.grid().affine(), mask.ijk(voxel));
          where = String.format(Locale.ROOT, " at (%.0f, %.0f, %.0f) mm", mm[0], mm[1], mm[2]);
        } else {
          where = " at voxel " + voxel;
        }
      }
      parts.add(String.format(Locale.ROOT, "max %s %s%s", statisticName(summary), number(max),
          where));
    }
    return parts.isEmpty() ? null : String.join(", ", parts);
  }

  /**
   * What each glm contrast tested, as weights on the design's named columns (after the contrast
   * file's columns were matched to the design's by name), e.g. "tstat2 group = 1 group - 0.5 age"
   * or "fstat1 mean+group joins tstat1, tstat2"; empty for the other commands.
   */
  public static List<String> contrastLines(Map<String, Object> summary) {
    List<String> lines = new ArrayList<>();
    Object resampling = summary.get("resampling");
    Object per = resampling instanceof Map ? castMap(resampling).get("contrasts") : null;
    if (!(per instanceof Map)) {
      return lines;
    }
    List<String> tNames = new ArrayList<>();
    for (Map.Entry<String, Object> e : castMap(per).entrySet()) {
      if (!(e.getValue() instanceof Map)) {
        continue;
      }
      Map<String, Object> c = castMap(e.getValue());
      Object w = c.get("weights");
      if (w instanceof Map) {
        tNames.add(e.getKey());
        lines.add(e.getKey() + " " + c.get("contrast") + " = " + weighted(castMap(w)));
      } else if (w instanceof List) {
        List<String> joined = new ArrayList<>();
        String[] parts = String.valueOf(c.get("contrast")).split("\\+");
        for (String part : parts) {
          for (String t : tNames) {
            Object tc = castMap(castMap(per).get(t)).get("contrast");
            if (part.equals(String.valueOf(tc)) && !joined.contains(t)) {
              joined.add(t);
              break;
            }
          }
        }
        lines.add(e.getKey() + " " + c.get("contrast") + " joins " + (joined.size()
            == parts.length ? String.join(", ", joined) : ((List<?>) w).size() + " rows"));
      }
    }
    return lines;
  }

  private static String weighted(Map<String, Object> w) {
    StringBuilder b = new StringBuilder();
    for (Map.Entry<String, Object> e : w.entrySet()) {
      double x = e.getValue() instanceof Number ? ((Number) e.getValue()).doubleValue() : 0;
      if (x == 0) {
        continue;
      }
      double a = Math.abs(x);
      String mag = a == Math.rint(a) && a < 1e15 ? Long.toString((long) a)
          : String.format(Locale.ROOT, "%.4g", a);
      b.append(b.length() == 0 ? (x < 0 ? "-" : "") : (x < 0 ? " - " : " + "))
          .append(mag.equals("1") ? "" : mag + " ").append(e.getKey());
    }
    return b.toString();
  }

  /**
   * What a run found, one line per inference and statistic, from summary.json's
   * {@code findings.inferences} (see core's {@code Findings}): e.g. "tstat1 TFCE: 123 voxels
   * p_fwer < 0.05, peak t 11.0 at (26, 8, 14) mm, upper tail". Family-wise (and FDR) inferences
   * are listed; the uncorrected one only for a statistic that has no other. A summary written
   * before the inferences were recorded gets its one {@link #findingsLine}; empty when there are
   * no findings at all.
   */
  public static List<String> findingsLines(Map<String, Object> summary, NiftiMask mask) {
    List<Map<String, Object>> inferences = inferences(summary);
    if (inferences.isEmpty()) {
      String line = findingsLine(summary, mask);
      return line == null ? List.of() : List.of(line);
    }
    boolean glm = false;
    java.util.Set<String> corrected = new java.util.HashSet<>();
    for (Map<String, Object> e : inferences) {
      glm |= String.valueOf(e.get("statistic")).matches("[tf]stat[0-9]+");
      if (!"uncorrected".equals(e.get("inference"))) {
        corrected.add(String.valueOf(e.get("statistic")));
      }
    }
    List<String> lines = new ArrayList<>();
    for (Map<String, Object> e : inferences) {
      if ("uncorrected".equals(e.get("inference")) && corrected.contains(e.get("statistic"))) {
        continue;
      }
      lines.add(inferenceLine(e, glm, mask));
    }
    return lines;
  }

  /** The inferences summary.json records (an empty list for older summaries). */
  @SuppressWarnings("unchecked")
  static List<Map<String, Object>> inferences(Map<String, Object> summary) {
    Object f = summary.get("findings");
    Object list = f instanceof Map ? ((Map<?, ?>) f).get("inferences") : null;
    List<Map<String, Object>> out = new ArrayList<>();
    if (list instanceof List) {
      for (Object o : (List<?>) list) {
        if (o instanceof Map) {
          out.add((Map<String, Object>) o);
        }
      }
    }
    return out;
  }

  /** One inference's line (see {@link #findingsLines}). */
  static String inferenceLine(Map<String, Object> e, boolean named, NiftiMask mask) {
    String kind = String.valueOf(e.get("inference"));
    String head = (named ? e.get("statistic") + " " : "") + kind + ": ";
    String label = String.valueOf(e.getOrDefault("statistic_label", "statistic"));
    String where = where(e, mask);
    if ("bootstrap interval".equals(kind)) {
      Object conf = e.get("confidence");
      String level = conf instanceof Number ? percent(((Number) conf).doubleValue()) + " " : "";
      String peak = e.get("peak_z") instanceof Number
          ? String.format(Locale.ROOT, ", largest |z| %s (%s %s)%s",
              number(Math.abs(((Number) e.get("peak_z")).doubleValue())), label,
              number(((Number) e.get("peak_statistic")).doubleValue()), where) : "";
      return head + e.get("intervals_excluding_0") + " voxels whose " + level
          + "interval excludes 0" + peak;
    }
    String measure = String.valueOf(e.get("measure"));
    long n = e.get("below_0_05") instanceof Number ? ((Number) e.get("below_0_05")).longValue()
        : 0;
    String tail = tailPhrase(String.valueOf(e.get("tail")));
    StringBuilder b = new StringBuilder(head);
    String alphaName = measure.equals("p") ? "p < 0.05 (uncorrected)"
        : measure.equals("q") ? "q < 0.05" : measure + " < 0.05";
    Double peakStat = e.get("peak_statistic") instanceof Number
        ? ((Number) e.get("peak_statistic")).doubleValue() : null;
    if (n > 0) {
      b.append(n).append(units(e.get("elements"))).append(alphaName);
      if (peakStat != null) {
        b.append(", peak ").append(label).append(' ').append(number(peakStat)).append(where);
      }
    } else {
      String what = measure.equals("p_fwer") ? "FWER 0.05"
          : measure.equals("p_cfwer") ? "FWER 0.05 across contrasts"
          : measure.equals("q") ? "FDR 0.05" : "p < 0.05 uncorrected";
      b.append("nothing survives at ").append(what);
      if (e.get("peak_p") instanceof Number) {
        b.append(" (smallest ").append(measure).append(' ')
            .append(number(((Number) e.get("peak_p")).doubleValue())).append(')');
      }
      if (peakStat != null) {
        b.append(", max ").append(label).append(' ').append(number(peakStat)).append(where);
      }
    }
    if (e.get("cluster_threshold") instanceof Number) {
      Object on = e.get("cluster_statistic");
      b.append(", clusters at ").append(on instanceof String ? (String) on : label).append(' ')
          .append(number(((Number) e.get("cluster_threshold")).doubleValue()));
    }
    b.append(", ").append(tail);
    if (e.get("smallest_possible_p") instanceof Number
        && ((Number) e.get("smallest_possible_p")).doubleValue() >= ALPHA) {
      b.append("; the smallest p these draws can give is ")
          .append(number(((Number) e.get("smallest_possible_p")).doubleValue()))
          .append(", not below 0.05: more samples (or permutations) are needed");
    }
    return b.toString();
  }

  /** " voxels " or, for surface inputs, " vertices ". */
  static String units(Object elements) {
    return "vertices".equals(elements) ? " vertices " : " voxels ";
  }

  /**
   * " at (x, y, z) mm" from the entry (or the mask), " at vertex N (x, y, z mm)" on a surface
   * (" at CORTEX_LEFT vertex N ..." on CIFTI grayordinates),
   * else " at voxel N", else "".
   */
  static String where(Map<String, Object> e, NiftiMask mask) {
    if (e.get("peak_vertex") instanceof Number vertex) {
      double[] at = peakMm(e, null);
      String place = e.get("peak_grayordinate") instanceof String g ? g : "vertex " + vertex;
      return " at " + place + (at == null ? "" : String.format(Locale.ROOT,
          " (%.0f, %.0f, %.0f mm)", at[0], at[1], at[2]));
    }
    double[] mm = peakMm(e, mask);
    if (mm != null) {
      return String.format(Locale.ROOT, " at (%.0f, %.0f, %.0f) mm", mm[0], mm[1], mm[2]);
    }
    return e.get("peak_voxel") instanceof Number ? " at voxel " + e.get("peak_voxel") : "";
  }

  /** The peak in mm: recorded in summary.json, else from the mask; null without a grid. */
  static double[] peakMm(Map<String, Object> e, NiftiMask mask) {
    Object mm = e.get("peak_mm");
    if (mm instanceof List && ((List<?>) mm).size() == 3) {
      double[] d = new double[3];
      for (int i = 0; i < 3; i++) {
        d[i] = ((Number) ((List<?>) mm).get(i)).doubleValue();
      }
      return d;
    }
    if (mm instanceof double[]) {
      return (double[]) mm;
    }
    if (mask != null && e.get("peak_voxel") instanceof Number) {
      int voxel = ((Number) e.get("peak_voxel")).intValue();
      if (voxel >= 0 && voxel < mask.count()) {
        return Clusters.toMm(mask.grid().affine(), mask.ijk(voxel));
      }
    }
    return null;
  }

  /** 0.95 -> "95%", 0.975 -> "97.5%". */
  static String percent(double fraction) {
    double p = 100 * fraction;
    return (p == Math.rint(p) ? String.valueOf((long) p)
        : String.format(Locale.ROOT, "%.4g", p).replaceAll("0+$", "")) + "%";
  }

  static String tailPhrase(String tail) {
    switch (tail) {
      case "upper":
        return "upper tail";
      case "lower":
        return "lower tail";
      default:
        return "two-tailed";
    }
  }

  /** "t", "mean", "isc" ...: the parameter when recorded, else the findings' output name. */
  static String statisticName(Map<String, Object> summary) {
    Object p = summary.get("parameters");
    if (p instanceof Map && ((Map<?, ?>) p).get("statistic") instanceof String) {
      return (String) ((Map<?, ?>) p).get("statistic");
    }
    Object f = summary.get("findings");
    if (f instanceof Map && ((Map<?, ?>) f).get("statistic") instanceof String) {
      return (String) ((Map<?, ?>) f).get("statistic");
    }
    return "statistic";
  }

  static String number(double v) {
    if (Double.isNaN(v)) {
      return "NaN";
    }
    double a = Math.abs(v);
    if (a != 0 && (a < 1e-3 || a >= 1e6)) {
      return String.format(Locale.ROOT, "%.3g", v);
    }
    return String.format(Locale.ROOT, a >= 100 ? "%.1f" : "%.3g", v);
  }

  static Map<String, Object> image(String alt, BufferedImage img, String caption) {
    ByteArrayOutputStream png = new ByteArrayOutputStream();
    try {
      ImageIO.write(img, "png", png);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("alt", alt);
    m.put("src", "data:image/png;base64," + Base64.getEncoder().encodeToString(png.toByteArray()));
    m.put("width", img.getWidth());
    m.put("height", img.getHeight());
    m.put("caption", caption);
    return m;
  }

  static Map<String, Object> row(Object... kv) {
    Map<String, Object> m = new LinkedHashMap<>();
    for (int i = 0; i + 1 < kv.length; i += 2) {
      m.put(String.valueOf(kv[i]), kv[i + 1]);
    }
    return m;
  }

  /** Builds one run's part of the page. */
  private static final class Section {
    private final RunData run;
    private final String prefix;
    /** summary.json's findings.inferences (empty for a summary written before them). */
    private final List<Map<String, Object>> inferences;

    Section(RunData run) {
      this.run = run;
      this.prefix = run.name.isEmpty() ? "" : run.name + "/";
      this.inferences = Report.inferences(run.summary);
    }

    Map<String, Object> build() {
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("title", run.command() + (run.name.isEmpty() || run.name.equals(run.command())
          ? "" : " (" + run.name + ")"));
      s.put("id", run.name.isEmpty() ? "run" : run.name);
      List<String> lines = findingsLines(run.summary, run.mask);
      s.put("findings", lines.isEmpty() ? null : lines);
      Object python = run.summary.get("python");
      s.put("commandLine", python instanceof Map && ((Map<?, ?>) python).get("call") != null
          ? ((Map<?, ?>) python).get("call") : run.summary.get("command_line"));
      s.put("facts", facts());
      List<String> warnings = warnings();
      s.put("warnings", warnings.isEmpty() ? null : warnings);
      List<Map<String, Object>> counts = inferences.isEmpty() ? counts() : List.of();
      s.put("counts", counts.isEmpty() ? null : counts);
      List<Map<String, Object>> sections = inferenceSections();
      s.put("inferences", sections.isEmpty() ? null : sections);
      List<Map<String, Object>> charts = new ArrayList<>();
      if (inferences.isEmpty()) {
        permutationCharts(charts);
        bootstrapCharts(charts, s);
      } else {
        pHistogram(charts);
      }
      statisticChart(charts);
      s.put("charts", charts.isEmpty() ? null : charts);
      maps(s);
      s.put("outputs", outputs());
      return s;
    }

    private List<Map<String, Object>> facts() {
      List<Map<String, Object>> rows = new ArrayList<>();
      rows.add(row("name", "command", "value", run.command()));
      Map<String, Object> input = run.section("input");
      if (!input.isEmpty()) {
        rows.add(row("name", "input", "value", joined(input)));
      }
      String samples = sampleOrder();
      if (samples != null) {
        rows.add(row("name", "sample order", "value", samples));
      }
      if (run.mask != null) {
        int[] d = run.mask.grid().dims();
        rows.add(row("name", "mask", "value", String.format(Locale.ROOT,
            "%d voxels analysed of a %d x %d x %d grid (%s)", run.mask.count(), d[0], d[1], d[2],
            run.mask.geometry().affineSource())));
      } else {
        rows.add(row("name", "mask", "value", "none (inputs without a grid)"));
      }
      for (String key : List.of("design", "contrasts")) {
        if (run.summary.get(key) != null) {
          rows.add(row("name", key, "value", flat(run.summary.get(key))));
        }
      }
      List<String> tested = contrastLines(run.summary);
      if (!tested.isEmpty()) {
        rows.add(row("name", "contrasts tested", "value", String.join("; ", tested)));
      }
      if (!run.section("parameters").isEmpty()) {
        rows.add(row("name", "parameters", "value", joined(run.section("parameters"))));
      }
      if (!run.section("whole_map").isEmpty()) {
        // TFCE and cluster settings (whole-map inference) live beside the parameters
        rows.add(row("name", "whole-map inference", "value", joined(run.section("whole_map"))));
      }
      rows.add(row("name", "seed", "value", String.valueOf(run.summary.get("seed"))));
      Map<String, Object> backend = run.section("backend");
      if (!backend.isEmpty()) {
        rows.add(row("name", "backend / device", "value", backend.get("used") + " / "
            + backend.get("device") + " (" + backend.get("reason") + ")"));
      }
      if (run.summary.get("precision") != null) {
        rows.add(row("name", "precision", "value", run.summary.get("precision")));
      }
      rows.add(row("name", "BLAS", "value", String.valueOf(run.summary.get("blas"))));
      if (!run.section("resampling").isEmpty()) {
        rows.add(row("name", "resampling", "value", joined(run.section("resampling"))));
      }
      if (!run.section("tile_plan").isEmpty()) {
        rows.add(row("name", "plan", "value", joined(run.section("tile_plan"))));
      }
      Map<String, Object> engine = run.section("engine");
      if (!engine.isEmpty()) {
        Map<String, Object> e = new LinkedHashMap<>();
        for (String k : List.of("name", "master", "spark_version", "partitions", "tiles",
            "executors", "task_slots", "parallelism")) {
          if (engine.get(k) != null) {
            e.put(k, engine.get(k));
          }
        }
        rows.add(row("name", "engine", "value", joined(e)));
      }
      if (!run.section("timings").isEmpty()) {
        rows.add(row("name", "timings", "value", joined(run.section("timings"))));
      }
      if (!run.section("versions").isEmpty()) {
        rows.add(row("name", "versions", "value", joined(run.section("versions"))));
      }
      return rows;
    }

    /**
     * The image files in the order the samples were taken (summary.json's inputs), the first
     * twenty, then how many more; null when the summary lists none.
     */
    private String sampleOrder() {
      Object inputs = run.summary.get("inputs");
      if (!(inputs instanceof Map)) {
        return null;
      }
      List<String> parts = new ArrayList<>();
      for (var e : castMap(inputs).entrySet()) {
        if (!(e.getValue() instanceof Map)
            || !(castMap(e.getValue()).get("samples") instanceof List)) {
          continue;
        }
        List<?> names = (List<?>) castMap(e.getValue()).get("samples");
        StringBuilder b = new StringBuilder(parts.isEmpty() && e.getKey().equals("input") ? ""
            : e.getKey() + ": ");
        for (int i = 0; i < Math.min(20, names.size()); i++) {
          b.append(i == 0 ? "" : ", ").append(names.get(i));
        }
        if (names.size() > 20) {
          b.append(", ... (").append(names.size() - 20).append(" more)");
        }
        Object how = castMap(e.getValue()).get("sample_order");
        parts.add(b + (how == null ? "" : " (" + how + ")"));
      }
      return parts.isEmpty() ? null : String.join("; ", parts);
    }

    private List<String> warnings() {
      List<String> w = new ArrayList<>(run.notes);
      Object listed = run.summary.get("warnings");
      if (listed instanceof List) {
        for (Object o : (List<?>) listed) {
          w.add(String.valueOf(o));
        }
      }
      Map<String, Object> result = run.section("result");
      for (String k : List.of("undefined_voxels", "zero_variance_voxels")) {
        if (result.get(k) instanceof Number && ((Number) result.get(k)).longValue() > 0) {
          w.add(result.get(k) + " voxels have an undefined statistic (" + k.replace('_', ' ')
              + "): their values are NaN");
        }
      }
      return w;
    }

    /**
     * One part per inference and contrast (those the result line lists): what it is, its line,
     * its thresholds table, "nothing survives" where so, its maps and clusters, and the null
     * distribution of its maximum.
     */
    private List<Map<String, Object>> inferenceSections() {
      List<Map<String, Object>> out = new ArrayList<>();
      boolean glm = false;
      java.util.Set<String> corrected = new java.util.HashSet<>();
      for (Map<String, Object> e : inferences) {
        glm |= String.valueOf(e.get("statistic")).matches("[tf]stat[0-9]+");
        if (!"uncorrected".equals(e.get("inference"))) {
          corrected.add(String.valueOf(e.get("statistic")));
        }
      }
      for (Map<String, Object> e : inferences) {
        String kind = String.valueOf(e.get("inference"));
        String statistic = String.valueOf(e.get("statistic"));
        if ("uncorrected".equals(kind) && corrected.contains(statistic)) {
          continue;
        }
        Map<String, Object> part = "bootstrap interval".equals(kind) ? bootstrapSection(e)
            : permutationSection(e, glm);
        // a key a part lacks must not be looked up in the run's section by the template
        for (String k : List.of("nothing", "unattainable", "excludes", "maps", "mapRule",
            "clusters", "meshClusters", "charts", "thresholds")) {
          part.putIfAbsent(k, null);
        }
        out.add(part);
      }
      return out;
    }

    private Map<String, Object> permutationSection(Map<String, Object> e, boolean glm) {
      String kind = String.valueOf(e.get("inference"));
      String statistic = String.valueOf(e.get("statistic"));
      String label = String.valueOf(e.getOrDefault("statistic_label", statistic));
      String measure = String.valueOf(e.get("measure"));
      String tail = String.valueOf(e.get("tail"));
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", (run.name.isEmpty() ? "run" : run.name) + "-" + statistic + "-"
          + kind.replaceAll("[^A-Za-z0-9]+", "-").toLowerCase(Locale.ROOT));
      m.put("title", (glm ? statistic + " (" + label + "): " : "") + kind + ", "
          + tailPhrase(tail));
      m.put("statistic", statistic);
      m.put("inference", kind);
      m.put("line", inferenceLine(e, glm, run.mask));
      m.put("explain", explain(kind, label, e));
      String pMap = String.valueOf(e.get("p_map"));
      double[] p = run.voxelValues(pMap);
      List<Map<String, Object>> rows = new ArrayList<>();
      if (p != null) {
        for (double alpha : new double[] {0.05, 0.01}) {
          rows.add(row("label", measure + " < " + alpha, "count", countBelow(p, alpha),
              "file", prefix + pMap + ".npy", "alpha", alpha, "of", p.length));
        }
      }
      m.put("thresholds", rows);
      int survivors = p == null ? 0 : countBelow(p, ALPHA);
      if (survivors == 0) {
        String what = measure.equals("q") ? "FDR 0.05" : measure.equals("p") ? "p < 0.05"
            : "FWER 0.05";
        m.put("nothing", "Nothing survives at " + what + (p == null ? "" : ": the smallest "
            + measure + " is " + number(Arrays.stream(p).filter(v -> !Double.isNaN(v)).min()
                .orElse(Double.NaN))) + ".");
      }
      if (e.get("smallest_possible_p") instanceof Number
          && ((Number) e.get("smallest_possible_p")).doubleValue() >= ALPHA) {
        m.put("unattainable", "These draws cannot give a p below 0.05: the smallest possible is "
            + number(((Number) e.get("smallest_possible_p")).doubleValue())
            + ". More samples (or permutations) are needed.");
      }
      double[] stat = run.voxelValues(statistic);
      if (p != null && stat != null && survivors > 0) {
        boolean[] keep = new boolean[stat.length];
        for (int v = 0; v < keep.length; v++) {
          keep[v] = p[v] < ALPHA;
        }
        m.putAll(drawMaps(stat, keep, label, measure + " < 0.05"));
      }
      List<Map<String, Object>> charts = new ArrayList<>();
      Object nullName = e.get("null_map");
      double[] nullMax = nullName == null ? null : run.voxelValues(String.valueOf(nullName));
      double[] score = run.voxelValues(String.valueOf(e.get("score_map")));
      if (nullMax != null && score != null) {
        Tail t = Tail.of(tail);
        boolean signed = !"cluster extent".equals(kind);
        double observedMax = Double.NaN;
        for (double v : score) {
          double k = signed ? t.key(v) : v;
          if (!Double.isNaN(k) && (Double.isNaN(observedMax) || k > observedMax)) {
            observedMax = k;
          }
        }
        String what = scoreName(kind, label, signed ? t : Tail.UPPER);
        double threshold = fwerThreshold(nullMax, ALPHA);
        BufferedImage h = Charts.histogram("Null distribution of the maximum " + what + " ("
            + nullMax.length + " draws)", "max " + what, nullMax,
            new Charts.Marker("observed max " + number(observedMax), observedMax,
                new Color(200, 30, 30)),
            new Charts.Marker("FWER 0.05 threshold " + number(threshold), threshold,
                new Color(20, 140, 40)));
        if (h != null) {
          charts.add(image("null distribution of the maximum " + what, h, "The maximum over"
              + " voxels of " + what + " in each draw; a voxel survives at FWER 0.05 when its "
              + what + " is above the green line" + (Double.isNaN(threshold)
                  ? " (too few draws for one: need at least 19)" : "") + "."));
        }
      }
      m.put("charts", charts.isEmpty() ? null : charts);
      return m;
    }

    private Map<String, Object> bootstrapSection(Map<String, Object> e) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("id", (run.name.isEmpty() ? "run" : run.name) + "-bootstrap-interval");
      Object conf = e.get("confidence");
      String level = conf instanceof Number ? percent(((Number) conf).doubleValue())
          : "the run's";
      m.put("title", "Bootstrap intervals (" + level + ")");
      m.put("statistic", e.get("statistic"));
      m.put("inference", "bootstrap interval");
      m.put("line", inferenceLine(e, false, run.mask));
      m.put("explain", "Read the interval. A voxel whose " + level + " interval (ci_lower to"
          + " ci_upper, from the bootstrap draws) excludes 0 is one where the statistic differs"
          + " from 0 at that confidence, without assuming normality. z = mean / std of the draws"
          + " and p = 2(1 - Phi(|z|)) are a normal approximation of the same evidence: where p"
          + " and the interval disagree, the interval is the one to read. Neither is corrected"
          + " for the number of voxels; for family-wise error control use a permutation test"
          + " (one-sample, glm).");
      List<Map<String, Object>> rows = new ArrayList<>();
      double[] lo = run.voxelValues("ci_lower");
      double[] hi = run.voxelValues("ci_upper");
      double[] p = run.voxelValues("p");
      if (p != null) {
        for (double alpha : new double[] {0.05, 0.01}) {
          rows.add(row("label", "p < " + alpha + " (normal approximation, uncorrected)",
              "count", countBelow(p, alpha), "file", prefix + "p.npy", "alpha", alpha,
              "of", p.length));
        }
      }
      m.put("thresholds", rows);
      if (lo != null && hi != null && lo.length == hi.length) {
        boolean[] keep = new boolean[lo.length];
        int excludes = 0;
        double[] width = new double[lo.length];
        for (int v = 0; v < lo.length; v++) {
          keep[v] = lo[v] > 0 || hi[v] < 0;
          excludes += keep[v] ? 1 : 0;
          width[v] = hi[v] - lo[v];
        }
        m.put("excludes", row("count", excludes, "of", lo.length,
            "lower", prefix + "ci_lower.npy", "upper", prefix + "ci_upper.npy"));
        if (excludes == 0) {
          m.put("nothing", "No interval excludes 0.");
        } else {
          double[] stat = run.voxelValues(String.valueOf(e.get("statistic")));
          m.putAll(drawMaps(stat, keep, String.valueOf(e.get("statistic")),
              "interval excludes 0"));
        }
        BufferedImage h = Charts.histogram("Bootstrap interval widths", "ci_upper - ci_lower",
            width);
        if (h != null) {
          m.put("charts", List.of(image("histogram of interval widths", h, excludes + " of "
              + lo.length + " intervals exclude 0.")));
        }
      }
      return m;
    }

    /** What the kind of inference is, in a sentence or two. */
    private String explain(String kind, String label, Map<String, Object> e) {
      Map<String, Object> wm = run.section("whole_map");
      switch (kind) {
        case "max-T":
          return "Family-wise error by the maximum " + label + " over voxels of each draw (the"
              + " max-statistic method): p_fwer = (#{draws whose maximum >= the voxel's} + 1) /"
              + " (draws + 1).";
        case "TFCE":
          return "Threshold-free cluster enhancement of the " + label + " map (E "
              + wm.getOrDefault("tfce_extent_exponent", 0.5) + ", H "
              + wm.getOrDefault("tfce_height_exponent", 2.0)
              + ", face-connected, as FSL -T and nilearn); FWER by the maximum TFCE score of"
              + " each draw. The map shows the " + label + " values where p_fwer(TFCE) < 0.05.";
        case "cluster extent":
          return "Clusters of voxels with " + label + " beyond "
              + (e.get("cluster_threshold") == null ? "the cluster-forming threshold"
                  : number(((Number) e.get("cluster_threshold")).doubleValue()))
              + " on the tested tail; each voxel carries its cluster's size, FWER by the largest"
              + " cluster of each draw. Inference is on whole clusters, not on their voxels.";
        case "cluster mass":
          return "Clusters of voxels with " + label + " beyond the cluster-forming threshold;"
              + " each voxel carries its cluster's mass (the sum of " + label + "), FWER by the"
              + " largest mass of each draw.";
        case "max-T across contrasts":
          return "Family-wise error over all contrasts at once (statistics converted to z, as"
              + " PALM).";
        case "FDR":
          return "Benjamini-Hochberg false discovery rate q from the uncorrected p.";
        default:
          return "Uncorrected p: (#{draws at least as extreme} + 1) / (draws + 1), voxel by"
              + " voxel; not corrected for the number of voxels.";
      }
    }

    /** The histogram of this run's uncorrected p, when there is one. */
    private void pHistogram(List<Map<String, Object>> charts) {
      double[] p = run.voxelValues("p");
      if (p == null || run.voxelValues("null_max") == null) {
        return;
      }
      BufferedImage hp = Charts.histogram("Uncorrected p-values", "p", p,
          new Charts.Marker("p = 0.05", 0.05, new Color(20, 140, 40)));
      if (hp != null) {
        charts.add(image("histogram of uncorrected p", hp, "Flat under the null; a peak near"
            + " 0 is the effect."));
      }
    }

    private List<Map<String, Object>> counts() {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (String name : List.of("p", "p_fwer")) {
        double[] p = run.voxelValues(name);
        if (p == null) {
          continue;
        }
        for (double alpha : new double[] {0.05, 0.01}) {
          rows.add(row("label", name + " < " + alpha, "count", countBelow(p, alpha),
              "file", prefix + name + ".npy", "alpha", alpha,
              "of", p.length));
        }
      }
      return rows;
    }

    private void permutationCharts(List<Map<String, Object>> charts) {
      double[] nullMax = run.voxelValues("null_max");
      if (nullMax == null) {
        return;
      }
      double threshold = fwerThreshold(nullMax, ALPHA);
      double observedMax = observedMaxKey();
      BufferedImage h = Charts.histogram("Null distribution of the maximum statistic ("
          + nullMax.length + " permutations)", "max " + keyLabel(), nullMax,
          new Charts.Marker("observed max " + number(observedMax), observedMax,
              new Color(200, 30, 30)),
          new Charts.Marker("FWER 0.05 threshold " + number(threshold), threshold,
              new Color(20, 140, 40)));
      if (h != null) {
        charts.add(image("null distribution of the maximum", h, "The maximum over voxels of "
            + keyLabel() + " in each permutation; a voxel is significant at FWER 0.05 when its "
            + keyLabel() + " is above the green line"
            + (Double.isNaN(threshold) ? " (too few permutations for one: need at least 19)"
                : "") + "."));
      }
      double[] p = run.voxelValues("p");
      if (p != null) {
        BufferedImage hp = Charts.histogram("Uncorrected p-values", "p", p,
            new Charts.Marker("p = 0.05", 0.05, new Color(20, 140, 40)));
        if (hp != null) {
          charts.add(image("histogram of uncorrected p", hp, "Flat under the null; a peak near"
              + " 0 is the effect."));
        }
      }
    }

    private void bootstrapCharts(List<Map<String, Object>> charts, Map<String, Object> s) {
      double[] lo = run.voxelValues("ci_lower");
      double[] hi = run.voxelValues("ci_upper");
      if (lo == null || hi == null) {
        lo = flatValues("ci_lower");
        hi = flatValues("ci_upper");
      }
      if (lo == null || hi == null || lo.length != hi.length) {
        return;
      }
      double[] width = new double[lo.length];
      int excludes = 0;
      for (int v = 0; v < lo.length; v++) {
        width[v] = hi[v] - lo[v];
        if (lo[v] > 0 || hi[v] < 0) {
          excludes++;
        }
      }
      BufferedImage h = Charts.histogram("Bootstrap interval widths", "ci_upper - ci_lower",
          width);
      if (h != null) {
        charts.add(image("histogram of interval widths", h, excludes + " of " + lo.length
            + " intervals exclude 0."));
      }
      s.put("excludes", row("count", excludes, "of", lo.length,
          "lower", prefix + "ci_lower.npy", "upper", prefix + "ci_upper.npy"));
    }

    private void statisticChart(List<Map<String, Object>> charts) {
      for (String name : List.of("observed", "isc", "mean")) {
        double[] v = flatValues(name);
        if (v != null) {
          BufferedImage h = Charts.histogram("Distribution of " + name + " over voxels",
              name, v);
          if (h != null) {
            charts.add(image("histogram of " + name, h, name + ".npy over all "
                + v.length + " values."));
          }
          return;
        }
      }
    }

    private double[] flatValues(String name) {
      var a = run.arrays.get(name);
      return a == null ? null : a.data();
    }

    /** "|t|", "t" or "-t": what the null maxima are maxima of, by the tail. */
    private String keyLabel() {
      String stat = statisticName(run.summary);
      switch (run.tail()) {
        case "greater":
          return stat;
        case "less":
          return "-" + stat;
        default:
          return "|" + stat + "|";
      }
    }

    private double observedMaxKey() {
      double[] obs = run.voxelValues("observed");
      if (obs == null) {
        obs = run.voxelValues("isc");
      }
      if (obs == null) {
        return Double.NaN;
      }
      double max = Double.NaN;
      for (double o : obs) {
        double key = switch (run.tail()) {
          case "greater" -> o;
          case "less" -> -o;
          default -> Math.abs(o);
        };
        if (!Double.isNaN(key) && (Double.isNaN(max) || key > max)) {
          max = key;
        }
      }
      return max;
    }

    private void maps(Map<String, Object> s) {
      if (!inferences.isEmpty()) {
        return; // each inference draws its own
      }
      NiftiMask mask = run.mask;
      if (mask == null) {
        return;
      }
      String statName = null;
      double[] stat = null;
      for (String name : List.of("observed", "isc", "mean")) {
        stat = run.voxelValues(name);
        if (stat != null) {
          statName = name;
          break;
        }
      }
      if (stat == null || stat.length != mask.count()) {
        if (stat != null) {
          s.put("mapNote", statName + ".npy has " + stat.length + " values but the mask "
              + mask.count() + " voxels: no maps drawn");
        }
        return;
      }
      double[] pFwer = run.voxelValues("p_fwer");
      double[] p = run.voxelValues("p");
      double[] lo = run.voxelValues("ci_lower");
      double[] hi = run.voxelValues("ci_upper");
      String rule;
      boolean[] keep = new boolean[stat.length];
      if (pFwer != null) {
        rule = "p_fwer < 0.05";
        for (int v = 0; v < keep.length; v++) {
          keep[v] = pFwer[v] < ALPHA;
        }
      } else if (lo != null && hi != null) {
        rule = "interval excludes 0";
        for (int v = 0; v < keep.length; v++) {
          keep[v] = lo[v] > 0 || hi[v] < 0;
        }
      } else if (p != null) {
        rule = "p < 0.05 uncorrected";
        for (int v = 0; v < keep.length; v++) {
          keep[v] = p[v] < ALPHA;
        }
      } else {
        rule = "not thresholded";
        Arrays.fill(keep, true);
      }
      s.putAll(drawMaps(stat, keep, statName, rule));
    }

    /**
     * Montages (axial, coronal, sagittal; world orientation, see {@link Slices}) of {@code stat}
     * where {@code keep}, over the underlay (else the mask), the colour bar, and the cluster
     * table: keys maps, mapRule, clusters, noClusters. Empty without a grid.
     */
    private Map<String, Object> drawMaps(double[] stat, boolean[] keep, String statName,
        String rule) {
      Map<String, Object> s = new LinkedHashMap<>();
      if (run.surface != null && stat != null && stat.length == run.surface.voxels()) {
        return drawOnMesh(stat, keep, statName, rule);
      }
      NiftiMask mask = run.mask;
      if (mask == null || stat == null || stat.length != mask.count()) {
        return s;
      }
      int[] dims = mask.grid().dims();
      double[][] affine = mask.grid().affine();
      double[] overlay = new double[mask.grid().voxels()];
      Arrays.fill(overlay, Double.NaN);
      double limit = 0;
      double floor = Double.POSITIVE_INFINITY;
      boolean negative = false;
      int peak = -1;
      for (int v = 0; v < stat.length; v++) {
        if (keep[v] && !Double.isNaN(stat[v])) {
          overlay[mask.fileIndex(v)] = stat[v];
          limit = Math.max(limit, Math.abs(stat[v]));
          floor = Math.min(floor, Math.abs(stat[v]));
          negative |= stat[v] < 0;
          if (peak < 0 || Math.abs(stat[v]) > Math.abs(stat[peak])) {
            peak = v;
          }
        }
      }
      if (peak < 0) {
        floor = 0;
      }
      double[] background = run.background;
      if (background == null) {
        background = new double[overlay.length];
        for (int v = 0; v < mask.count(); v++) {
          background[mask.fileIndex(v)] = 1;
        }
      }
      int[] peakIjk = peak < 0 ? null : mask.ijk(peak);
      List<Map<String, Object>> images = new ArrayList<>();
      Slices.Orientation orientation = Slices.Orientation.of(affine);
      for (Slices.View view : Slices.View.values()) {
        int[] picked = Slices.pick(dims, orientation, view, overlay, background,
            peakIjk == null ? -1 : peakIjk[orientation.axis[view.through]]);
        BufferedImage img = Slices.montage(dims, affine, view, picked, overlay, background,
            floor, limit);
        Map<String, Object> im = image(view.title + " slices", img, view.title + " ("
            + (view == Slices.View.SAGITTAL ? "" : "neurological: the subject's left on the left, ")
            + view.leftLabel + " to " + view.rightLabel + ", " + view.topLabel + " up)");
        im.put("view", view.title);
        im.put("slices", joinedInts(picked));
        // where each slice's plane lies in the image, and its world coordinate: for checkers
        StringBuilder planes = new StringBuilder();
        StringBuilder mm = new StringBuilder();
        for (int n = 0; n < picked.length; n++) {
          planes.append(n == 0 ? "" : ";").append(Slices.planeX(dims, orientation, view, n))
              .append(',').append(Slices.planeWidth(dims, orientation, view));
          mm.append(n == 0 ? "" : ",").append(String.format(Locale.ROOT, "%.1f",
              Slices.sliceMm(affine, dims, orientation, view, picked[n])));
        }
        im.put("planes", planes.toString());
        im.put("planeTop", Slices.planeY());
        im.put("planeHeight", dims[orientation.axis[view.up]]
            * Slices.scale(dims, orientation, view));
        im.put("slicesMm", mm.toString());
        im.put("labels", view.leftLabel + "," + view.rightLabel + "," + view.topLabel + ","
            + view.bottomLabel);
        im.put("axisVoxel", orientation.axis[view.through]);
        im.put("flipX", orientation.flip[view.across]);
        images.add(im);
      }
      images.add(image("colour bar", Slices.colourBar(floor, limit, negative, statName + " (" + rule
          + ")"), "colour bar"));
      s.put("maps", images);
      s.put("mapRule", statName + " where " + rule + ", over the "
          + (run.background == null ? "mask (no underlay given)" : run.backgroundName));
      List<Map<String, Object>> table = new ArrayList<>();
      int n = 0;
      for (Clusters.Cluster c : Clusters.find(dims, affine, overlay)) {
        if (++n > 20) {
          break;
        }
        table.add(row("n", n, "size", c.size(), "volume", number(c.volumeMm3()),
            "peak", number(c.peak()),
            "ijk", c.peakIjk()[0] + ", " + c.peakIjk()[1] + ", " + c.peakIjk()[2],
            "mm", String.format(Locale.ROOT, "%.1f, %.1f, %.1f", c.peakMm()[0], c.peakMm()[1],
                c.peakMm()[2])));
      }
      s.put("clusters", table.isEmpty() ? null : table);
      s.put("noClusters", table.isEmpty());
      s.put("element", "voxel");
      return s;
    }

    /**
     * The same on a cortical mesh ({@link SurfaceViews}: lateral and medial views of each
     * hemisphere) and a table of the clusters of the shown vertices (joined by triangle edges,
     * of one sign): vertices, area, peak, its vertex and coordinates.
     */
    private Map<String, Object> drawOnMesh(double[] stat, boolean[] keep, String statName,
        String rule) {
      MeshAdjacency mesh = run.surface;
      double[] overlay = new double[mesh.meshVertices()];
      Arrays.fill(overlay, Double.NaN);
      double limit = 0;
      double floor = Double.POSITIVE_INFINITY;
      boolean negative = false;
      for (int n = 0; n < stat.length; n++) {
        if (keep[n] && !Double.isNaN(stat[n])) {
          overlay[mesh.vertexOf(n)] = stat[n];
          limit = Math.max(limit, Math.abs(stat[n]));
          floor = Math.min(floor, Math.abs(stat[n]));
          negative |= stat[n] < 0;
        }
      }
      if (floor == Double.POSITIVE_INFINITY) {
        floor = 0;
      }
      List<Map<String, Object>> images = new ArrayList<>();
      for (SurfaceViews.View view : SurfaceViews.draw(mesh.mesh(), overlay, floor, limit)) {
        Map<String, Object> im = image(view.title() + " view", view.image(), view.title()
            + " (orthographic, superior up)");
        im.put("view", view.title());
        images.add(im);
      }
      images.add(image("colour bar", Slices.colourBar(floor, limit, negative, statName + " ("
          + rule + ")"), "colour bar"));
      Map<String, Object> s = new LinkedHashMap<>();
      s.put("maps", images);
      int voxels = 0;
      for (int n = 0; n < stat.length; n++) {
        voxels += keep[n] && !Double.isNaN(stat[n]) && offMesh(mesh, n) ? 1 : 0;
      }
      s.put("mapRule", statName + " where " + rule + ", on the mesh " + mesh.meshName()
          + (voxels == 0 ? "" : "; " + voxels + " subcortical voxels pass too, not drawn here nor"
          + " in this table"));
      List<Map<String, Object>> table = new ArrayList<>();
      for (int[] c : meshClusters(mesh, stat, keep)) {
        if (table.size() == 20) {
          break;
        }
        double area = 0;
        int peak = c[0];
        for (int n : c) {
          area += mesh.area(n);
          peak = Math.abs(stat[n]) > Math.abs(stat[peak]) ? n : peak;
        }
        double[] mm = mesh.mesh().coordinate(mesh.vertexOf(peak));
        table.add(row("n", table.size() + 1, "vertices", c.length, "area", number(area),
            "peak", number(stat[peak]), "vertex", mesh.vertexOf(peak),
            "mm", String.format(Locale.ROOT, "%.1f, %.1f, %.1f", mm[0], mm[1], mm[2])));
      }
      s.put("meshClusters", table.isEmpty() ? null : table);
      s.put("noClusters", table.isEmpty());
      s.put("element", "vertex");
      return s;
    }

    /**
     * Whether element n is a point of no triangle: a CIFTI study's subcortical voxel, which the
     * written mesh carries without its grid (the run joined them; the views show the cortex).
     */
    private static boolean offMesh(MeshAdjacency mesh, int n) {
      return mesh.area(n) == 0 && mesh.neighboursOf(n).length == 0;
    }

    /** Clusters of the shown vertices: same sign, joined by triangle edges; largest first. */
    private static List<int[]> meshClusters(MeshAdjacency mesh, double[] stat, boolean[] keep) {
      int n = stat.length;
      int[] label = new int[n];
      Arrays.fill(label, -1);
      List<int[]> clusters = new ArrayList<>();
      int[] stack = new int[n];
      for (int start = 0; start < n; start++) {
        if (label[start] >= 0 || !keep[start] || Double.isNaN(stat[start])
            || offMesh(mesh, start)) {
          continue;
        }
        boolean positive = stat[start] >= 0;
        List<Integer> members = new ArrayList<>();
        int top = 0;
        stack[top++] = start;
        label[start] = clusters.size();
        while (top > 0) {
          int v = stack[--top];
          members.add(v);
          for (int w : mesh.neighboursOf(v)) {
            if (label[w] < 0 && keep[w] && !Double.isNaN(stat[w])
                && (stat[w] >= 0) == positive) {
              label[w] = clusters.size();
              stack[top++] = w;
            }
          }
        }
        clusters.add(members.stream().mapToInt(Integer::intValue).toArray());
      }
      clusters.sort((a, b) -> Integer.compare(b.length, a.length));
      return clusters;
    }

    private List<Map<String, Object>> outputs() {
      List<Map<String, Object>> rows = new ArrayList<>();
      for (var e : run.arrays.entrySet()) {
        double[] d = e.getValue().data();
        double[] finite = Arrays.stream(d).filter(Double::isFinite).sorted().toArray();
        long nan = d.length - finite.length;
        rows.add(row("name", e.getKey() + ".npy", "shape", Arrays.toString(e.getValue().shape()),
            "min", finite.length == 0 ? "-" : number(finite[0]),
            "median", finite.length == 0 ? "-" : number(finite[finite.length / 2]),
            "max", finite.length == 0 ? "-" : number(finite[finite.length - 1]),
            "nan", nan));
      }
      return rows;
    }
  }

  /**
   * The smallest value a voxel's key must exceed for p_fwer < alpha under core's rule
   * p_fwer = (#{m >= s} + 1) / (P + 1): the (k+1)-th largest null maximum, k the largest count
   * with (k + 1) / (P + 1) < alpha. NaN when even k = 0 does not reach alpha.
   */
  static double fwerThreshold(double[] nullMax, double alpha) {
    double[] sorted = Arrays.stream(nullMax).filter(v -> !Double.isNaN(v)).sorted().toArray();
    long draws = nullMax.length;
    // the same double arithmetic as core's p-value, so the line and the counts agree exactly
    long k = (long) Math.ceil(alpha * (draws + 1));
    while (k >= 0 && (k + 1.0) / (draws + 1.0) >= alpha) {
      k--;
    }
    if (k < 0 || sorted.length == 0) {
      return Double.NaN;
    }
    long index = sorted.length - 1 - k;
    return index < 0 ? Double.NEGATIVE_INFINITY : sorted[(int) index];
  }

  /** "|t|", "t", "-t", "TFCE of t", "cluster size": what a null maximum is a maximum of. */
  static String scoreName(String kind, String label, Tail tail) {
    String base = switch (kind) {
      case "TFCE" -> "TFCE score";
      case "cluster extent" -> "cluster size";
      case "cluster mass" -> "cluster mass";
      default -> label;
    };
    if ("cluster extent".equals(kind)) {
      return base;
    }
    return switch (tail) {
      case UPPER -> base;
      case LOWER -> "-" + base;
      default -> "|" + base + "|";
    };
  }

  /** A tail as summary.json spells it (two, upper, lower; older: greater, less). */
  enum Tail {
    TWO, UPPER, LOWER;

    static Tail of(String s) {
      return switch (s) {
        case "upper", "greater" -> UPPER;
        case "lower", "less" -> LOWER;
        default -> TWO;
      };
    }

    double key(double v) {
      return this == UPPER ? v : this == LOWER ? -v : Math.abs(v);
    }
  }

  static String joinedInts(int[] a) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < a.length; i++) {
      b.append(i == 0 ? "" : ",").append(a[i]);
    }
    return b.toString();
  }

  static int countBelow(double[] values, double alpha) {
    int n = 0;
    for (double v : values) {
      if (v < alpha) {
        n++;
      }
    }
    return n;
  }

  static String joined(Map<String, Object> m) {
    StringBuilder b = new StringBuilder();
    for (var e : m.entrySet()) {
      if (e.getValue() instanceof Map) {
        continue; // nested detail stays in summary.json
      }
      if (b.length() > 0) {
        b.append(", ");
      }
      Object v = e.getValue();
      b.append(e.getKey()).append(' ').append(v instanceof Double
          ? number((Double) v) : String.valueOf(v));
    }
    return b.toString();
  }

  static String flat(Object o) {
    return o instanceof Map ? joined(castMap(o)) : String.valueOf(o);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> castMap(Object o) {
    return (Map<String, Object>) o;
  }
}
