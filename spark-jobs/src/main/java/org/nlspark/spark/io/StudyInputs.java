package org.nlspark.spark.io;

import java.io.IOException;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.stream.IntStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.ResourceRefusedException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.nifti.DefaultMaskBuilder;
import org.nlspark.core.io.nifti.ImageInputs;
import org.nlspark.core.io.nifti.NiftiGrid;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;

/**
 * The inputs of a study (DESIGN §8), in two steps kept apart on purpose:
 *
 * <ol>
 *   <li>{@link #resolve}: which files, in which sample order, in which format, and which mask
 *       (read now when {@code --mask} is given; otherwise the default mask is computed while
 *       loading). It reads directory listings, list files, the first image header and the
 *       mask, never sample values, and the result is serializable, so an executor-side ingest
 *       can start from it.
 *   <li>{@link #load}: reads the values on this JVM into {@link DataMatrix} (the in-memory
 *       path), masked in nilearn's voxel order.
 * </ol>
 *
 * <p>Formats: {@code .npy} (samples × voxels); NIfTI, one volume per sample: a 4-D file, a list
 * file of 3-D files, a directory or a glob ({@link HadoopNiftiFiles#resolveInputs}); Parquet
 * (a {@code .parquet} file or a directory of them, one row per sample, an array column).
 */
public final class StudyInputs implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The column a Parquet input's voxel values are read from when {@code --column} is absent. */
  public static final String DEFAULT_COLUMN = "voxels";

  /** What one input holds. */
  public enum Format {
    NPY, NIFTI, PARQUET;

    public String label() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** One input ({@code --input} or {@code --input2}): its format and files in sample order. */
  public static final class Source implements Serializable {
    private static final long serialVersionUID = 1L;

    public final String flag;
    public final String uri;
    public final Format format;
    /** Files in sample order (NIfTI: each contributes its volumes; Parquet: its rows). */
    public final List<String> files;

    Source(String flag, String uri, Format format, List<String> files) {
      this.flag = flag;
      this.uri = uri;
      this.format = format;
      this.files = List.copyOf(files);
    }
  }

  private final Source x;
  private final Source y;
  private final String maskUri;
  private final NiftiMask mask;
  private final NiftiHeader reference;
  private final String column;
  private final String orderBy;

  private StudyInputs(Source x, Source y, String maskUri, NiftiMask mask, NiftiHeader reference,
      String column, String orderBy) {
    this.x = x;
    this.y = y;
    this.maskUri = maskUri;
    this.mask = mask;
    this.reference = reference;
    this.column = column;
    this.orderBy = orderBy;
  }

  /**
   * Resolves the inputs named on the command line or through the API.
   *
   * @param input {@code --input} (required)
   * @param input2 {@code --input2}, or null
   * @param maskUri {@code --mask}, or null for the default mask (NIfTI) or none (npy, Parquet)
   * @param column {@code --column} (Parquet only), or null for {@value #DEFAULT_COLUMN}
   * @param orderBy {@code --order-by} (Parquet only), or null for file name then row order
   * @throws InvalidInputException for a missing input, a mask with an input without a grid,
   *     formats that do not go together, or an image off the mask's grid
   */
  public static StudyInputs resolve(Configuration conf, String input, String input2,
      String maskUri, String column, String orderBy) {
    Source x = source(conf, input, "--input");
    Source y = input2 == null ? null : source(conf, input2, "--input2");
    if (y != null && (x.format == Format.NIFTI) != (y.format == Format.NIFTI)) {
      throw new InvalidInputException("Cannot compare --input " + input + " (" + x.format.label()
          + ") with --input2 " + input2 + " (" + y.format.label() + "): both groups must be"
          + " NIfTI images on one grid, or both matrices (.npy or Parquet)");
    }
    boolean parquet = x.format == Format.PARQUET || (y != null && y.format == Format.PARQUET);
    if (!parquet && (column != null || orderBy != null)) {
      throw parquetOnly(input, column);
    }
    if (x.format != Format.NIFTI) {
      if (maskUri != null) {
        throw maskWithoutGrid(input, maskUri, x.format);
      }
      return new StudyInputs(x, y, null, null, null,
          column == null ? DEFAULT_COLUMN : column, orderBy);
    }
    NiftiMask mask = maskUri == null ? null : HadoopNiftiFiles.readMask(conf, maskUri, "--mask");
    NiftiHeader first;
    try (NiftiReader r = HadoopNiftiFiles.open(conf, x.files.get(0), x.flag)) {
      first = r.header();
    }
    if (mask != null) {
      mask.grid().requireSame(first.grid(), x.files.get(0), "mask");
    }
    return new StudyInputs(x, y, maskUri, mask, first, null, null);
  }

  /**
   * The checks that need no file: {@code --mask}, {@code --column} or {@code --order-by} with an
   * input named {@code .npy}. Run before Spark starts; {@link #resolve} checks every case.
   */
  public static void checkOptions(String input, String maskUri, String column, String orderBy) {
    if (input == null || !input.toLowerCase(Locale.ROOT).endsWith(".npy")) {
      return;
    }
    if (maskUri != null) {
      throw maskWithoutGrid(input, maskUri, Format.NPY);
    }
    if (column != null || orderBy != null) {
      throw parquetOnly(input, column);
    }
  }

  private static InvalidInputException maskWithoutGrid(String input, String maskUri,
      Format format) {
    return new InvalidInputException("Cannot use --mask " + maskUri + " with --input " + input
        + ": a " + (format == Format.NPY ? ".npy matrix" : "Parquet table")
        + " has no grid; give NIfTI inputs, or mask the data before writing the matrix");
  }

  private static InvalidInputException parquetOnly(String input, String column) {
    return new InvalidInputException("Cannot use " + (column != null ? "--column" : "--order-by")
        + " with --input " + input + ": it applies to Parquet inputs only (a .parquet file"
        + " or a directory of them)");
  }

  /** The format and files of one input. */
  static Source source(Configuration conf, String uri, String flag) {
    if (uri == null || uri.isEmpty()) {
      throw new InvalidInputException("Cannot run: " + flag + " is required");
    }
    String lower = uri.toLowerCase(Locale.ROOT);
    if (lower.endsWith(".npy")) {
      return new Source(flag, uri, Format.NPY, List.of(uri));
    }
    if (!ImageInputs.isGlob(uri) && !ImageInputs.isNiftiName(uri)) {
      List<String> parquet = parquetFiles(conf, uri, flag);
      if (parquet != null) {
        return new Source(flag, uri, Format.PARQUET, parquet);
      }
    }
    return new Source(flag, uri, Format.NIFTI, HadoopNiftiFiles.resolveInputs(conf, uri, flag));
  }

  /**
   * A Parquet input's data files, sorted by the bytes of their path, or null when {@code uri}
   * is not Parquet: a {@code .parquet} file, or a directory holding {@code .parquet} files
   * (searched in sub-directories too, as Spark writes partitioned tables) and no NIfTI file.
   */
  static List<String> parquetFiles(Configuration conf, String uri, String flag) {
    Path path = new Path(uri);
    try {
      FileSystem fs = HadoopFiles.fileSystem(path, conf, flag, uri);
      if (!fs.exists(path)) {
        return null; // the NIfTI rules name what is missing
      }
      FileStatus status = fs.getFileStatus(path);
      if (status.isFile()) {
        return isParquetName(path.getName()) ? List.of(status.getPath().toString()) : null;
      }
      List<String> files = new ArrayList<>();
      boolean nifti = false;
      List<Path> pending = new ArrayList<>(List.of(path));
      while (!pending.isEmpty()) {
        for (FileStatus s : fs.listStatus(pending.remove(pending.size() - 1))) {
          String name = s.getPath().getName();
          if (name.startsWith(".") || name.startsWith("_")) {
            continue;
          }
          if (s.isDirectory()) {
            pending.add(s.getPath());
          } else if (isParquetName(name)) {
            files.add(s.getPath().toString());
          } else if (ImageInputs.isNiftiName(name)) {
            nifti = true;
          }
        }
      }
      if (files.isEmpty() || nifti) {
        return null;
      }
      files.sort(ImageInputs.BYTE_ORDER);
      return files;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot read " + flag + " " + uri + ": " + e.getMessage(), e);
    }
  }

  private static boolean isParquetName(String name) {
    return name.toLowerCase(Locale.ROOT).endsWith(".parquet");
  }

  public Source x() {
    return x;
  }

  /** The second group, or null. */
  public Source y() {
    return y;
  }

  /** Whether the inputs are images on a grid (NIfTI), so maps can be written. */
  public boolean hasGrid() {
    return x.format == Format.NIFTI;
  }

  /** The {@code --mask} read at resolve time, or null (computed while loading, or no grid). */
  public NiftiMask givenMask() {
    return mask;
  }

  /** Where the mask comes from: the {@code --mask} URI, "computed", or null without a grid. */
  public String maskSource() {
    return !hasGrid() ? null : maskUri != null ? maskUri : MASK_COMPUTED;
  }

  /** {@link #maskSource} of a default mask. */
  public static final String MASK_COMPUTED = "computed";

  /** The first image's header: the grid of every image, and of a computed mask. */
  public NiftiHeader referenceHeader() {
    return reference;
  }

  /** The Parquet column of the voxel values. */
  public String column() {
    return column;
  }

  /** The Parquet column giving the sample order, or null (file name, then row order). */
  public String orderBy() {
    return orderBy;
  }

  /** The URIs the user named, for the rule that --overwrite never replaces an input. */
  public List<String> uris() {
    List<String> u = new ArrayList<>();
    u.add(x.uri);
    if (y != null) {
      u.add(y.uri);
    }
    if (maskUri != null) {
      u.add(maskUri);
    }
    return u;
  }

  /** The inputs as summary.json records them. */
  public Map<String, Object> describe() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("input", describe(x));
    if (y != null) {
      m.put("input2", describe(y));
    }
    if (hasGrid()) {
      m.put("mask", maskSource());
    }
    if (x.format == Format.PARQUET) {
      m.put("column", column);
      m.put("order_by", orderBy == null ? "file name, then row" : orderBy);
    }
    return m;
  }

  private static Map<String, Object> describe(Source s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("path", s.uri);
    m.put("format", s.format.label());
    m.put("files", s.files.size());
    return m;
  }

  /** Values read on this JVM: the matrices, and the mask when the inputs have a grid. */
  public static final class Loaded {
    public final DataMatrix x;
    /** The second group, or null. */
    public final DataMatrix y;
    /** The run's grid and mask, or null for inputs without a grid. */
    public final NiftiMask mask;
    /** The {@code --mask} URI, "computed", or null. */
    public final String maskSource;

    Loaded(DataMatrix x, DataMatrix y, NiftiMask mask, String maskSource) {
      this.x = x;
      this.y = y;
      this.mask = mask;
      this.maskSource = maskSource;
    }

    /** The core inputs of {@code analysis} ({@code target} for correlation, else null). */
    public JobInputs jobInputs(Analysis analysis, double[] target) {
      switch (analysis) {
        case TWO_SAMPLE:
          return JobInputs.twoGroups(x, y);
        case CORRELATION:
          return JobInputs.withTarget(x, target);
        default:
          return JobInputs.of(x);
      }
    }
  }

  /**
   * Reads every sample on this JVM. NIfTI: without {@code --mask}, a first pass over the images
   * computes the default mask (DESIGN §8) over both groups, a second extracts the masked
   * vectors, so only one volume is held at a time besides the matrix.
   *
   * @throws InvalidInputException for a malformed image, an image off the grid, a NaN inside a
   *     given mask, ragged Parquet rows
   * @throws ResourceRefusedException when the matrix exceeds what one Java array holds
   */
  public Loaded load(Configuration conf) {
    switch (x.format) {
      case NPY:
        return new Loaded(HadoopFiles.readMatrix(conf, x.uri, x.flag),
            y == null ? null : readMatrix(conf, y), null, null);
      case PARQUET:
        return new Loaded(readMatrix(conf, x), y == null ? null : readMatrix(conf, y), null, null);
      default:
        NiftiMask m = mask != null ? mask : defaultMask(conf);
        return new Loaded(readImages(conf, x, m), y == null ? null : readImages(conf, y, m), m,
            maskSource());
    }
  }

  private DataMatrix readMatrix(Configuration conf, Source s) {
    return s.format == Format.NPY ? HadoopFiles.readMatrix(conf, s.uri, s.flag)
        : ParquetMatrices.read(conf, s, column, orderBy);
  }

  private NiftiMask defaultMask(Configuration conf) {
    List<Source> sources = new ArrayList<>();
    List<String> files = new ArrayList<>();
    for (Source s : y == null ? List.of(x) : List.of(x, y)) {
      for (String file : s.files) {
        sources.add(s);
        files.add(file);
      }
    }
    // One builder per file, files read in parallel; merging ORs bits, so the order is moot.
    DefaultMaskBuilder[] partial = new DefaultMaskBuilder[files.size()];
    parallel(files.size(), i -> {
      DefaultMaskBuilder builder = new DefaultMaskBuilder(reference.voxelsPerVolume());
      try (NiftiReader r = openOnGrid(conf, sources.get(i), files.get(i), reference.grid(),
          "first image")) {
        NiftiHeader h = r.header();
        boolean wide = h.prefersDouble();
        float[] f = wide ? null : new float[h.voxelsPerVolume()];
        double[] d = wide ? new double[h.voxelsPerVolume()] : null;
        for (long v = 0; v < h.volumes(); v++) {
          if (wide) {
            r.readVolume(d);
            builder.add(d);
          } else {
            r.readVolume(f);
            builder.add(f);
          }
        }
      }
      partial[i] = builder;
    });
    DefaultMaskBuilder all = partial[0];
    for (int i = 1; i < partial.length; i++) {
      all.merge(partial[i]);
    }
    return all.build(reference);
  }

  /**
   * Runs {@code body(0 .. n-1)} on the common pool; the first failure (in index order of
   * those that failed) is rethrown, so a bad file is reported as in a sequential read.
   */
  private static void parallel(int n, IntConsumer body) {
    RuntimeException[] failures = new RuntimeException[n];
    IntStream.range(0, n).parallel().forEach(i -> {
      try {
        body.accept(i);
      } catch (RuntimeException e) {
        failures[i] = e;
      }
    });
    for (RuntimeException e : failures) {
      if (e != null) {
        throw e;
      }
    }
  }

  private static NiftiReader openOnGrid(Configuration conf, Source s, String file,
      NiftiGrid grid, String gridName) {
    NiftiReader r = HadoopNiftiFiles.open(conf, file, s.flag);
    try {
      grid.requireSame(r.header().grid(), s.flag + " " + file, gridName);
    } catch (RuntimeException e) {
      r.close();
      throw e;
    }
    return r;
  }

  /** The masked samples × voxels matrix of one input's images, volumes in file order. */
  private static DataMatrix readImages(Configuration conf, Source s, NiftiMask mask) {
    int voxels = mask.count();
    int files = s.files.size();
    long[] firstRow = new long[files + 1];
    // Headers first: the matrix size is known (and refused if too large) before any value.
    for (int i = 0; i < files; i++) {
      try (NiftiReader r = openOnGrid(conf, s, s.files.get(i), mask.grid(), "mask")) {
        firstRow[i + 1] = firstRow[i] + r.header().volumes();
      }
    }
    long samples = firstRow[files];
    long values = samples * voxels;
    if (values > Integer.MAX_VALUE - 8) {
      throw new ResourceRefusedException("Cannot load " + s.flag + " " + s.uri + " in one JVM: "
          + samples + " samples x " + voxels + " mask voxels is " + values + " values, more than"
          + " one Java array holds; use a smaller mask or fewer samples per run");
    }
    double[] out = new double[(int) values];
    // Each file fills its own rows, so reading files in parallel gives the same matrix.
    parallel(files, i -> {
      try (NiftiReader r = openOnGrid(conf, s, s.files.get(i), mask.grid(), "mask")) {
        NiftiHeader h = r.header();
        if (firstRow[i] + h.volumes() != firstRow[i + 1]) {
          throw new InvalidInputException("Cannot read " + s.flag + " " + s.files.get(i)
              + ": it changed while being read (its volumes differ from a moment ago)");
        }
        boolean wide = h.prefersDouble();
        float[] f = wide ? null : new float[h.voxelsPerVolume()];
        double[] d = new double[h.voxelsPerVolume()];
        for (long v = 0; v < h.volumes(); v++) {
          if (wide) {
            r.readVolume(d);
          } else {
            // Read in the data's precision, widened exactly, as an .npy of float32 would be.
            r.readVolume(f);
            for (int k = 0; k < f.length; k++) {
              d[k] = f[k];
            }
          }
          mask.extract(d, out, (int) ((firstRow[i] + v) * voxels));
        }
      }
    });
    return DataMatrix.of((int) samples, voxels, out, s.flag + " " + s.uri);
  }
}
