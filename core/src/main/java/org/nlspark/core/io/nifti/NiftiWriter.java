package org.nlspark.core.io.nifti;

import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPOutputStream;

/**
 * Writes per-voxel results as NIfTI maps (DESIGN §8): a float32 {@code .nii.gz} of the mask's
 * grid, holding each voxel's value inside the mask and a fill value outside it (0 for
 * statistics, 1 for p-values), and the mask itself as uint8. The header copies the mask's
 * geometry (version, dims, pixdims with qfac, qform and sform codes, quaternion, offsets, srow,
 * units), so the map has the mask's affine in every reader; it is written little-endian with
 * scl_slope 1 and scl_inter 0, which every reader takes as "no scaling".
 *
 * <p>Streams come from the caller (any file system); they are finished but not closed.
 */
public final class NiftiWriter {
  static final int CHUNK_BYTES = 1 << 16;
  static final String DESCRIPTION = "nlspark";

  private NiftiWriter() {}

  /**
   * Writes {@code values} (one per mask voxel, voxel order) as a float32 {@code .nii.gz} map.
   *
   * @param outside the value of voxels outside the mask
   */
  public static void writeMap(OutputStream out, NiftiMask mask, float[] values, float outside) {
    float[] volume = mask.toVolume(values, outside);
    NiftiHeader header = mapHeader(mask.geometry(), NiftiDatatype.FLOAT32);
    writeGzip(out, header, volume, null);
  }

  /** Writes the mask as a uint8 {@code .nii.gz}: 1 analysed, 0 not. */
  public static void writeMask(OutputStream out, NiftiMask mask) {
    NiftiHeader header = mapHeader(mask.geometry(), NiftiDatatype.UINT8);
    writeGzip(out, header, null, mask.toSelectionVolume());
  }

  /** {@link #writeMap(OutputStream, NiftiMask, float[], float)} to a local file. */
  public static void writeMap(Path path, NiftiMask mask, float[] values, float outside) {
    try (OutputStream out = Files.newOutputStream(path)) {
      writeMap(out, mask, values, outside);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path + ": " + e.getMessage(), e);
    }
  }

  /** {@link #writeMask(OutputStream, NiftiMask)} to a local file. */
  public static void writeMask(Path path, NiftiMask mask) {
    try (OutputStream out = Files.newOutputStream(path)) {
      writeMask(out, mask);
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write " + path + ": " + e.getMessage(), e);
    }
  }

  /** The header of a 3-D map on {@code geometry}'s grid, with that header's affine fields. */
  static NiftiHeader mapHeader(NiftiHeader geometry, NiftiDatatype type) {
    int[] n = geometry.spatialDims();
    double[] pixdim = geometry.pixdim();
    for (int i = 4; i < 8; i++) {
      pixdim[i] = 1; // a map has no time axis; 1 is nibabel's default
    }
    return geometry.toBuilder()
        .version(geometry.version())
        .order(ByteOrder.LITTLE_ENDIAN)
        .shape(n[0], n[1], n[2])
        .pixdim(pixdim)
        .datatype(type)
        .scaling(1, 0)
        .xyztUnits(geometry.xyztUnits() & 0x07) // spatial units only
        .descrip(DESCRIPTION)
        .build();
  }

  /**
   * Writes one volume, gzip-compressed; exactly one of {@code floats} (float32 header) or
   * {@code bytes} (uint8 header) is given.
   */
  static void writeGzip(OutputStream out, NiftiHeader header, float[] floats, byte[] bytes) {
    try {
      GZIPOutputStream gz = new GZIPOutputStream(new NonClosing(out), CHUNK_BYTES);
      OutputStream buffered = new BufferedOutputStream(gz, CHUNK_BYTES);
      buffered.write(header.toBytes());
      if (bytes != null) {
        buffered.write(bytes);
      } else {
        byte[] chunk = new byte[CHUNK_BYTES];
        ByteBuffer b = ByteBuffer.wrap(chunk).order(header.order());
        for (int done = 0; done < floats.length; ) {
          int count = Math.min(floats.length - done, CHUNK_BYTES / 4);
          b.clear();
          b.asFloatBuffer().put(floats, done, count);
          buffered.write(chunk, 0, 4 * count);
          done += count;
        }
      }
      buffered.flush();
      gz.finish();
      gz.close(); // ends the deflater; NonClosing keeps the caller's stream open
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot write a NIfTI image: " + e.getMessage(), e);
    }
  }

  /** Lets the gzip stream be closed (freeing its native deflater) without closing the target. */
  private static final class NonClosing extends java.io.FilterOutputStream {
    NonClosing(OutputStream out) {
      super(out);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
      out.write(b, off, len);
    }

    @Override
    public void close() throws IOException {
      out.flush();
    }
  }
}
