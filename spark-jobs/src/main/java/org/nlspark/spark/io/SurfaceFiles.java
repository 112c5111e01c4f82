package org.nlspark.spark.io;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.VertexSamples;
import org.nlspark.core.io.surface.FreeSurfer;
import org.nlspark.core.io.surface.Gifti;
import org.nlspark.core.io.surface.VertexData;
import org.nlspark.core.surface.SurfaceMesh;

/**
 * The surface files the driver reads through Hadoop file systems: the mesh ({@code --surface})
 * and a vertex mask ({@code --mask}), and a single data file to count its samples.
 */
public final class SurfaceFiles {
  private SurfaceFiles() {}

  /**
   * Reads a mesh: a GIFTI {@code .surf.gii} (any file that starts as XML), else a FreeSurfer
   * binary surface ({@code lh.white}, {@code lh.pial}, ...).
   */
  public static SurfaceMesh readMesh(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    try (InputStream in = new BufferedInputStream(open(conf, uri, flag, what))) {
      in.mark(8);
      byte[] head = in.readNBytes(5);
      in.reset();
      boolean xml = new String(head, java.nio.charset.StandardCharsets.ISO_8859_1)
          .startsWith("<?xml") || Gifti.isGiftiName(uri);
      // named by its path: the mesh's name goes into messages and summary.json
      return xml ? Gifti.readMesh(in, uri) : FreeSurfer.readSurface(in, uri);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
  }

  /** Reads per-vertex data (GIFTI or MGH by the name). */
  public static VertexData readData(Configuration conf, String uri, String flag) {
    String what = flag + " " + uri;
    if (!VertexSamples.isSurfaceName(uri)) {
      throw new InvalidInputException("Cannot read " + what + " as surface data: name a GIFTI"
          + " (.gii) or FreeSurfer MGH (.mgh, .mgz) file");
    }
    try (InputStream in = open(conf, uri, flag, what)) {
      return VertexSamples.read(in, what);
    } catch (IOException e) {
      throw UserPaths.environment(e, "read", flag, uri);
    }
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
