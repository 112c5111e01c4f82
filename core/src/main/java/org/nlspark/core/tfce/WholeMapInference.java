package org.nlspark.core.tfce;

import java.io.Serializable;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.accumulate.ExceedanceCounter;
import org.nlspark.core.accumulate.NullMaxAccumulator;
import org.nlspark.core.job.Tail;
import org.nlspark.core.stats.ZScores;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileShape;

/**
 * Whole-map inference of DESIGN §9 — TFCE ({@code --tfce}), cluster extent ({@code
 * --cluster-threshold}) and cluster mass ({@code --cluster-mass}) — as every command that offers
 * it runs it: the settings and their checks,
 * the tile plan (whole maps per run of replicate windows), and the executor-side fold of one
 * statistic's replicate maps into a {@link WholeMapPartial}. The permutation tests ({@link
 * TfceAnalysis}) fold one statistic per tile, {@code glm} one per contrast; both merge with {@link
 * WholeMapMerge}.
 *
 * <p>On a surface mesh ({@link Adjacency#onSurface()}) TFCE and clusters follow PALM: they run on
 * the statistic converted to z through its t distribution ({@link #onZ}), TFCE multiplies its sum
 * by dh, and extents are areas. The voxelwise maps and p-values stay on the statistic itself.
 *
 * <p>Serializable: it travels with the tile runners (the mask's neighbour lists included).
 */
public final class WholeMapInference implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Bytes per voxel a tile holds besides its maps: observed maps and keys, counters, TFCE work. */
  public static final long BYTES_PER_VOXEL = 200;

  private final Adjacency mask;
  /** The mask with TFCE's neighbours (the same object when they are the mask's). */
  private final Adjacency tfceGrid;
  /** The mask with the clusters' neighbours (26 unless --connectivity says otherwise). */
  private final Adjacency clusterGrid;
  private final WholeMapSettings settings;
  private final boolean tfce;
  private final Double clusterThreshold;
  /** Degrees of freedom of the t statistic that TFCE and clusters see as z; NaN: the statistic. */
  private final double zDegrees;
  /** Whether the statistic is a correlation r, taken to t = r √(df / (1 − r²)) before z. */
  private final boolean zOfR;
  /** An F statistic's numerator degrees of freedom (its z is of F with these and zDegrees). */
  private final double zRank;

  private WholeMapInference(Adjacency mask, WholeMapSettings settings) {
    this(mask, !settings.tfce() ? mask : joined(mask, settings.tfceConnectivity()),
        settings.clusterThreshold() == null && settings.clusterMass() == null
            ? mask : joined(mask, settings.clusterConnectivity()),
        settings, Double.NaN, false, Double.NaN);
  }

  /** The same grids (joined once, on the driver: executors derive from them) on other z. */
  private WholeMapInference(WholeMapInference base, double zDegrees, boolean zOfR,
      double zRank) {
    this(base.mask, base.tfceGrid, base.clusterGrid, base.settings, zDegrees, zOfR, zRank);
  }

  private WholeMapInference(Adjacency mask, Adjacency tfceGrid, Adjacency clusterGrid,
      WholeMapSettings settings, double zDegrees, boolean zOfR, double zRank) {
    this.zOfR = zOfR;
    this.zRank = zRank;
    this.mask = mask;
    this.tfceGrid = tfceGrid;
    this.clusterGrid = clusterGrid;
    this.settings = settings;
    this.tfce = settings.tfce();
    this.clusterThreshold = settings.clusterThreshold();
    this.zDegrees = zDegrees;
  }

  /**
   * A grid with {@code connectivity} neighbours; a mesh joins through its triangles' edges, and
   * a CIFTI study's voxels among its vertices through {@code connectivity} grid neighbours.
   */
  private static Adjacency joined(Adjacency mask, int connectivity) {
    return mask instanceof MaskGrid grid ? grid.withConnectivity(connectivity)
        : mask instanceof MeshAdjacency mesh ? mesh.withConnectivity(connectivity) : mask;
  }

  /**
   * The same inference with TFCE and clusters on z of a t statistic with {@code degrees}
   * degrees of freedom, as PALM computes them ({@link ZScores#ofT}).
   */
  public WholeMapInference onZ(double degrees) {
    if (!(degrees > 0)) {
      throw new IllegalArgumentException("[BUG] z of t with " + degrees + " degrees of freedom");
    }
    return new WholeMapInference(this, degrees, false, Double.NaN);
  }

  /**
   * The same inference of an F statistic with ({@code rank}, the degrees of {@link #onZ})
   * degrees of freedom, on z of F ({@link ZScores#ofF}) as PALM's TFCE of F: a glm F contrast
   * on a surface. Only on an inference already {@link #onZ}.
   */
  public WholeMapInference onZOfF(double rank) {
    if (Double.isNaN(zDegrees) || zOfR || !(rank >= 1)) {
      throw new IllegalArgumentException("[BUG] z of F of rank " + rank + " on " + describe());
    }
    return new WholeMapInference(this, zDegrees, false, rank);
  }

  /** Whether TFCE and clusters see z of the statistic ({@link #onZ}), as on a surface. */
  public boolean onZ() {
    return !Double.isNaN(zDegrees);
  }

  /**
   * The same for a correlation r of n samples: r is taken to its t with n − 2 degrees of freedom
   * ({@code degrees}), t = r √(df / (1 − r²)), the t of the slope of a simple regression, then to z.
   */
  public WholeMapInference onZOfCorrelation(double degrees) {
    onZ(degrees);
    return new WholeMapInference(this, degrees, true, Double.NaN);
  }

  /**
   * Checks the settings against an input of {@code voxels} columns.
   *
   * @param mask the grid of the input's voxels; null (an .npy input) is refused (exit 2)
   */
  public static WholeMapInference of(Adjacency mask, boolean tfce, Double clusterThreshold,
      int voxels) {
    return of(mask, WholeMapSettings.of(tfce, clusterThreshold), voxels);
  }

  /**
   * Checks the settings against an input of {@code voxels} columns.
   *
   * @param mask the grid of the input's voxels; null (an .npy input) is refused (exit 2)
   */
  public static WholeMapInference of(Adjacency mask, WholeMapSettings settings, int voxels) {
    if (!settings.any()) {
      throw new IllegalArgumentException("[BUG] whole-map inference without --tfce,"
          + " --cluster-threshold or --cluster-mass");
    }
    return ofMaps(mask, settings, voxels);
  }

  /**
   * As {@link #of(Adjacency, WholeMapSettings, int)}, also for settings that enhance nothing: for
   * maps that are transformed as a whole before the voxelwise p-values (variance smoothing,
   * {@link VarianceSmoothing}), which need whole maps even without TFCE or clusters.
   */
  public static WholeMapInference ofMaps(Adjacency mask, WholeMapSettings settings, int voxels) {
    requireGrid(mask != null, settings);
    VarianceSmoothing.requireGrid(mask != null);
    if (settings.tfce() && mask instanceof MeshAdjacency mesh && mesh.voxelCount() > 0
        && !mesh.voxelsOnly() && settings.tfceE() != WholeMapSettings.TWO_D_EXTENT_EXPONENT) {
      throw new InvalidInputException("Cannot run --tfce with --tfce-e " + settings.tfceE()
          + " on CIFTI data with " + mesh.voxelCount() + " subcortical voxels: E is "
          + WholeMapSettings.TWO_D_EXTENT_EXPONENT + " on the cortex and "
          + Tfce.DEFAULT_EXTENT_EXPONENT + " on the voxels (PALM's -tfce2D and -T), and one"
          + " --tfce-e would be read two ways; drop it, or leave the voxels out with --mask");
    }
    if (settings.tfce() && mask instanceof MeshAdjacency mesh && mesh.voxelCount() > 0
        && !mesh.voxelsOnly()
        && settings.tfceConnectivity() != WholeMapSettings.DEFAULT_TFCE_CONNECTIVITY) {
      // On a mesh only --tfce-2d sets it (--tfce-connectivity is refused there).
      throw new InvalidInputException("Cannot run --tfce-2d on CIFTI data with "
          + mesh.voxelCount() + " subcortical voxels: the cortex has its E = 1 already, and"
          + " the voxels take the volume's TFCE (E = 0.5, face neighbours); drop it");
    }
    if (mask.voxels() != voxels) {
      throw new InvalidInputException("Cannot run " + settings.flags() + ": the mask"
          + " has " + mask.voxels() + " voxels, but the input has " + voxels
          + " voxels; the input must be masked by the same mask");
    }
    return new WholeMapInference(mask, settings);
  }

  /**
   * The one refusal of an input without a grid (exit 2), for commands that can tell before
   * reading their data.
   */
  public static void requireGrid(boolean hasGrid, boolean tfce, Double clusterThreshold) {
    if (!hasGrid && (tfce || clusterThreshold != null)) {
      throw noGrid(flags(tfce, clusterThreshold));
    }
  }

  /** {@link #requireGrid(boolean, boolean, Double)} for every whole-map setting. */
  public static void requireGrid(boolean hasGrid, WholeMapSettings settings) {
    if (!hasGrid && settings.any()) {
      throw noGrid(settings.flags());
    }
  }

  /** The one refusal of whole-map inference on an input without a grid, naming its flags. */
  private static InvalidInputException noGrid(String flags) {
    return new InvalidInputException(flags + " needs a mask image: it joins voxels into clusters"
        + " by their neighbours on the image grid, but this input has no grid (an .npy matrix);"
        + " give NIfTI inputs (with --mask) instead");
  }

  /** The flags in use, for messages: "--tfce", "--cluster-threshold" or both. */
  public static String flags(boolean tfce, Double clusterThreshold) {
    return tfce && clusterThreshold != null ? "--tfce and --cluster-threshold"
        : tfce ? "--tfce" : "--cluster-threshold";
  }

  public String flags() {
    return settings.flags();
  }

  public Adjacency mask() {
    return mask;
  }

  public boolean tfce() {
    return tfce;
  }

  public WholeMapSettings settings() {
    return settings;
  }

  /** Null without --cluster-threshold. */
  public Double clusterThreshold() {
    return clusterThreshold;
  }

  /**
   * Bytes the tile's grids hold once their neighbour lists are built (TFCE's, and the clusters'
   * when their connectivity differs; {@link MaskGrid#neighbourBytes}).
   */
  public long gridBytes() {
    if (!(mask instanceof MaskGrid grid)) {
      // A mesh's lists are built once, shared by TFCE and clusters, unless a CIFTI study's
      // voxels join by other neighbours for each.
      long bytes = mask.heldBytes();
      bytes += tfceGrid != mask ? tfceGrid.heldBytes() : 0;
      bytes += clusterGrid != mask && clusterGrid != tfceGrid ? clusterGrid.heldBytes() : 0;
      return bytes;
    }
    return gridBytes(grid, (MaskGrid) tfceGrid, (MaskGrid) clusterGrid);
  }

  private long gridBytes(MaskGrid mask, MaskGrid tfceGrid, MaskGrid clusterGrid) {
    long cells = (long) mask.ni() * mask.nj() * mask.nk();
    long bytes = 0;
    if (tfce) {
      bytes += MaskGrid.neighbourBytes(mask.voxels(), cells, tfceGrid.connectivity());
    }
    if ((clusterThreshold != null || settings.clusterMass() != null)
        && (!tfce || clusterGrid != tfceGrid)) {
      bytes += MaskGrid.neighbourBytes(mask.voxels(), cells, clusterGrid.connectivity());
    }
    return bytes;
  }

  /** The settings for summary.json ({@code whole_map}). */
  public Map<String, Object> describe() {
    Map<String, Object> p = new LinkedHashMap<>();
    p.put("tfce", tfce);
    if (tfce) {
      p.put("tfce_extent_exponent", settings.tfceE());
      p.put("tfce_height_exponent", settings.tfceH());
      p.put("tfce_steps", Tfce.DEFAULT_STEPS);
      if (!mask.onSurface()) {
        p.put("tfce_connectivity", settings.tfceConnectivity());
      } else {
        p.put("tfce_times_dh", true);
      }
    }
    if (!Double.isNaN(zRank)) {
      p.put("on_z_of_f_with_df", List.of(zRank, zDegrees));
    } else if (!Double.isNaN(zDegrees)) {
      p.put("on_z_of_t_with_df", zDegrees);
      if (zOfR) {
        p.put("t_of_r", "r * sqrt(df / (1 - r^2))");
      }
    }
    p.put("cluster_threshold", clusterThreshold);
    if (settings.clusterMass() != null) {
      p.put("cluster_mass_threshold", settings.clusterMass());
    }
    boolean clusters = clusterThreshold != null || settings.clusterMass() != null;
    if (clusters) {
      p.put("cluster_rule", settings.clusterRule().name().toLowerCase(java.util.Locale.ROOT));
    }
    if (mask.onSurface()) {
      int voxels = mask instanceof MeshAdjacency mesh ? mesh.voxelCount() : 0;
      boolean voxelsOnly = mask instanceof MeshAdjacency mesh && mesh.voxelsOnly();
      p.put("connectivity", voxelsOnly ? "voxels: grid neighbours" : voxels > 0
          ? "triangle edges; voxels: grid neighbours" : "triangle edges");
      if (clusters) {
        p.put("cluster_extent_unit", voxelsOnly ? "voxels" : voxels > 0
            ? "mm2 on the cortex, voxels on the subcortical grid" : "mm2");
      }
      if (voxels > 0) {
        if (tfce) {
          p.put("voxel_tfce_extent_exponent", voxelExtentExponent());
          p.put("voxel_tfce_connectivity", settings.tfceConnectivity());
        }
        if (clusters) {
          p.put("voxel_cluster_connectivity", settings.clusterConnectivity());
        }
      }
    } else {
      // The clusters' neighbours (extent and mass); TFCE's are tfce_connectivity.
      p.put("connectivity", clusters ? settings.clusterConnectivity()
          : settings.tfceConnectivity());
    }
    p.putAll(mask.describe());
    return p;
  }

  /**
   * The replicates a tile of {@code windows} windows holds at most: the first tile's, the only
   * one of a short run (fewer replicates than one window) — what its maps are allocated for.
   */
  public static long rowsOf(int windows, int window, long replicates) {
    return Math.min(replicates, (long) windows * window);
  }

  /** Most (replicate x voxel) values of one tile's maps: one Java array holds them. */
  public static final long MAX_MAP_VALUES = Integer.MAX_VALUE - 8;

  /**
   * One tile per run of replicate windows, all voxels: the shape the one planner sizes
   * ({@link TilePlanner}), which halves the windows per tile until a tile fits the budget and its
   * maps fit one array. Only how many windows a tile holds depends on the budget; no output bit
   * does.
   *
   * @param kernelGrid the fixed grid the statistic maps are computed on, cell by cell
   */
  public TileShape shape(Grid kernelGrid, long replicates) {
    int voxels = mask.voxels();
    return TileShape.windows(new Grid(Math.max(1, voxels), kernelGrid.window()), voxels,
        replicates, 0).withMaxCellsPerTile(MAX_MAP_VALUES);
  }

  /**
   * What summary.json says of a whole-map plan ({@code plan}).
   *
   * @param statisticMaps how the maps are computed
   */
  public Map<String, Object> layout(Grid kernelGrid, TilePlan plan, String statisticMaps) {
    int voxels = mask.voxels();
    int window = kernelGrid.window();
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("layout", "whole_maps_per_replicate_window");
    long rows = Math.min(plan.replicates(), (long) plan.windowsPerTile() * window);
    m.put("reason", String.format(Locale.ROOT, "TFCE needs each replicate's whole map, so each"
        + " tile holds all %d voxels of its replicates (%d of them in %d windows of %d, %.3g GB"
        + " of maps and work space); %d tile%s at once within the %.3g GB budget", voxels, rows,
        plan.windowsPerTile(), window, plan.bytesPerTile() / 1e9, plan.concurrentTiles(),
        plan.concurrentTiles() == 1 ? "" : "s", plan.budgetGb()));
    m.put("kernel_grid", kernelGrid.toMap());
    m.put("replicates_per_tile", rows);
    m.put("bytes_per_tile", plan.bytesPerTile());
    m.put("statistic_maps", statisticMaps);
    m.put("tfce_device", "executor cpu");
    return m;
  }

  /**
   * A tile's working set: the whole maps of its {@code rows} replicates (one statistic at a
   * time), the per-voxel state of {@link #BYTES_PER_VOXEL}, the per-replicate maxima, and {@code
   * kernelBytes} for the kernel and whatever else the command holds.
   */
  public static long tileBytes(long rows, int voxels, long kernelBytes) {
    return rows * voxels * 8 + voxels * BYTES_PER_VOXEL + kernelBytes + 3 * rows * 9;
  }

  /**
   * The working set of a whole-map tile on voxel blocks (DESIGN §8, {@link MapSlice}): the task
   * that assembles a tile holds {@code statistics} statistics' whole maps of its {@code rows}
   * replicates at once (and their observed maps), the per-voxel state of {@link
   * #BYTES_PER_VOXEL} and the per-replicate maxima; {@code kernelBytes} covers one block's kernel
   * and slice where the blocks are held, and whatever else the command holds.
   */
  public static long slicedTileBytes(long rows, int statistics, int voxels, long kernelBytes) {
    long maps = (long) statistics * (rows + 1) * voxels * 8;
    return maps + voxels * BYTES_PER_VOXEL + kernelBytes + 3 * rows * 9 * statistics;
  }

  /**
   * The extent exponent of a CIFTI study's subcortical voxels: beside a cortex the volume's E
   * (FSL's -T, PALM's default), without one the settings' (a volume's, --tfce-e applies).
   */
  private double voxelExtentExponent() {
    return mask instanceof MeshAdjacency mesh && mesh.voxelsOnly() ? settings.tfceE()
        : Tfce.DEFAULT_EXTENT_EXPONENT;
  }

  /**
   * Folds one statistic's maps of a tile: the observed map and {@code rows} replicate maps
   * (row-major from 0, one mask's voxels a row) of replicates {@code first ..}. Counts per voxel
   * the replicates whose key reaches the observed key, keeps each replicate's largest key, and
   * with TFCE (cluster extent) does the same for the enhanced maps (each map's largest cluster).
   * Every tile enhances the observed map itself, so the counts need nothing from the driver.
   * On z ({@link #onZ}) the replicate maps are overwritten by their z: read them before.
   *
   * @param sendObserved whether this tile sends the observed maps (the tile of window 0)
   * @param undefinedVoxels voxels without a statistic, sent with the observed maps
   */
  public WholeMapPartial fold(Tail tail, double[] observed, double[] maps, int rows, long first,
      boolean sendObserved, int undefinedVoxels) {
    int voxels = mask.voxels();
    if (observed.length != voxels || maps.length < (long) rows * voxels) {
      throw new IllegalArgumentException("[BUG] " + rows + " maps in " + maps.length
          + " values and an observed map of " + observed.length + " for a mask of " + voxels
          + " voxels");
    }
    double[] observedKeys = TfceNullFolder.keys(observed, tail);
    ExceedanceCounter counts = new ExceedanceCounter(voxels);
    NullMaxAccumulator nullMax = new NullMaxAccumulator(first, rows);
    double[] keys = new double[voxels];
    for (int r = 0; r < rows; r++) {
      int base = r * voxels;
      for (int v = 0; v < voxels; v++) {
        keys[v] = tail.key(maps[base + v]);
      }
      counts.update(keys, 0, 1, voxels, observedKeys, 0);
      nullMax.update(keys, 0, 1, voxels, first + r);
    }

    long tfceStart = System.nanoTime();
    long tfceCpuStart = threadCpuNanos();
    // On a surface TFCE and clusters see z (PALM); the voxelwise counts above saw the statistic.
    double[] observedRaw = observed;
    Tfce enhancer = !tfce ? null : new Tfce(tfceGrid, settings.tfceE(), settings.tfceH(),
        Tfce.DEFAULT_STEPS, mask.onSurface(), voxelExtentExponent());
    if (!Double.isNaN(zDegrees)) {
      ZMaps z = new ZMaps(zDegrees, zOfR, zRank, tail, enhancer, clusterHeights());
      observed = observed.clone();
      z.convertAll(observed, 0, voxels);
      for (int r = 0; r < rows; r++) { // in place: the maps are not read after the fold
        z.convert(maps, r * voxels, voxels);
      }
    }
    double[] observedTfce = null;
    ExceedanceCounter tfceCounts = null;
    NullMaxAccumulator tfceNullMax = null;
    if (tfce) {
      observedTfce = enhancer.enhance(observed, tail);
      TfceNullFolder folder = new TfceNullFolder(enhancer, tail, observedTfce);
      tfceCounts = new ExceedanceCounter(voxels);
      tfceNullMax = new NullMaxAccumulator(first, rows);
      folder.fold(maps, 0, rows, first, tfceNullMax, tfceCounts);
    }
    long tfceNanos = System.nanoTime() - tfceStart;
    long tfceCpuNanos = threadCpuNanos() - tfceCpuStart;
    double[] observedClusters = null;
    NullMaxAccumulator clusterNullMax = null;
    if (clusterThreshold != null) {
      ClusterExtent clusters = new ClusterExtent(clusterGrid, clusterThreshold, tail,
          settings.clusterRule());
      if (sendObserved) {
        observedClusters = clusters.extents(observed);
      }
      double[] largest = new double[rows];
      clusters.largestPerRow(maps, 0, rows, largest);
      clusterNullMax = new NullMaxAccumulator(first, rows);
      clusterNullMax.updateRowMaxima(largest, rows, first);
    }
    double[] observedMass = null;
    NullMaxAccumulator massNullMax = null;
    if (settings.clusterMass() != null) {
      ClusterExtent mass = new ClusterExtent(clusterGrid, settings.clusterMass(), tail,
          settings.clusterRule());
      if (sendObserved) {
        observedMass = mass.masses(observed);
      }
      double[] largest = new double[rows];
      mass.largestMassPerRow(maps, 0, rows, largest);
      massNullMax = new NullMaxAccumulator(first, rows);
      massNullMax.updateRowMaxima(largest, rows, first);
    }
    return new WholeMapPartial(sendObserved ? observedRaw : null,
        sendObserved ? observedTfce : null, observedClusters, counts, nullMax, tfceCounts,
        tfceNullMax, clusterNullMax, tfceNanos, tfceCpuNanos, tfce ? rows + 1L : 0,
        sendObserved ? undefinedVoxels : 0, observedMass, massNullMax);
  }

  /** The z heights of the clusters (extent, mass): their members need their exact z. */
  private double[] clusterHeights() {
    java.util.List<Double> heights = new java.util.ArrayList<>();
    if (clusterThreshold != null) {
      heights.add(clusterThreshold);
    }
    if (settings.clusterMass() != null) {
      heights.add(settings.clusterMass());
    }
    return heights.stream().mapToDouble(Double::doubleValue).toArray();
  }

  /** CPU time of this thread (ns), or 0 where the JVM does not measure it. */
  static long threadCpuNanos() {
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    return threads.isCurrentThreadCpuTimeSupported() ? threads.getCurrentThreadCpuTime() : 0;
  }
}
