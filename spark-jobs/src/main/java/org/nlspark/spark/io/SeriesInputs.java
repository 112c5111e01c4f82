package org.nlspark.spark.io;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.SeriesImages;
import org.nlspark.core.io.nifti.ImageInputs;
import org.nlspark.core.io.nifti.NiftiMask;

/**
 * The time-series input of {@code isc} and {@code timeseries-correlation} resolved (DESIGN §8:
 * "ISC and time series take one 4-D NIfTI per subject (time on the 4th axis) the same ways"):
 * an {@code .npy} array, read as before by the caller; or one 4-D NIfTI per subject named by a
 * list file (one path per line, in subject order, relative to the list file), a directory or a
 * glob (sorted by the bytes of the name) — {@link HadoopNiftiFiles#resolveInputs}, the rules
 * every other command uses — with {@code --mask} or the default mask (finite in every volume
 * of every subject, non-zero in at least one); or one surface file per subject (GIFTI, MGH,
 * CIFTI, a row per time point) on a mesh, resolved as every command's surface data
 * ({@link StudyInputs}: the mesh, the vertex mask).
 *
 * <p>Resolving reads listings, the mask and every subject's header (grid and time length are
 * checked here, exit 2 naming the file), never a value. Executors then read the series into
 * voxel blocks (DESIGN §8, {@code org.nlspark.spark.data.Sources#series}); or, for series small
 * enough to broadcast, {@link #read} reads them on this JVM (the driver), one volume at a time,
 * into the one array these analyses hold, refusing with exit 3 an array beyond one Java array
 * or the free heap before allocating it.
 */
public final class SeriesInputs {
  private final String flag;
  private final String uri;
  private final String maskUri;
  private final NiftiMask givenMask;
  private final SeriesImages images; // null for .npy and surface data
  /** Surface data (GIFTI, MGH, CIFTI: one file per subject, a row per time point), or null. */
  private final StudyInputs surface;

  private SeriesInputs(String flag, String uri, String maskUri, NiftiMask givenMask,
      SeriesImages images, StudyInputs surface) {
    this.flag = flag;
    this.uri = uri;
    this.maskUri = maskUri;
    this.givenMask = givenMask;
    this.images = images;
    this.surface = surface;
  }

  /** The series read: (subjects, timepoints, voxels) in C order, and the grid's mask. */
  public record Series(double[] values, int subjects, int timepoints, int voxels,
      NiftiMask mask) {}

  /**
   * Resolves {@code uri} (named by {@code flag}, e.g. "--input").
   *
   * @param maskUri {@code --mask}, or null for the default mask
   * @throws InvalidInputException for a missing input or mask, {@code --mask} with an .npy,
   *     or a subject off the grid or of another length
   */
  public static SeriesInputs resolve(Configuration conf, String uri, String flag,
      String maskUri) {
    return resolve(conf, uri, flag, maskUri, null);
  }

  /**
   * As {@link #resolve(Configuration, String, String, String)}, also for surface data (DESIGN
   * §8): one GIFTI, MGH or CIFTI file per subject, each row a time point, on the mesh of {@code
   * meshFiles} with its vertex mask ({@code --mask}, or every vertex or grayordinate) as every
   * command takes surface data ({@link StudyInputs}).
   */
  public static SeriesInputs resolve(Configuration conf, String uri, String flag,
      String maskUri, StudyInputs.MeshFiles meshFiles) {
    if (uri == null || uri.isEmpty()) {
      throw new InvalidInputException("Cannot run: " + flag + " is required");
    }
    boolean npy = uri.toLowerCase(Locale.ROOT).endsWith(".npy");
    if (npy && meshFiles == null) {
      StudyInputs.checkOptions(uri, maskUri, null, null); // --mask: an .npy has no grid
      return new SeriesInputs(flag, uri, null, null, null, null);
    }
    List<String> files = npy ? List.of(uri) : HadoopNiftiFiles.resolveInputs(conf, uri, flag);
    if (meshFiles != null && meshFiles.vertexArea() != null) {
      throw new InvalidInputException("Cannot use --vertex-area " + meshFiles.vertexArea()
          + " with " + flag + " " + uri + ": vertex areas weigh TFCE and cluster extents, which"
          + " series correlations do not have; drop it");
    }
    if (meshFiles != null || files.stream().anyMatch(f -> ImageInputs.isSurfaceDataName(
        new org.apache.hadoop.fs.Path(f).getName()))) {
      // (an .npy with a mesh is refused there, as for every command)
      return new SeriesInputs(flag, uri, maskUri, null, null,
          StudyInputs.resolve(conf, uri, null, maskUri, null, null, meshFiles));
    }
    NiftiMask mask = maskUri == null ? null : HadoopNiftiFiles.readMask(conf, maskUri, "--mask");
    SeriesImages images = SeriesImages.describe(flag + " " + uri, files,
        new HadoopOpener(conf), mask);
    return new SeriesInputs(flag, uri, maskUri, mask, images, null);
  }

  /** Whether the input is NIfTI images (a grid, so maps are written). */
  public boolean hasGrid() {
    return images != null;
  }

  /**
   * The surface data's study (its files in subject order, the mesh and vertex mask), or null:
   * maps are then written on the mesh in the input's format.
   */
  public StudyInputs surface() {
    return surface;
  }

  /** The subjects' files: images or surface data (one per subject); empty for an .npy. */
  public List<String> files() {
    return images != null ? images.files() : surface != null ? surface.x().files : List.of();
  }

  /** The path as given. */
  public String uri() {
    return uri;
  }

  /** The images, or null for an .npy. */
  public SeriesImages images() {
    return images;
  }

  /** The flag that named the input ("--input"). */
  public String flag() {
    return flag;
  }

  /** The {@code --mask} read, or null (the default mask, or an .npy). */
  public NiftiMask givenMask() {
    return givenMask;
  }

  /** Where the mask comes from: the {@code --mask} URI, "computed", or null for an .npy. */
  public String maskSource() {
    return !hasGrid() ? null : maskUri != null ? maskUri : StudyInputs.MASK_COMPUTED;
  }

  /**
   * Refuses images of more than one subject: {@code command} analyses one series (one
   * subject's run), so a list, directory or glob must name exactly one image.
   */
  public SeriesInputs requireOneSubject(String command) {
    if (files().size() > 1) {
      List<String> files = files();
      throw new InvalidInputException("Cannot run " + command + ": " + flag + " " + uri
          + " names " + files.size() + (surface != null ? " files (" : " images (")
          + files.get(0) + ", " + files.get(1) + (files.size() > 2 ? ", ..." : "") + "), but "
          + command + " correlates one subject's series with the target; give "
          + (surface != null ? "one subject's surface series" : "one 4-D image")
          + ", and run once per subject");
    }
    return this;
  }

  /**
   * Reads the images' series on this JVM (the default mask first when none was given).
   *
   * @throws ResourceRefusedException (exit 3) when the array exceeds one Java array or the
   *     free heap
   * @throws IllegalStateException for an .npy input, which the caller reads as before
   */
  public Series read(Configuration conf) {
    if (images == null) {
      throw new IllegalStateException("[BUG] an .npy series is read by NpyInputs.readNpy");
    }
    return read(conf, givenMask != null ? givenMask
        : images.defaultMask(new HadoopOpener(conf)));
  }

  /**
   * As {@link #read(Configuration)} with the mask already known (given, or the default mask
   * that executors computed).
   */
  public Series read(Configuration conf, NiftiMask mask) {
    if (images == null) {
      throw new IllegalStateException("[BUG] an .npy series is read by NpyInputs.readNpy");
    }
    HadoopOpener opener = new HadoopOpener(conf);
    long values = images.values(mask);
    requireHeap(values * Double.BYTES, mask);
    return new Series(images.read(opener, mask), images.subjects(), images.timepoints(),
        mask.count(), mask);
  }

  private void requireHeap(long bytes, NiftiMask mask) {
    if (HeapCheck.fits(bytes)) {
      return;
    }
    long free = HeapCheck.free();
    throw new ResourceRefusedException(String.format(Locale.ROOT, "Cannot read %s %s: %d"
        + " subjects x %d time points x %d mask voxels need %s as float64 values, but only %s"
        + " of the %s Java heap is free; give nlspark more memory (NLSPARK_JAVA_OPTS=-Xmx<size>"
        + " for bin/nlspark, --driver-memory under spark-submit) or a smaller --mask", flag,
        uri, images.subjects(), images.timepoints(), mask.count(), HeapCheck.format(bytes),
        HeapCheck.format(free), HeapCheck.format(Runtime.getRuntime().maxMemory())));
  }

  /** The URIs the user named, for the rule that --overwrite never replaces an input. */
  public List<String> uris() {
    if (surface != null) {
      return surface.uris();
    }
    List<String> u = new ArrayList<>(List.of(uri));
    if (maskUri != null) {
      u.add(maskUri);
    }
    return u;
  }

  /** The input as summary.json records it. */
  public Map<String, Object> describe() {
    if (surface != null) {
      return surface.describe();
    }
    Map<String, Object> input = new LinkedHashMap<>();
    input.put("path", uri);
    input.put("format", hasGrid() ? StudyInputs.Format.NIFTI.label()
        : StudyInputs.Format.NPY.label());
    input.put("files", hasGrid() ? images.subjects() : 1);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put(flag.replaceFirst("^--", ""), input);
    if (hasGrid()) {
      m.put("mask", maskSource());
    }
    return m;
  }
}
