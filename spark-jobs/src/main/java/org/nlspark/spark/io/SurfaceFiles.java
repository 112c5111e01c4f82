package org.nlspark.spark.io;

import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.VertexSamples;
import org.nlspark.core.io.surface.Cifti;
import org.nlspark.core.io.surface.MeshReader;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * The surface files the driver reads through Hadoop file systems: the mesh ({@code --surface})
 * and a vertex mask ({@code --mask}), and a single data file to count its samples.
 */
public final class SurfaceFiles {
  private SurfaceFiles() {}

  /** Reads a mesh ({@link MeshReader}: GIFTI or FreeSurfer), named by its path. */
  public static SurfaceMesh readMesh(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    try (InputStream in = open(conf, uri, flag, what)) {
      return MeshReader.read(in, uri);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /** Reads per-vertex data (GIFTI or MGH by the name). */
  public static VertexData readData(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    if (!VertexSamples.isSurfaceName(uri)) {
      throw new InvalidInputException("Cannot read " + what + " as surface data: name a GIFTI"
          + " (.gii), FreeSurfer MGH (.mgh, .mgz) or CIFTI (.dscalar.nii, .dtseries.nii) file");
    }
    try (InputStream in = open(conf, uri, flag, what)) {
      return VertexSamples.read(in, what);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /** A CIFTI file's header and XML: its brain models and rows (the data are not read). */
  public static Cifti.Head readCiftiHead(Configuration conf, String uri, String flag) {
    try (InputStream in = open(conf, uri, flag, flag + " " + uri)) {
      return Cifti.readHead(in, uri);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /**
   * The file's fully qualified URI ({@code file:/...}, {@code hdfs://...}): where the report
   * finds the mesh again, whatever directory it is written from.
   */
  public static String qualified(Configuration conf, String uri, String flag) {
    Path path = UserPaths.toPath(uri, flag);
    return UserPaths.fileSystem(path, conf, flag, uri).makeQualified(path).toString();
  }

  private static InputStream open(Configuration conf, String uri, String flag, String what)
      throws IOException {
    Path path = UserPaths.toPath(uri, flag);
    FileSystem fs = NpyInputs.withoutChecksums(UserPaths.fileSystem(path, conf, flag, uri));
    if (fs.exists(path) && fs.getFileStatus(path).isDirectory()) {
      throw new InvalidInputException("Cannot read " + what + ": it is a directory, not a"
          + " surface file");
    }
    HadoopNiftiFiles.imageStatus(fs, path, what, ""); // missing files, links, FIFOs
    return fs.open(path);
  }
}
