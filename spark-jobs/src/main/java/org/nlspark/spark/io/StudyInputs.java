package org.nlspark.spark.io;

import java.io.IOException;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.DataMatrix;
import org.nlspark.core.io.nifti.ImageInputs;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.Grayordinates;
import org.nlspark.core.tfce.MeshAdjacency;
import org.nlspark.core.tfce.WholeMapSettings;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * The inputs of a study (DESIGN §8) resolved, the one place that decides them for the command
 * line and the API: which files, in which sample order, in which format, and which mask (read
 * now when {@code --mask} is given; otherwise computed by the executors). It reads directory
 * listings, list files, the first image header and the mask, never sample values, and it is
 * serializable.
 *
 * <p>Formats: {@code .npy} (samples × voxels); NIfTI, one volume per sample: a 4-D file, a list
 * file of 3-D files, a directory or a glob ({@link HadoopNiftiFiles#resolveInputs}); Parquet
 * (a {@code .parquet} file or a directory of them, one row per sample, an array column);
 * surface data (GIFTI or MGH files, one per sample or one of every sample, as a file, list,
 * directory or glob) on the mesh of {@code --surface}, whose triangles join the vertices.
 * Inputs are read as sources (the data plane's {@code Sources}: by the executors into
 * voxel blocks, or on the driver for small inputs, with the same readers), a Parquet table
 * sorted by {@code --order-by} too; {@link #load} is the former driver sort, kept as the
 * reference the tests compare with.
 */
public final class StudyInputs implements Serializable {
  private static final long serialVersionUID = 1L;

  /** The column a Parquet input's voxel values are read from when {@code --column} is absent. */
  public static final String DEFAULT_COLUMN = "voxels";

  /** What one input holds. */
  public enum Format {
    NPY, NIFTI, PARQUET, SURFACE;

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
    /** Whether that order is the byte order of the names (a directory or glob of images). */
    public final boolean sortedByName;

    Source(String flag, String uri, Format format, List<String> files) {
      this(flag, uri, format, files, false);
    }

    Source(String flag, String uri, Format format, List<String> files, boolean sortedByName) {
      this.flag = flag;
      this.uri = uri;
      this.format = format;
      this.files = List.copyOf(files);
      this.sortedByName = sortedByName;
    }
  }

  private final Source x;
  private final Source y;
  private final String maskUri;
  private final NiftiMask mask;
  private final NiftiHeader reference;
  private final String column;
  private final String orderBy;
  private final MeshFiles meshFiles;
  private final MeshAdjacency surface;
  /** The mesh and mask files as qualified URIs, for the report (see {@link #describe()}). */
  private Map<String, Object> meshUris;
  /** CIFTI inputs' brain models, whose full space the mesh is; null for other inputs. */
  private Grayordinates grayordinates;

  /**
   * The files that describe the mesh of surface data: {@code --surface} (a GIFTI {@code
   * .surf.gii} or a FreeSurfer surface) and {@code --vertex-area} (a GIFTI or MGH of one area
   * per vertex, as PALM's {@code -s surf area}; null: a third of each vertex's triangles); for
   * CIFTI data, {@code --surface-left} and {@code --surface-right} (the meshes of its cortex
   * models) in place of {@code --surface}.
   */
  public record MeshFiles(String surface, String vertexArea, String left, String right) {
    /** The mesh files named by these options, or null when no mesh is named. */
    public static MeshFiles of(String surface, String vertexArea) {
      return of(surface, vertexArea, null, null);
    }

    /** As {@link #of(String, String)} with CIFTI's two cortex meshes. */
    public static MeshFiles of(String surface, String vertexArea, String left, String right) {
      if (surface != null && (left != null || right != null)) {
        throw new InvalidInputException("Cannot use --surface " + surface + " with "
            + (left != null ? "--surface-left " + left : "--surface-right " + right)
            + ": --surface is the mesh of GIFTI or MGH data, --surface-left and --surface-right"
            + " the cortex meshes of CIFTI data; give one or the other");
      }
      if (surface == null && left == null && right == null && vertexArea != null) {
        throw new InvalidInputException("--vertex-area " + vertexArea + " gives the area of"
            + " each vertex of a mesh; give the mesh with --surface too");
      }
      return surface == null && left == null && right == null ? null
          : new MeshFiles(surface, vertexArea, left, right);
    }

    /** The meshes as summary.json names them: the surface, or the CIFTI cortex meshes. */
    String describe() {
      return surface != null ? surface
          : (left != null ? "left " + left : "") + (left != null && right != null ? ", " : "")
              + (right != null ? "right " + right : "");
    }
  }

  private StudyInputs(Source x, Source y, String maskUri, NiftiMask mask, NiftiHeader reference,
      String column, String orderBy) {
    this(x, y, maskUri, mask, reference, column, orderBy, null, null);
  }

  private StudyInputs(Source x, Source y, String maskUri, NiftiMask mask, NiftiHeader reference,
      String column, String orderBy, MeshFiles meshFiles, MeshAdjacency surface) {
    this.meshFiles = meshFiles;
    this.surface = surface;
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
    return resolve(conf, input, input2, maskUri, column, orderBy, null);
  }

  /**
   * As {@link #resolve(Configuration, String, String, String, String, String)} with the mesh
   * of surface data ({@link MeshFiles}), or null for inputs that are not surface data.
   */
  public static StudyInputs resolve(Configuration conf, String input, String input2,
      String maskUri, String column, String orderBy, MeshFiles meshFiles) {
    Source x = source(conf, input, "--input");
    Source y = input2 == null ? null : source(conf, input2, "--input2");
    if (x.format == Format.SURFACE || (y != null && y.format == Format.SURFACE)
        || meshFiles != null) {
      return surface(conf, x, y, maskUri, column, orderBy, meshFiles);
    }
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

  /**
   * Surface inputs on their mesh: the mesh, the vertex mask ({@code --mask}: a GIFTI or MGH of
   * one value per vertex, non-zero kept; default every vertex) and the vertex areas are read now.
   */
  private static StudyInputs surface(Configuration conf, Source x, Source y, String maskUri,
      String column, String orderBy, MeshFiles meshFiles) {
    if (Cifti.isCiftiName(x.files.get(0)) || y != null && Cifti.isCiftiName(y.files.get(0))) {
      if (column != null || orderBy != null) {
        throw parquetOnly(x.uri, column);
      }
      return cifti(conf, x, y, maskUri, meshFiles);
    }
    String surfaceUri = meshFiles == null ? null : meshFiles.surface();
    if (meshFiles != null && surfaceUri == null) {
      throw new InvalidInputException("Cannot use "
          + (meshFiles.left() != null ? "--surface-left " + meshFiles.left()
              : "--surface-right " + meshFiles.right()) + " with " + x.flag + " " + x.uri
          + ": --surface-left and --surface-right are the cortex meshes of CIFTI data"
          + " (.dscalar.nii, .dtseries.nii); give GIFTI or MGH data their mesh with --surface");
    }
    if (surfaceUri == null) {
      Source data = x.format == Format.SURFACE ? x : y;
      throw new InvalidInputException("Cannot read " + data.flag + " " + data.uri + ": it is"
          + " surface data (GIFTI or MGH), which needs its mesh; give --surface with the mesh of"
          + " the same hemisphere and template (a .surf.gii, or a FreeSurfer surface such as"
          + " lh.white)");
    }
    for (Source s : y == null ? List.of(x) : List.of(x, y)) {
      if (s.format != Format.SURFACE) {
        throw new InvalidInputException("Cannot use --surface " + surfaceUri + " with " + s.flag
            + " " + s.uri + " (" + s.format.label() + "): --surface is the mesh of surface"
            + " data (GIFTI .func.gii/.shape.gii or FreeSurfer .mgh/.mgz, one value per"
            + " vertex)");
      }
    }
    if (column != null || orderBy != null) {
      throw parquetOnly(x.uri, column);
    }
    SurfaceMesh mesh = SurfaceFiles.readMesh(conf, surfaceUri, "--surface");
    boolean[] keep = null;
    if (maskUri != null) {
      double[] m = perVertex(conf, maskUri, "--mask", "a surface mask", mesh, surfaceUri);
      keep = new boolean[mesh.vertices()];
      for (int v = 0; v < keep.length; v++) {
        keep[v] = m[v] != 0 && !Double.isNaN(m[v]);
      }
    }
    String areaUri = meshFiles.vertexArea();
    double[] areas = areaUri == null ? null
        : perVertex(conf, areaUri, "--vertex-area", "--vertex-area", mesh, surfaceUri);
    for (int v = 0; areas != null && v < areas.length; v++) {
      if (!(areas[v] >= 0) || Double.isInfinite(areas[v])) {
        throw new InvalidInputException("Cannot use --vertex-area " + areaUri + ": the area of"
            + " vertex " + v + " is " + areas[v] + "; an area is a finite number >= 0 (mm2)");
      }
    }
    StudyInputs study = new StudyInputs(x, y, maskUri, null, null, null, null, meshFiles,
        MeshAdjacency.of(mesh, keep, areas, areaUri));
    study.meshUris = new LinkedHashMap<>();
    study.meshUris.put("surface", SurfaceFiles.qualified(conf, surfaceUri, "--surface"));
    if (maskUri != null) {
      study.meshUris.put("mask", SurfaceFiles.qualified(conf, maskUri, "--mask"));
    }
    return study;
  }

  /**
   * CIFTI inputs: their brain models (read from the first file; every file must have the same,
   * which executors check), on one mesh of the models' full space ({@link Grayordinates}): each
   * cortex model's mesh ({@code --surface-left}, {@code --surface-right}) in model order, then
   * each subcortical voxel as a point at its mm coordinates, joined to its grid neighbours
   * among the kept voxels (TFCE and clusters as on a volume, DESIGN §9). The mask keeps the
   * grayordinates the files hold, and {@code --mask}'s.
   */
  private static StudyInputs cifti(Configuration conf, Source x, Source y, String maskUri,
      MeshFiles meshFiles) {
    for (Source s : y == null ? List.of(x) : List.of(x, y)) {
      for (String f : s.files) {
        if (!Cifti.isCiftiName(f)) {
          throw new InvalidInputException("Cannot read " + s.flag + " " + s.uri + ": it names"
              + " CIFTI (.dscalar.nii, .dtseries.nii) and other surface files (" + f + ");"
              + " one study is one kind");
        }
      }
    }
    if (meshFiles != null && meshFiles.surface() != null) {
      throw new InvalidInputException("Cannot use --surface " + meshFiles.surface() + " with "
          + x.flag + " " + x.uri + ": it is CIFTI data, whose cortex meshes are --surface-left"
          + " and --surface-right");
    }
    Grayordinates g = SurfaceFiles.readCiftiHead(conf, x.files.get(0), x.flag).models();
    int[] base = g.modelBases();
    double[] coords = new double[3 * g.fullSize()]; // x, y, z of each full-space slot
    List<int[]> triangleSets = new ArrayList<>(); // each cortex's, numbered in the full space
    boolean usedLeft = false;
    boolean usedRight = false;
    for (int i = 0; i < g.models().size(); i++) {
      Grayordinates.Model m = g.models().get(i);
      if (!m.surface()) {
        for (int n = 0; n < m.count(); n++) {
          System.arraycopy(g.voxelCoordinates(m, n), 0, coords, 3 * (base[i] + n), 3);
        }
        continue;
      }
      boolean left = m.structure().equals(Grayordinates.CORTEX_LEFT);
      if (!left && !m.structure().equals(Grayordinates.CORTEX_RIGHT)) {
        throw new InvalidInputException("Cannot read " + x.flag + " " + x.uri + ": its surface"
            + " model " + m.shortName() + " is not the left or right cortex, the surfaces"
            + " nlspark joins to a mesh (--surface-left, --surface-right)");
      }
      String flag = left ? "--surface-left" : "--surface-right";
      String uri = meshFiles == null ? null : left ? meshFiles.left() : meshFiles.right();
      if (uri == null) {
        throw new InvalidInputException("Cannot read " + x.flag + " " + x.uri + ": it is CIFTI"
            + " data with " + m.shortName() + " (" + m.count() + " of " + m.surfaceVertices()
            + " vertices), which needs its mesh; give " + flag + " with the mesh of the same"
            + " template (a .surf.gii of " + m.surfaceVertices() + " vertices)");
      }
      usedLeft |= left;
      usedRight |= !left;
      SurfaceMesh mesh = SurfaceFiles.readMesh(conf, uri, flag);
      if (mesh.vertices() != m.surfaceVertices()) {
        throw new InvalidInputException("Cannot use " + flag + " " + uri + " with " + x.flag
            + " " + x.uri + ": the mesh has " + mesh.vertices() + " vertices, but the CIFTI"
            + " model " + m.shortName() + " is on a surface of " + m.surfaceVertices());
      }
      for (int v = 0; v < mesh.vertices(); v++) {
        System.arraycopy(mesh.coordinate(v), 0, coords, 3 * (base[i] + v), 3);
      }
      int[] triangles = mesh.triangleIndices();
      for (int k = 0; k < triangles.length; k++) {
        triangles[k] += base[i];
      }
      triangleSets.add(triangles);
    }
    if (meshFiles != null && (meshFiles.left() != null && !usedLeft
        || meshFiles.right() != null && !usedRight)) {
      String flag = meshFiles.left() != null && !usedLeft ? "--surface-left" : "--surface-right";
      throw new InvalidInputException("Cannot use " + flag + " with " + x.flag + " " + x.uri
          + ": its brain models (" + g.describe() + ") have no "
          + (flag.endsWith("left") ? "left" : "right") + " cortex");
    }
    boolean voxelsOnly = triangleSets.isEmpty(); // its voxels are then a volume's (DESIGN §9)
    SurfaceMesh mesh = voxelsOnly
        ? SurfaceMesh.points("the subcortical voxels of " + x.uri, coords)
        : new SurfaceMesh(meshFiles.describe(), coords,
            triangleSets.stream().flatMapToInt(java.util.Arrays::stream).toArray());
    boolean[] keep = new boolean[mesh.vertices()];
    for (int slot : g.slotOfColumn()) {
      keep[slot] = true;
    }
    String where = "the CIFTI grayordinates of " + x.uri;
    if (maskUri != null) {
      double[] m = perVertex(conf, maskUri, "--mask", "a CIFTI mask", mesh, where, g);
      for (int v = 0; v < keep.length; v++) {
        keep[v] &= m[v] != 0 && !Double.isNaN(m[v]);
      }
    }
    String areaUri = meshFiles == null ? null : meshFiles.vertexArea();
    double[] areas = areaUri == null ? null
        : perVertex(conf, areaUri, "--vertex-area", "--vertex-area", mesh, where, g);
    MeshAdjacency adjacency = MeshAdjacency.of(mesh, keep, areas, areaUri);
    // The subcortical voxels join their grid neighbours (DESIGN §9): each voxel's (i, j, k).
    int[] ijk = new int[3 * mesh.vertices()];
    java.util.Arrays.fill(ijk, -1);
    for (int i = 0; i < g.models().size(); i++) {
      Grayordinates.Model m = g.models().get(i);
      if (!m.surface()) {
        System.arraycopy(m.indices(), 0, ijk, 3 * base[i], 3 * m.count());
      }
    }
    adjacency = adjacency.withVoxels(ijk, WholeMapSettings.DEFAULT_CLUSTER_CONNECTIVITY,
        "the subcortical voxels of " + x.uri);
    StudyInputs study = new StudyInputs(x, y, maskUri, null, null, null, null, meshFiles,
        adjacency);
    study.grayordinates = g;
    study.meshUris = new LinkedHashMap<>();
    return study;
  }

  /** CIFTI inputs' brain models (the full space of {@link #surface()}), else null. */
  public Grayordinates grayordinates() {
    return grayordinates;
  }

  /** One value per vertex of {@code mesh} from a GIFTI or MGH file (a mask, the areas). */
  private static double[] perVertex(Configuration conf, String uri, String flag, String what,
      SurfaceMesh mesh, String surfaceUri) {
    return perVertex(conf, uri, flag, what, mesh, surfaceUri, null);
  }

  /**
   * The same on a CIFTI study's full space ({@code g}): a CIFTI file must have the study's brain
   * models, so that its values land where the data's do.
   */
  private static double[] perVertex(Configuration conf, String uri, String flag, String what,
      SurfaceMesh mesh, String surfaceUri, Grayordinates g) {
    VertexData m = SurfaceFiles.readData(conf, uri, flag);
    if (g != null && m.grayordinates() != null && !g.sameModels(m.grayordinates())) {
      throw new InvalidInputException("Cannot use " + flag + " " + uri + ": its brain models ("
          + m.grayordinates().describe() + ") are not the data's (" + g.describe() + "); give"
          + " it on the same grayordinates");
    }
    if (m.samples().length != 1 || m.vertices() != mesh.vertices()) {
      throw new InvalidInputException("Cannot use " + flag + " " + uri + " on the surface "
          + surfaceUri + ": " + what + " is one value per vertex (" + mesh.vertices()
          + "), but it holds " + m.samples().length + " x " + m.vertices());
    }
    return m.samples()[0];
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
    List<String> files = HadoopNiftiFiles.resolveInputs(conf, uri, flag);
    int surfaces = 0;
    for (String f : files) {
      surfaces += ImageInputs.isSurfaceDataName(new Path(f).getName()) ? 1 : 0;
    }
    if (surfaces > 0 && surfaces < files.size()) {
      throw new InvalidInputException("Cannot read " + flag + " " + uri + ": it names both"
          + " surface data (.gii, .mgh, .mgz) and NIfTI images; one input is one kind");
    }
    return new Source(flag, uri, surfaces > 0 ? Format.SURFACE : Format.NIFTI, files,
        files.size() > 1 && HadoopNiftiFiles.sortsByName(conf, uri, flag));
  }

  /**
   * A Parquet input's data files, sorted by the bytes of their path, or null when {@code uri}
   * is not Parquet: a {@code .parquet} file, or a directory holding {@code .parquet} files
   * (searched in sub-directories too, as Spark writes partitioned tables) and no NIfTI file.
   */
  static List<String> parquetFiles(Configuration conf, String uri, String flag) {
    Path path = UserPaths.toPath(uri, flag);
    try {
      FileSystem fs = UserPaths.fileSystem(path, conf, flag, uri);
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
      throw UserPaths.environment(e, "read", flag, uri);
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

  /** The mesh and vertex mask of surface data, or null for other inputs. */
  public MeshAdjacency surface() {
    return surface;
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
    if (meshFiles != null) {
      for (String mesh : new String[] {meshFiles.surface(), meshFiles.left(), meshFiles.right()}) {
        if (mesh != null) {
          u.add(mesh);
        }
      }
      if (meshFiles.vertexArea() != null) {
        u.add(meshFiles.vertexArea());
      }
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
    if (surface != null && surface.voxelsOnly()) { // a CIFTI file without a cortex
      m.put("cifti_brain_models", grayordinates.describe());
      m.put("mask", maskUri != null ? maskUri : "every grayordinate of the CIFTI file");
      m.put("mask_voxels", surface.voxelCount());
    } else if (surface != null) {
      m.put("surface", meshFiles.describe());
      if (grayordinates != null) {
        m.put("cifti_brain_models", grayordinates.describe());
      }
      m.put("vertex_area", meshFiles.vertexArea() != null ? meshFiles.vertexArea()
          : "a third of the areas of each vertex's triangles (palm_calcarea)");
      m.put("mask", maskUri != null ? maskUri : grayordinates != null
          ? "every grayordinate of the CIFTI file" : "every vertex of the surface");
      m.put("surface_vertices", surface.meshVertices());
      int voxels = surface.voxelCount(); // a CIFTI file's subcortical voxels
      m.put("mask_vertices", surface.voxels() - voxels);
      if (voxels > 0) {
        m.put("mask_voxels", voxels);
      }
      m.put("mesh_uris", meshUris);
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
    if ((s.format == Format.NIFTI || s.format == Format.SURFACE) && s.files.size() > 1) {
      // the sample order taken (DESIGN §8), named without the files' common directory
      m.put("sample_order", s.sortedByName ? "byte order of the names" : "as listed");
      m.put("samples", ImageInputs.displayNames(s.files));
    }
    return m;
  }

  /**
   * What the inputs warn of, for summary.json's {@code warnings} and stderr: images taken in the
   * byte order of their names where the numbers in the names order them otherwise (DESIGN §8).
   */
  public List<String> warnings() {
    List<String> w = new ArrayList<>();
    for (Source s : y == null ? List.of(x) : List.of(x, y)) {
      String order = s.sortedByName
          ? ImageInputs.byteOrderWarning(s.flag + " " + s.uri, s.files) : null;
      if (order != null) {
        w.add(order);
      }
    }
    return w;
  }

  /**
   * Whether executors can read these inputs (the data plane's {@code Sources}): .npy, NIfTI and
   * Parquet, also sorted by {@code --order-by} (executors read the key column, the driver ranks
   * one key per sample, and each file's rows go to their ranks), so always.
   */
  public boolean executorsCanRead() {
    return true;
  }

  /**
   * Reads matrix inputs sorted by {@code --order-by} on this JVM (an .npy second group is read
   * whole too) as the core inputs of {@code analysis} ({@code target}
   * for correlation, else null).
   *
   * @throws InvalidInputException for ragged or non-finite Parquet rows, a bad .npy
   */
  public JobInputs load(Configuration conf, Analysis analysis, double[] target) {
    if (hasGrid()) {
      throw new IllegalStateException("[BUG] NIfTI inputs are read through their sources, not"
          + " loaded here");
    }
    DataMatrix xm = readMatrix(conf, x);
    switch (analysis) {
      case TWO_SAMPLE:
        return JobInputs.twoGroups(xm, readMatrix(conf, y));
      case CORRELATION:
        return JobInputs.withTarget(xm, target);
      default:
        return JobInputs.of(xm);
    }
  }

  private DataMatrix readMatrix(Configuration conf, Source s) {
    return s.format == Format.NPY ? NpyInputs.readMatrix(conf, s.uri, s.flag)
        : ParquetMatrices.read(conf, s, column, orderBy);
  }
}
