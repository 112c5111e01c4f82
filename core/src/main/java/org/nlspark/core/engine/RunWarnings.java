package org.nlspark.core.engine;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * What a finished run should tell its user although it succeeded: results that are undefined
 * (NaN) for a reason the user can fix, and intervals that the number of draws cannot resolve.
 * One home for these notices, so summary.json's {@code warnings} and the command line say the
 * same for every command.
 */
public final class RunWarnings {
  private RunWarnings() {}

  /** The notices of {@code report}, in a fixed order; empty when there is nothing to say. */
  public static List<String> of(RunReport report) {
    List<String> warnings = new ArrayList<>(report.inputWarnings());
    String mask = defaultMaskWarning(report.mask());
    if (mask != null) {
      warnings.add(mask);
    }
    Map<String, Object> parameters = parameters(report);
    Object samples = parameters.get("samples");
    Object confidence = parameters.get("confidence");
    if (samples instanceof Number) {
      long b = ((Number) samples).longValue();
      if (b < 2) {
        warnings.add("1 bootstrap sample: the standard deviation, z, p and intervals are"
            + " undefined (NaN); use --samples 2 or more (thousands for intervals)");
      } else if (confidence instanceof Number) {
        double c = ((Number) confidence).doubleValue();
        long needed = samplesToResolve(c);
        if (b < needed) {
          warnings.add(String.format(Locale.ROOT, "--confidence %s with %d samples: the"
              + " interval's ends fall between the two most extreme draws, so it is about the"
              + " range of the samples; use at least %d samples", c, b, needed));
        }
      }
    }
    Map<String, Object> facts = report.result.facts();
    long voxels = report.result.voxels();
    long zeroVariance = count(facts.get("zero_variance_voxels"));
    long undefined = count(facts.get("undefined_voxels"));
    if (zeroVariance > 0) {
      warnings.add(String.format(Locale.ROOT, "%d of %d voxels have zero variance in the"
          + " draws: their z and p are NaN", zeroVariance, voxels));
    }
    if (undefined > 0) {
      String why = report.command().equals("isc")
          ? "a subject is constant there (zero variance), so the correlation is undefined"
          : "the data have zero variance there";
      warnings.add(String.format(Locale.ROOT, "%d of %d voxels are undefined (NaN): %s;"
          + " mask them out or check those voxels", undefined, voxels, why));
    }
    warnings.addAll(drawWarnings(report, false));
    return warnings;
  }

  /**
   * Voxels a default mask left out for a NaN or infinity in some sample (DESIGN §8), with those
   * left out as zero in every sample beside them; null when none was non-finite. Zero
   * everywhere is the usual outside of the brain, so it alone is no warning.
   */
  static String defaultMaskWarning(NiftiMask mask) {
    if (mask == null || mask.droppedNonFinite() <= 0) {
      return null;
    }
    return String.format(Locale.ROOT, "the default mask left out %d voxels that are NaN or"
        + " infinite in some sample (and %d that are zero in every sample), analysing %d;"
        + " replace the non-finite values or give --mask to choose the voxels",
        mask.droppedNonFinite(), Math.max(0, mask.droppedAllZero()), mask.count());
  }

  /**
   * Short sentences for the result line (empty when there is nothing to say): contrasts tested
   * by sign flips because permutations cannot change them, a demeaned design, and draws too few
   * for small p.
   */
  public static List<String> resultNotes(RunReport report) {
    List<String> notes = new ArrayList<>();
    Map<String, Object> resampling = resampling(report);
    if (resampling.get("contrasts") instanceof Map) {
      List<String> flipped = new ArrayList<>();
      for (Map.Entry<?, ?> e : ((Map<?, ?>) resampling.get("contrasts")).entrySet()) {
        if (e.getValue() instanceof Map
            && ((Map<?, ?>) e.getValue()).get("errors_reason") != null) {
          flipped.add(String.valueOf(e.getKey()));
        }
      }
      if (!flipped.isEmpty()) {
        notes.add(String.join(", ", flipped) + " tested by sign flips (no permutation changes "
            + (flipped.size() == 1 ? "it" : "them") + ")");
      }
      String tree = blockTreeNote((Map<?, ?>) resampling.get("contrasts"));
      if (tree != null) {
        notes.add(tree);
      }
    }
    Map<String, Object> parameters = parameters(report);
    if (parameters.get("variance_groups") instanceof Number groups && groups.intValue() > 1) {
      notes.add(groups + " variance groups: t and F are v and G, their p counted on their z"
          + " (Welch's degrees of freedom per voxel and draw)");
    }
    if (Boolean.TRUE.equals(parameters.get("demean"))) {
      Object removed = parameters.get("demean_removed_column");
      notes.add(removed == null ? "data and design demeaned (no intercept to remove)"
          : "data and design demeaned, intercept column '" + removed + "' removed");
    }
    notes.addAll(drawWarnings(report, true));
    return notes;
  }

  /**
   * Multi-level exchangeability blocks: their levels and each contrast's distinct draws (the
   * tree's count for the design), so that a reader sees what the blocks allowed.
   */
  private static String blockTreeNote(Map<?, ?> contrasts) {
    Object levels = null;
    boolean added = false;
    List<String> counts = new ArrayList<>();
    for (Map.Entry<?, ?> e : contrasts.entrySet()) {
      if (e.getValue() instanceof Map<?, ?> plan && plan.get("exchangeability_levels") != null) {
        levels = plan.get("exchangeability_levels");
        added = Boolean.TRUE.equals(plan.get("exchangeability_leaf_column_added"));
        Object n = plan.get("draws_possible");
        counts.add(e.getKey() + " " + (n instanceof Double x
            ? String.format(Locale.ROOT, "%.3g", x) : String.valueOf(n)));
      }
    }
    return levels == null ? null : "exchangeability blocks in " + levels + " levels"
        + (added ? " (a column of samples added: the last level repeated ids)" : "")
        + "; distinct draws: " + String.join(", ", counts);
  }

  /**
   * Permutation draws that cannot resolve small p: fewer distinct draws than requested (all of
   * them enumerated, every p at least 1/N), or a smallest attainable p above 0.05 (1/N
   * enumerated, 1/(P + 1) drawn at random). Per contrast for glm.
   */
  private static List<String> drawWarnings(RunReport report, boolean brief) {
    List<String> out = new ArrayList<>();
    if (report.command().equals("bootstrap")) {
      return out;
    }
    Map<String, Object> resampling = resampling(report);
    if (resampling.get("contrasts") instanceof Map) {
      for (Map.Entry<?, ?> e : ((Map<?, ?>) resampling.get("contrasts")).entrySet()) {
        if (e.getValue() instanceof Map) {
          String w = drawWarning((Map<?, ?>) e.getValue(), String.valueOf(e.getKey()), brief);
          if (w != null) {
            out.add(w);
          }
        }
      }
    } else {
      String w = drawWarning(resampling, null, brief);
      if (w != null) {
        out.add(w);
      }
    }
    return out;
  }

  private static String drawWarning(Map<?, ?> plan, String contrast, boolean brief) {
    if (!(plan.get("replicates_drawn") instanceof Number)
        || !(plan.get("replicates_requested") instanceof Number)) {
      return null;
    }
    long drawn = ((Number) plan.get("replicates_drawn")).longValue();
    long requested = ((Number) plan.get("replicates_requested")).longValue();
    boolean enumerated = Boolean.TRUE.equals(plan.get("exact_enumeration"));
    double smallest = enumerated ? 1.0 / drawn : 1.0 / (requested + 1);
    boolean fewer = enumerated && drawn < requested;
    boolean unreachable = smallest > 0.05;
    if (!fewer && !unreachable) {
      return null;
    }
    String who = contrast == null ? "" : contrast + ": ";
    if (brief) {
      return String.format(Locale.ROOT, "%s%s, smallest p %s%s", who,
          fewer ? "only " + drawn + " distinct draws" : requested + " permutations",
          shortNumber(smallest), unreachable ? " (cannot reach 0.05)" : "");
    }
    String what = fewer
        ? String.format(Locale.ROOT, "%sonly %d distinct draws exist, fewer than the %d"
            + " requested; all were enumerated, so every p is at least 1/%d = %s", who, drawn,
            requested, drawn, shortNumber(smallest))
        : String.format(Locale.ROOT, "%s%d permutations: every p is at least 1/%d = %s", who,
            requested, requested + 1, shortNumber(smallest));
    return what + (unreachable ? fewer
        ? "; no p can reach 0.05: more samples (or other errors, such as --errors both) are"
            + " needed for that"
        : "; no p can reach 0.05: use --permutations 19 or more (thousands for FWER)" : "");
  }

  private static String shortNumber(double v) {
    return String.format(Locale.ROOT, "%.3g", v);
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> resampling(RunReport report) {
    Object r = report.analysis.describe().get("resampling");
    return r instanceof Map ? (Map<String, Object>) r : Map.of();
  }

  /**
   * The fewest draws for which a central {@code confidence} interval's linear-interpolation
   * quantiles lie beyond the two most extreme draws: (1 - c) / 2 · (B - 1) >= 1.
   */
  static long samplesToResolve(double confidence) {
    double tail = (1 - confidence) / 2;
    if (!(tail > 0)) {
      return Long.MAX_VALUE;
    }
    return (long) Math.ceil(1 / tail - 1e-9) + 1;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> parameters(RunReport report) {
    Object p = report.analysis.describe().get("parameters");
    return p instanceof Map ? (Map<String, Object>) p : Map.of();
  }

  private static long count(Object value) {
    return value instanceof Number ? ((Number) value).longValue() : 0;
  }
}
