package org.nlspark.core.result;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * The findings model against a naive reference: every inference whose maps a run wrote gets
 * one entry (per glm contrast), with counts, tail, peak (largest score on the tested tail) and
 * its mm from the mask's affine; the headline keys stay what they were.
 */
class FindingsTest {
  static final int NI = 5;
  static final int NJ = 4;
  static final int NK = 3;

  /** A mask of every other voxel on a 5 x 4 x 3 grid, x flipped (a LAS-like affine). */
  static NiftiMask mask() {
    double[][] affine = {{-3, 0, 0, 10}, {0, 2, 0, -6}, {0, 0, 2.5, -3}};
    NiftiHeader h = NiftiHeader.builder().shape(NI, NJ, NK).pixdim(1, 3, 2, 2.5, 1, 1, 1, 1)
        .sform(2, affine).build();
    boolean[] sel = new boolean[NI * NJ * NK];
    for (int f = 0; f < sel.length; f++) {
      sel[f] = f % 2 == 0;
    }
    return NiftiMask.fromSelection(h, sel, "test mask");
  }

  record Maps(List<Output> outputs, Map<String, Object> facts) implements Result {
    @Override
    public int voxels() {
      return outputs.get(0).values().length;
    }
  }

  static double[] random(SplittableRandom r, int n, double lo, double hi) {
    double[] d = new double[n];
    for (int i = 0; i < n; i++) {
      d[i] = lo + (hi - lo) * r.nextDouble();
    }
    return d;
  }

  static Output out(String name, double[] v) {
    return new Output(name, new long[] {v.length}, v);
  }

  static int naiveCount(double[] p, double alpha) {
    int n = 0;
    for (double v : p) {
      n += v < alpha ? 1 : 0;
    }
    return n;
  }

  /** argmax of key(score), ties by key(stat), then the lowest index: by a full scan. */
  static int naivePeak(double[] score, double[] stat, String tail, boolean signed) {
    int best = -1;
    for (int v = 0; v < score.length; v++) {
      if (best < 0 || compare(score, stat, tail, signed, v, best) > 0) {
        best = v;
      }
    }
    return best;
  }

  static int compare(double[] score, double[] stat, String tail, boolean signed, int a, int b) {
    int c = Double.compare(key(score[a], tail, signed), key(score[b], tail, signed));
    return c != 0 ? c : Double.compare(key(stat[a], tail, true), key(stat[b], tail, true));
  }

  static double key(double x, String tail, boolean signed) {
    if (!signed) {
      return x;
    }
    return tail.equals("two") ? Math.abs(x) : tail.equals("upper") ? x : -x;
  }

  @Test
  void glmEntriesPerContrastWithTailsCountsPeaksAndMillimetres() {
    NiftiMask mask = mask();
    int v = mask.count();
    SplittableRandom r = new SplittableRandom(7);
    double[] t1 = random(r, v, -4, 4);
    double[] t2 = random(r, v, -4, 4);
    t1[3] = -9; // the largest |t1| is negative: off the upper tail it is tested on
    List<Output> o = new ArrayList<>();
    o.add(out("tstat1", t1));
    o.add(out("p_tstat1", random(r, v, 0, 0.2)));
    o.add(out("p_fwer_tstat1", random(r, v, 0.01, 1)));
    o.add(out("null_max_tstat1", random(r, 99, 0, 5)));
    double[] tfce1 = random(r, v, 0, 50);
    o.add(out("tfce_tstat1", tfce1));
    o.add(out("p_tfce_tstat1", random(r, v, 0, 1)));
    o.add(out("p_fwer_tfce_tstat1", random(r, v, 0, 0.3)));
    o.add(out("null_max_tfce_tstat1", random(r, 99, 0, 50)));
    o.add(out("tstat2", t2));
    o.add(out("p_tstat2", random(r, v, 0, 1)));
    o.add(out("p_fwer_tstat2", random(r, v, 0.2, 1)));
    o.add(out("null_max_tstat2", random(r, 16, 0, 5)));
    double[] size2 = new double[v];
    for (int i = 0; i < v; i++) {
      size2[i] = i % 3 == 0 ? 4 : 0;
    }
    o.add(out("cluster_size_tstat2", size2));
    o.add(out("p_fwer_cluster_tstat2", random(r, v, 0, 1)));
    Map<String, Object> summary = new LinkedHashMap<>();
    Map<String, Object> contrasts = new LinkedHashMap<>();
    contrasts.put("tstat1", Map.of("tail", "upper", "replicates_drawn", 99,
        "exact_enumeration", false));
    contrasts.put("tstat2", Map.of("tail", "lower", "replicates_drawn", 16,
        "exact_enumeration", true));
    summary.put("resampling", Map.of("contrasts", contrasts));
    summary.put("whole_map", Map.of("cluster_threshold", 2.5));
    Map<String, Object> f = Findings.of(new Maps(o, Map.of()), summary, mask);

    // the headline keys: the first contrast's, as before
    assertThat(f.get("statistic")).isEqualTo("tstat1");
    assertThat(f.get("max_abs_statistic")).isEqualTo(-9.0);
    assertThat(f.get("p_fwer_below_0_05")).isEqualTo(naiveCount(o.get(2).values(), 0.05));

    @SuppressWarnings("unchecked")
    List<Map<String, Object>> inf = (List<Map<String, Object>>) f.get("inferences");
    List<String> names = inf.stream().map(e -> e.get("statistic") + " " + e.get("inference"))
        .toList();
    assertThat(names).containsExactly("tstat1 max-T", "tstat1 TFCE", "tstat1 uncorrected",
        "tstat2 max-T", "tstat2 cluster extent", "tstat2 uncorrected");
    for (Map<String, Object> e : inf) {
      String stat = (String) e.get("statistic");
      double[] s = stat.equals("tstat1") ? t1 : t2;
      String tail = stat.equals("tstat1") ? "upper" : "lower";
      String kind = (String) e.get("inference");
      String suffix = "_" + stat;
      String pName = switch (kind) {
        case "max-T" -> "p_fwer" + suffix;
        case "TFCE" -> "p_fwer_tfce" + suffix;
        case "cluster extent" -> "p_fwer_cluster" + suffix;
        default -> "p" + suffix;
      };
      double[] p = new Maps(o, Map.of()).output(pName);
      double[] score = kind.equals("TFCE") ? tfce1 : kind.equals("cluster extent") ? size2 : s;
      assertThat(e.get("p_map")).isEqualTo(pName);
      assertThat(e.get("tail")).isEqualTo(tail);
      assertThat(e.get("below_0_05")).isEqualTo(naiveCount(p, 0.05));
      assertThat(e.get("below_0_01")).isEqualTo(naiveCount(p, 0.01));
      int peak = naivePeak(score, s, tail, !kind.equals("cluster extent"));
      assertThat(e.get("peak_voxel")).as(stat + " " + kind).isEqualTo(peak);
      assertThat(e.get("peak_statistic")).isEqualTo(s[peak]);
      assertThat(e.get("peak_p")).isEqualTo(p[peak]);
      int[] ijk = mask.ijk(peak);
      assertThat((double[]) e.get("peak_mm")).containsExactly(-3.0 * ijk[0] + 10,
          2.0 * ijk[1] - 6, 2.5 * ijk[2] - 3);
      // 99 random draws: 1/100; 16 enumerated draws: 1/16
      assertThat(e.get("smallest_possible_p")).isEqualTo(stat.equals("tstat1") ? 0.01 : 1.0 / 16);
    }
    // upper tail: the peak of tstat1's max-T is its largest t, never the -9 off that tail
    assertThat(((Number) inf.get(0).get("peak_statistic")).doubleValue()).isPositive();
    // lower tail: tstat2's peak is its most negative t
    assertThat(inf.get(3).get("peak_statistic")).isEqualTo(
        java.util.Arrays.stream(t2).min().orElseThrow());
    assertThat(inf.get(4).get("cluster_threshold")).isEqualTo(2.5);
  }

  @Test
  void oneSampleWithoutGridNamesVoxelsAndBootstrapCountsIntervals() {
    SplittableRandom r = new SplittableRandom(3);
    int v = 30;
    double[] t = random(r, v, -5, 5);
    List<Output> o = List.of(out("observed", t), out("p", random(r, v, 0, 1)),
        out("p_fwer", random(r, v, 0, 1)), out("null_max", random(r, 9, 0, 5)));
    Map<String, Object> summary = Map.of("parameters", Map.of("tail", "two", "statistic", "t"));
    Map<String, Object> f = Findings.of(new Maps(o, Map.of()), summary, null);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> inf = (List<Map<String, Object>>) f.get("inferences");
    assertThat(inf).hasSize(2);
    assertThat(inf.get(0).get("inference")).isEqualTo("max-T");
    assertThat(inf.get(0).get("statistic_label")).isEqualTo("t");
    assertThat(inf.get(0).get("peak_voxel")).isEqualTo(naivePeak(t, t, "two", true));
    assertThat(inf.get(0)).doesNotContainKey("peak_mm");
    // 9 draws: the smallest p is 0.1, which the result line must call out
    assertThat(inf.get(0).get("smallest_possible_p")).isEqualTo(0.1);

    double[] mean = random(r, v, -1, 1);
    double[] lo = new double[v];
    double[] hi = new double[v];
    double[] z = new double[v];
    int excluding = 0;
    for (int i = 0; i < v; i++) {
      lo[i] = mean[i] - 0.5;
      hi[i] = mean[i] + 0.5;
      z[i] = mean[i] / 0.25;
      excluding += lo[i] > 0 || hi[i] < 0 ? 1 : 0;
    }
    double[] p = random(r, v, 0, 0.1);
    List<Output> b = List.of(out("observed", mean), out("mean", mean), out("std", mean),
        out("ci_lower", lo), out("ci_upper", hi), out("z", z), out("p", p));
    Map<String, Object> bf = Findings.of(new Maps(b, Map.of()),
        Map.of("parameters", Map.of("statistic", "mean", "confidence", 0.95)), null);
    @SuppressWarnings("unchecked")
    List<Map<String, Object>> binf = (List<Map<String, Object>>) bf.get("inferences");
    assertThat(binf).hasSize(1);
    Map<String, Object> e = binf.get(0);
    assertThat(e.get("inference")).isEqualTo(Findings.BOOTSTRAP);
    assertThat(e.get("intervals_excluding_0")).isEqualTo(excluding);
    assertThat(e.get("p_below_0_05")).isEqualTo(naiveCount(p, 0.05));
    assertThat(e.get("peak_voxel")).isEqualTo(naivePeak(z, z, "two", true));
    assertThat(e.get("confidence")).isEqualTo(0.95);
  }
}
