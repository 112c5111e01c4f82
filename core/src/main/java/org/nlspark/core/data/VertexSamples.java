package org.nlspark.core.data;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.FreeSurfer;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.Grayordinates;

/**
 * Per-vertex surface data as a {@link SampleSource} (DESIGN §8): GIFTI ({@code .func.gii},
 * {@code .shape.gii}, ...), FreeSurfer MGH/MGZ or CIFTI-2 dense files (on the full space of
 * their brain models, {@link Grayordinates}; every file must have the study's models), either one file per sample in the given
 * order, or one file holding every sample (several GIFTI data arrays, MGH frames). Executors read
 * whole files (a surface file is small: 10,242 vertices are 40 kB a sample), check each against
 * the mesh's vertex count, keep the mask's vertices in vertex order (the numbering of the mesh's
 * {@code MeshAdjacency}), and pass each sample on in its file's precision.
 */
public final class VertexSamples implements SampleSource {
  private static final long serialVersionUID = 1L;

  private final String name;
  private final String[] files;
  private final boolean oneFile; // every sample in files[0]
  private final int samples;
  private final int meshVertices;
  private final String meshName;
  private final int[] vertexOf; // in-mask number -> mesh vertex
  private final int samplesPerSplit;
  private final boolean float32;
  private final Grayordinates grayordinates; // CIFTI inputs' brain models, else null

  private VertexSamples(String name, String[] files, boolean oneFile, int samples,
      int meshVertices, String meshName, int[] vertexOf, int samplesPerSplit, boolean float32,
      Grayordinates grayordinates) {
    this.name = name;
    this.files = files;
    this.oneFile = oneFile;
    this.samples = samples;
    this.meshVertices = meshVertices;
    this.meshName = meshName;
    this.vertexOf = vertexOf;
    this.samplesPerSplit = Math.max(1, samplesPerSplit);
    this.float32 = float32;
    this.grayordinates = grayordinates;
  }

  /** Whether a file name is surface data nlspark reads: GIFTI, FreeSurfer MGH/MGZ, CIFTI. */
  public static boolean isSurfaceName(String fileName) {
    return Gifti.isGiftiName(fileName) || FreeSurfer.isMghName(fileName)
        || Cifti.isCiftiName(fileName);
  }

  /**
   * One file per sample, in this order.
   *
   * @param vertexOf the mesh vertex of each in-mask vertex, increasing
   * @param grayordinates the brain models every CIFTI file must have, or null for GIFTI and MGH
   */
  public static VertexSamples perFile(String name, List<String> files, int meshVertices,
      String meshName, int[] vertexOf, int samplesPerSplit, Grayordinates grayordinates) {
    if (files.isEmpty()) {
      throw new InvalidInputException("Cannot read " + name + ": it names no file");
    }
    return new VertexSamples(name, files.toArray(new String[0]), false, files.size(),
        meshVertices, meshName, vertexOf.clone(), samplesPerSplit, true, grayordinates);
  }

  /**
   * Every sample in one file, which the driver has read to count them.
   *
   * @param grayordinates the brain models the CIFTI file must have, or null for GIFTI and MGH
   */
  public static VertexSamples oneFile(String name, String file, VertexData data,
      String meshName, int meshVertices, int[] vertexOf, Grayordinates grayordinates) {
    VertexSamples s = new VertexSamples(name, new String[] {file}, true, data.samples().length,
        meshVertices, meshName, vertexOf.clone(), Integer.MAX_VALUE, data.float32(),
        grayordinates);
    s.checkVertices(data, file);
    return s;
  }

  /**
   * Every sample in one CIFTI file, counted from its header (the driver reads no data: a
   * series may hold gigabytes).
   */
  public static VertexSamples oneFile(String name, String file, Cifti.Head head,
      String meshName, int meshVertices, int[] vertexOf, Grayordinates grayordinates) {
    VertexSamples s = new VertexSamples(name, new String[] {file}, true, head.rows(),
        meshVertices, meshName, vertexOf.clone(), Integer.MAX_VALUE, head.float32(),
        grayordinates);
    s.checkModels(head.models(), file);
    return s;
  }

  /** Reads per-vertex data, GIFTI, CIFTI or MGH by the name. */
  public static VertexData read(InputStream in, String file) {
    return Gifti.isGiftiName(file) ? Gifti.readData(in, file)
        : Cifti.isCiftiName(file) ? Cifti.readData(in, file) : FreeSurfer.readMgh(in, file);
  }

  private void checkModels(Grayordinates models, String file) {
    if (grayordinates != null && (models == null || !grayordinates.sameModels(models))) {
      throw new InvalidInputException("Cannot read " + file + " of " + name + ": its brain"
          + " models (" + (models == null ? "none" : models.describe()) + ") are not the"
          + " study's (" + grayordinates.describe() + "); every CIFTI file of a study must have"
          + " the same grayordinates");
    }
  }

  private void checkVertices(VertexData data, String file) {
    checkModels(data.grayordinates(), file);
    if (data.vertices() != meshVertices) {
      throw new InvalidInputException("Cannot read " + file + " of " + name + ": it has "
          + data.vertices() + " vertices, but the surface " + meshName + " has " + meshVertices
          + "; give the data and the mesh of one hemisphere and one template");
    }
  }

  @Override
  public String name() {
    return name;
  }

  @Override
  public int samples() {
    return samples;
  }

  @Override
  public int voxels() {
    return vertexOf.length;
  }

  /** Surface data has no image grid: its neighbours are the mesh's. */
  @Override
  public NiftiMask mask() {
    return null;
  }

  @Override
  public int splits() {
    return oneFile ? 1 : SampleSource.splitCount(samples, samplesPerSplit);
  }

  @Override
  public int firstSample(int split) {
    return oneFile ? 0 : split * samplesPerSplit;
  }

  @Override
  public int splitSamples(int split) {
    return oneFile ? samples : Math.min(samplesPerSplit, samples - split * samplesPerSplit);
  }

  @Override
  public boolean float32() {
    return float32;
  }

  @Override
  public void read(int split, Opener opener, Sink sink) {
    int first = firstSample(split);
    int count = splitSamples(split);
    float[] maskedF = new float[vertexOf.length];
    double[] maskedD = new double[vertexOf.length];
    for (int s = first; s < first + count; ) {
      String file = oneFile ? files[0] : files[s];
      VertexData data;
      try (InputStream in = opener.open(file)) {
        data = read(in, file);
      } catch (IOException e) {
        throw new UncheckedIOException("Cannot read " + file + ": " + e.getMessage(), e);
      }
      checkVertices(data, file);
      if (!oneFile && data.samples().length != 1) {
        throw new InvalidInputException("Cannot use " + file + " as sample " + s + " of " + name
            + ": it holds " + data.samples().length + " samples, but each file of a list must"
            + " hold one; pass a file of several samples as the --input itself");
      }
      if (oneFile && data.samples().length != samples) {
        throw new InvalidInputException("Cannot read " + file + ": it held " + samples
            + " samples when the run began and " + data.samples().length + " now");
      }
      int from = oneFile ? first : 0;
      int to = oneFile ? first + count : 1;
      for (int k = from; k < to; k++, s++) {
        double[] values = data.samples()[k];
        String sampleName = oneFile ? file + " (sample " + k + ")" : file;
        if (data.float32() && float32) {
          for (int v = 0; v < vertexOf.length; v++) {
            maskedF[v] = (float) values[vertexOf[v]];
          }
          SampleChecks.requireFinite(maskedF, maskedF.length, sampleName, s, "sample",
              this::vertexAt);
          sink.float32(s, maskedF);
        } else {
          for (int v = 0; v < vertexOf.length; v++) {
            maskedD[v] = values[vertexOf[v]];
          }
          SampleChecks.requireFinite(maskedD, maskedD.length, sampleName, s, "sample",
              this::vertexAt);
          sink.float64(s, maskedD);
        }
      }
    }
  }

  private String vertexAt(int masked) {
    return "vertex " + vertexOf[masked];
  }
}
