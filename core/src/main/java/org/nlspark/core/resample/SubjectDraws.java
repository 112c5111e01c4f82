package org.nlspark.core.resample;

import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Draws over subjects (ISC): a subject bootstrap as per-subject counts, and per-subject surrogate
 * shifts. Like every draw, replicate r depends only on (seed, r) (DESIGN §4).
 */
public final class SubjectDraws {
  private SubjectDraws() {}

  /**
   * Replicate r's subject counts (Σ = S, at least two distinct subjects): S draws with
   * replacement from r's generator, repeated from the same generator while only one subject
   * was drawn.
   */
  public static void subjectCounts(long seed, long replicate, int subjects, int[] counts) {
    SplittableRandom rng = Seeds.forReplicate(seed, replicate);
    while (true) {
      Arrays.fill(counts, 0, subjects, 0);
      int distinct = 0;
      for (int i = 0; i < subjects; i++) {
        if (counts[rng.nextInt(subjects)]++ == 0) {
          distinct++;
        }
      }
      if (distinct >= 2) {
        return;
      }
    }
  }

  /**
   * Replicate r's surrogate plan: per subject a shift (circle shift) or a phase kernel (phase
   * randomization), drawn in subject order from r's generator and shared by all voxels.
   */
  public static int[] subjectShifts(long seed, long replicate, int subjects, int timepoints) {
    SplittableRandom rng = Seeds.forReplicate(seed, replicate);
    int[] shifts = new int[subjects];
    for (int s = 0; s < subjects; s++) {
      shifts[s] = Surrogates.drawShift(rng, timepoints);
    }
    return shifts;
  }
}
