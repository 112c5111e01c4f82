package org.nlspark.core.glm;

import java.util.LinkedHashMap;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.job.Precision;
import org.nlspark.core.resample.GlmDraws;
import org.nlspark.core.stats.PValues;
import org.nlspark.core.stats.ZScores;
import org.nlspark.core.job.Tail;
import org.nlspark.core.tile.Grid;

/**
 * A GLM run on one thread over the fixed grid (DESIGN §5), for tests and small inputs: per
 * contrast, per voxel block, per replicate window, the kernel's statistics are folded into the
 * same streaming accumulators the tile pipeline uses (exceedance counts, per-replicate maxima),
 * and p-values come from the one p-value rule. A distributed run does exactly this per tile; the
 * cells and so the bits are the same whatever the tiling.
 *
 * <p>{@link GlmAnalysis} runs the same cells as tiles of the pipeline (any engine, any
 * partitioning) and must equal this loop bit for bit; both make their outputs in
 * {@link #assemble}.
 */
public final class GlmRun {
  private GlmRun() {}

  /**
   * @param tTail tail of t contrasts (upper unless the user asks; F is always upper)
   * @param blocks the exchangeability blocks, one row of ids per sample (one column, or PALM's
   *     multi-level columns), or null
   * @param varianceGroups PALM's -vg (v and G with more than one group), or null
   */
  public record Options(GlmDraws.Errors errors, int[][] blocks, String blocksSource,
      boolean wholeBlocks, long permutations, long seed, Tail tTail, boolean fwer,
      boolean fwerAcrossContrasts, Grid grid, Precision precision,
      VarianceGroups varianceGroups) implements java.io.Serializable {

    /** Without variance groups (one error variance for all samples). */
    public Options(GlmDraws.Errors errors, int[][] blocks, String blocksSource,
        boolean wholeBlocks, long permutations, long seed, Tail tTail, boolean fwer,
        boolean fwerAcrossContrasts, Grid grid, Precision precision) {
      this(errors, blocks, blocksSource, wholeBlocks, permutations, seed, tTail, fwer,
          fwerAcrossContrasts, grid, precision, null);
    }

    public static Options defaults(long permutations, long seed) {
      return new Options(GlmDraws.Errors.EXCHANGEABLE, null, "", false, permutations, seed,
          Tail.UPPER, true, false, Grid.DEFAULT, Precision.FLOAT64);
    }

    /** Adds p_cfwer_* maps: FWER over all contrasts, every contrast on the same draws. */
    public Options withFwerAcrossContrasts(boolean across) {
      return new Options(errors, blocks, blocksSource, wholeBlocks, permutations, seed, tTail,
          fwer || across, across, grid, precision, varianceGroups);
    }

    public Options withErrors(GlmDraws.Errors e) {
      return new Options(e, blocks, blocksSource, wholeBlocks, permutations, seed, tTail, fwer,
          fwerAcrossContrasts, grid, precision, varianceGroups);
    }

    /** One column of block ids per sample (within blocks, or whole blocks). */
    public Options withBlocks(int[] b, String source, boolean whole) {
      return withBlocks(b == null ? null : oneColumn(b), source, whole);
    }

    /** Block ids per sample: one column, or PALM's multi-level columns. */
    public Options withBlocks(int[][] b, String source, boolean whole) {
      return new Options(errors, b, source, whole, permutations, seed, tTail, fwer,
          fwerAcrossContrasts, grid, precision, varianceGroups);
    }

    /** Variance groups (PALM's -vg; null or one group: t and F). */
    public Options withVarianceGroups(VarianceGroups groups) {
      return new Options(errors, blocks, blocksSource, wholeBlocks, permutations, seed, tTail,
          fwer, fwerAcrossContrasts, grid, precision, groups);
    }

    /** One block id per sample as a one-column table. */
    public static int[][] oneColumn(int[] b) {
      int[][] out = new int[b.length][];
      for (int i = 0; i < b.length; i++) {
        out[i] = new int[] {b[i]};
      }
      return out;
    }

    public Options withGrid(Grid g) {
      return new Options(errors, blocks, blocksSource, wholeBlocks, permutations, seed, tTail,
          fwer, fwerAcrossContrasts, g, precision, varianceGroups);
    }

    public Options withTail(Tail t) {
      return new Options(errors, blocks, blocksSource, wholeBlocks, permutations, seed, t, fwer,
          fwerAcrossContrasts, grid, precision, varianceGroups);
    }
  }

  /**
   * Default of {@code --errors} (DESIGN §9): sign flips when the design is one constant column
   * (randomise -1, where no permutation changes anything), else row permutations.
   */
  public static GlmDraws.Errors defaultErrors(GlmModel model) {
    return model.columns() == 1 && model.interceptOnly() ? GlmDraws.Errors.SYMMETRIC
        : GlmDraws.Errors.EXCHANGEABLE;
  }

  /** The tail a contrast is tested with: F statistics are non-negative, so always upper. */
  public static Tail tailOf(GlmContrast c, Tail tTail) {
    return c.kind() == GlmContrast.Kind.F ? Tail.UPPER : tTail;
  }

  /**
   * The draw plan of one contrast. FWER over contrasts needs one plan for all: two
   * permutations are then the same draw only when they are for every contrast, so distinct
   * draws are counted on the effect parts of all contrasts side by side.
   */
  public static GlmDraws drawsOf(GlmModel model, GlmContrast c, Options o) {
    double[][] effect = o.fwerAcrossContrasts() ? sharedEffect(model) : c.effect();
    return GlmDraws.plan(o.errors(), o.blocks(), o.blocksSource(), o.wholeBlocks(), effect,
        model.samples(), o.permutations(), o.seed());
  }

  /**
   * The draw plans of every contrast (DESIGN §9, untestable-by-permutation contrasts). With
   * exchangeable errors, a contrast that no row permutation can change (its effect part is
   * constant within every exchangeability block: an intercept, or a block-wise constant
   * regressor) would get the identity as its only draw and p = 1 everywhere. Sign flips test it
   * (as randomise does for a one-sample design): when the errors were not given they are used
   * for such a contrast, and the plan records why; when {@code --errors exchangeable} was given
   * the run is refused. FWER across contrasts draws one plan for all, so then every contrast
   * flips signs.
   *
   * @param errorsGiven whether the user chose {@code o.errors()} ({@code --errors})
   * @throws InvalidInputException for an untestable contrast under forced exchangeable errors
   */
  public static java.util.List<GlmDraws> drawsOf(GlmModel model, Options o,
      boolean errorsGiven) {
    java.util.List<GlmContrast> contrasts = model.contrasts();
    String untestable = null;
    boolean[] fixed = new boolean[contrasts.size()];
    if (o.errors() == GlmDraws.Errors.EXCHANGEABLE) {
      for (int i = 0; i < contrasts.size(); i++) {
        GlmContrast c = contrasts.get(i);
        fixed[i] = !GlmDraws.permutationsChange(o.blocks(), o.blocksSource(), o.wholeBlocks(),
            c.effect(), model.samples());
        if (fixed[i] && untestable == null) {
          untestable = c.outputName() + " (" + c.name() + ")";
        }
      }
    }
    if (untestable != null && errorsGiven) {
      throw new InvalidInputException("Cannot test contrast " + untestable + " with --errors"
          + " exchangeable: no row permutation" + (o.blocks() == null ? "" : " within the"
          + " exchangeability blocks") + " changes it (its tested part is constant"
          + (o.blocks() == null ? "" : " within every block") + ", as an intercept is), so every"
          + " p would be 1; use --errors symmetric (sign flips) or --errors both");
    }
    java.util.List<GlmDraws> out = new java.util.ArrayList<>();
    for (int i = 0; i < contrasts.size(); i++) {
      GlmContrast c = contrasts.get(i);
      boolean flip = untestable != null && (fixed[i] || o.fwerAcrossContrasts());
      if (!flip) {
        out.add(drawsOf(model, c, o));
        continue;
      }
      String reason = fixed[i]
          ? "sign flips (--errors symmetric): no row permutation changes this contrast (its"
              + " tested part is constant within every exchangeability block, as an intercept is)"
          : "sign flips (--errors symmetric): --fwer-across-contrasts draws one plan for every"
              + " contrast, and no row permutation changes contrast " + untestable;
      out.add(drawsOf(model, c, o.withErrors(GlmDraws.Errors.SYMMETRIC))
          .withErrorsReason(reason));
    }
    return out;
  }

  private static double[][] sharedEffect(GlmModel model) {
    double[][] out = new double[model.samples()][0];
    for (GlmContrast c : model.contrasts()) {
      double[][] x = c.effect();
      for (int i = 0; i < out.length; i++) {
        double[] row = java.util.Arrays.copyOf(out[i], out[i].length + x[i].length);
        System.arraycopy(x[i], 0, row, out[i].length, x[i].length);
        out[i] = row;
      }
    }
    return out;
  }

  /** z of an extremeness key of contrast c (DESIGN §9: statistics put on one scale). */
  static double zOfKey(GlmContrast c, GlmModel model, double key) {
    if (c.varianceGroups()) {
      return key; // v and G come as z already (GlmContrastStatistic)
    }
    double df = model.degreesOfFreedom();
    return c.kind() == GlmContrast.Kind.F ? ZScores.ofF(key, c.rank(), df)
        : ZScores.ofT(key, df);
  }

  /**
   * What the streaming accumulators of one contrast hold once every voxel block and replicate
   * window is folded: the observed statistic, exceedance counts, per-replicate maxima of the
   * extremeness key (null without FWER) and the voxels without a statistic.
   *
   * @param statistic the observed statistic on the scale of the counts and maxima (z of v or G
   *     with variance groups)
   * @param written the observed statistic as its map is written (v or G themselves)
   */
  public record ContrastTotals(double[] statistic, long[] counts, double[] maxima,
      int undefinedVoxels, double[] written) {
    /** Totals whose statistic is written as it is counted (t, F). */
    public ContrastTotals(double[] statistic, long[] counts, double[] maxima,
        int undefinedVoxels) {
      this(statistic, counts, maxima, undefinedVoxels, statistic);
    }
  }

  /** {@link #run(GlmModel, DataMatrix, Options, boolean)} with the errors not given. */
  public static GlmResult run(GlmModel model, DataMatrix y, Options o) {
    return run(model, y, o, false);
  }

  /**
   * @param errorsGiven whether {@code o.errors()} was chosen by the user (see {@link
   *     #drawsOf(GlmModel, Options, boolean)})
   */
  public static GlmResult run(GlmModel model, DataMatrix y, Options o, boolean errorsGiven) {
    if (y.rows() != model.samples()) {
      throw new IllegalArgumentException("[BUG] data of " + y.rows() + " samples for a model of "
          + model.samples());
    }
    int voxels = y.cols();
    Grid grid = o.grid();
    java.util.List<GlmDraws> plans = new java.util.ArrayList<>();
    java.util.List<ContrastTotals> totals = new java.util.ArrayList<>();
    java.util.List<GlmDraws> chosen = drawsOf(model, o, errorsGiven);
    for (int ci = 0; ci < model.contrasts().size(); ci++) {
      GlmContrast c = model.contrasts().get(ci);
      GlmDraws draws = chosen.get(ci);
      Tail tail = tailOf(c, o.tTail());
      long replicates = draws.replicates();
      double[] stat = new double[voxels];
      double[] written = new double[voxels];
      long[] counts = new long[voxels];
      NullMaxAccumulator nullMax = o.fwer() ? new NullMaxAccumulator(0, (int) replicates) : null;
      int none = 0;
      for (int block = 0; block < grid.blocks(voxels); block++) {
        int from = grid.blockStart(block);
        int to = grid.blockEnd(block, voxels);
        int b = to - from;
        GlmContrastStatistic k = new GlmContrastStatistic(model, c, draws,
            y.copyColumns(from, to), b, grid.window(), o.precision());
        none += k.undefinedVoxels();
        double[] obs = new double[b];
        k.observed(obs);
        double[] keys = new double[b];
        for (int v = 0; v < b; v++) {
          keys[v] = tail.key(obs[v]);
        }
        ExceedanceCounter counter = new ExceedanceCounter(b);
        double[] buf = new double[grid.window() * b];
        for (int w = 0; w < grid.windows(replicates); w++) {
          long first = (long) w * grid.window();
          int rows = (int) Math.min(grid.window(), replicates - first);
          k.compute(first, rows, buf);
          for (int i = 0; i < rows * b; i++) {
            buf[i] = tail.key(buf[i]);
          }
          counter.update(buf, 0, rows, b, keys, 0);
          if (nullMax != null) {
            nullMax.update(buf, 0, rows, b, first);
          }
        }
        System.arraycopy(obs, 0, stat, from, b);
        k.observedStatistic(obs);
        System.arraycopy(obs, 0, written, from, b);
        System.arraycopy(counter.counts(), 0, counts, from, b);
      }
      plans.add(draws);
      totals.add(new ContrastTotals(stat, counts, nullMax == null ? null : nullMax.maxima(),
          none, written));
    }
    return assemble(model, o, plans, totals);
  }

  /**
   * The outputs of DESIGN §9 from each contrast's folded accumulators (the one place p-values
   * are made, for this reference loop and the tile pipeline alike).
   */
  public static GlmResult assemble(GlmModel model, Options o, java.util.List<GlmDraws> drawPlans,
      java.util.List<ContrastTotals> totals) {
    return assemble(model, o, drawPlans, totals, null, Map.of());
  }

  /**
   * The same, with each contrast's whole-map outputs ({@code tfce_tstat1 ...}, DESIGN §9) placed
   * after its voxelwise ones and their facts under {@code whole_map_inference}.
   *
   * @param wholeMaps per contrast, its whole-map outputs in order; null for none
   */
  public static GlmResult assemble(GlmModel model, Options o, java.util.List<GlmDraws> drawPlans,
      java.util.List<ContrastTotals> totals, java.util.List<Map<String, double[]>> wholeMaps,
      Map<String, Object> wholeMapFacts) {
    Map<String, double[]> maps = new LinkedHashMap<>();
    Map<String, Map<String, Object>> plans = new LinkedHashMap<>();
    Map<String, Integer> undefined = new LinkedHashMap<>();
    Map<GlmContrast, double[]> zObserved = new LinkedHashMap<>();
    double[] zMax = null;
    boolean enumerated = false;
    for (int ci = 0; ci < model.contrasts().size(); ci++) {
      GlmContrast c = model.contrasts().get(ci);
      GlmDraws draws = drawPlans.get(ci);
      ContrastTotals t = totals.get(ci);
      Tail tail = tailOf(c, o.tTail());
      long replicates = draws.replicates();
      double[] stat = t.statistic();
      int voxels = stat.length;
      double[] observedKeys = new double[voxels];
      for (int v = 0; v < voxels; v++) {
        observedKeys[v] = tail.key(stat[v]);
      }
      String name = c.outputName();
      maps.put(name, t.written());
      maps.put("p_" + name, PValues.fromCounts(t.counts(), replicates, observedKeys,
          draws.enumerated()));
      if (o.fwer()) {
        double[] maxima = t.maxima();
        maps.put("p_fwer_" + name, PValues.fwer(maxima, observedKeys, draws.enumerated()));
        maps.put("null_max_" + name, maxima);
        if (o.fwerAcrossContrasts()) {
          // z is increasing in the key, so the z of each replicate's maximum key is the maximum
          // z: per-contrast maxima are all the tiles need to send.
          double[] z = new double[voxels];
          for (int v = 0; v < voxels; v++) {
            z[v] = zOfKey(c, model, observedKeys[v]);
          }
          zObserved.put(c, z);
          if (zMax == null) {
            zMax = new double[maxima.length];
            java.util.Arrays.fill(zMax, Double.NEGATIVE_INFINITY);
          }
          for (int r = 0; r < maxima.length; r++) {
            zMax[r] = Math.max(zMax[r], zOfKey(c, model, maxima[r]));
          }
          enumerated = draws.enumerated();
        }
      }
      if (wholeMaps != null) {
        maps.putAll(wholeMaps.get(ci));
      }
      Map<String, Object> plan = draws.toMap();
      plan.put("tail", tail.cliName());
      plan.put("contrast", c.name());
      plan.put("rank", c.rank());
      plans.put(name, plan);
      undefined.put(name, t.undefinedVoxels());
    }
    for (Map.Entry<GlmContrast, double[]> e : zObserved.entrySet()) {
      maps.put("p_cfwer_" + e.getKey().outputName(),
          PValues.fwer(zMax, e.getValue(), enumerated));
    }
    return new GlmResult(maps, plans, undefined, wholeMapFacts);
  }
}
