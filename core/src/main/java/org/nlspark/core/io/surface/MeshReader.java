package org.nlspark.core.io.surface;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.nlspark.core.surface.SurfaceMesh;

/** Reads a mesh in either format nlspark takes, told apart by its first bytes. */
public final class MeshReader {
  private MeshReader() {}

  /**
   * A GIFTI {@code .surf.gii} (any file that starts as XML, or named {@code .gii}), else a
   * FreeSurfer binary triangle surface ({@code lh.white}, {@code lh.pial}, ...); {@code name}
   * goes into messages and summary.json.
   */
  public static SurfaceMesh read(InputStream raw, String name) throws IOException {
    InputStream in = new BufferedInputStream(raw);
    in.mark(8);
    byte[] head = in.readNBytes(5);
    in.reset();
    boolean xml = new String(head, StandardCharsets.ISO_8859_1).startsWith("<?xml")
        || Gifti.isGiftiName(name);
    return xml ? Gifti.readMesh(in, name) : FreeSurfer.readSurface(in, name);
  }
}
