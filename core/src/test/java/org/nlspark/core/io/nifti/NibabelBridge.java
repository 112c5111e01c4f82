package org.nlspark.core.io.nifti;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * The Java side of {@code it/nifti-nibabel-check.sh}: reads NIfTI files nibabel wrote and dumps
 * what nlspark sees, and writes maps and masks for nibabel to open. Values are exchanged as raw
 * little-endian float64/float32 files, metadata as small JSON files.
 *
 * <pre>
 *   read OUT_DIR FILE...            OUT_DIR/BASENAME.f64, .f32 (all volumes, file order), .json
 *   masked MASK IMAGE OUT.f64       the image's first volume in nlspark's voxel order
 *   write-map MASK VALUES.f32 FILL OUT.nii.gz
 *   write-mask MASK OUT.nii.gz
 *   default-mask OUT.nii.gz FILE...
 * </pre>
 */
public final class NibabelBridge {
  private NibabelBridge() {}

  public static void main(String[] args) throws IOException {
    switch (args[0]) {
      case "read":
        for (int i = 2; i < args.length; i++) {
          dump(Path.of(args[i]), Path.of(args[1]));
        }
        break;
      case "masked": {
        NiftiMask mask = NiftiMask.read(Path.of(args[1]));
        try (NiftiReader r = NiftiReader.open(Path.of(args[2]))) {
          mask.grid().requireSame(r.header().grid(), args[2], "mask");
          double[] volume = new double[r.header().voxelsPerVolume()];
          r.readVolume(volume);
          double[] out = new double[mask.count()];
          mask.extract(volume, out, 0);
          writeDoubles(Path.of(args[3]), out);
        }
        break;
      }
      case "write-map": {
        NiftiMask mask = NiftiMask.read(Path.of(args[1]));
        ByteBuffer b = ByteBuffer.wrap(Files.readAllBytes(Path.of(args[2])))
            .order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[b.remaining() / 4];
        b.asFloatBuffer().get(values);
        NiftiWriter.writeMap(Path.of(args[4]), mask, values, Float.parseFloat(args[3]));
        break;
      }
      case "write-mask":
        NiftiWriter.writeMask(Path.of(args[2]), NiftiMask.read(Path.of(args[1])));
        break;
      case "default-mask": {
        DefaultMaskBuilder builder = null;
        NiftiHeader first = null;
        for (int i = 2; i < args.length; i++) {
          try (NiftiReader r = NiftiReader.open(Path.of(args[i]))) {
            if (first == null) {
              first = r.header();
              builder = new DefaultMaskBuilder(first.voxelsPerVolume());
            } else {
              first.grid().requireSame(r.header().grid(), args[i], args[2]);
            }
            float[] volume = new float[r.header().voxelsPerVolume()];
            for (long v = 0; v < r.header().volumes(); v++) {
              r.readVolume(volume);
              builder.add(volume);
            }
          }
        }
        NiftiWriter.writeMask(Path.of(args[1]), builder.build(first));
        break;
      }
      default:
        throw new IllegalArgumentException("unknown command: " + args[0]);
    }
  }

  private static void dump(Path file, Path outDir) throws IOException {
    String base = file.getFileName().toString().replaceAll("\\.nii(\\.gz)?$", "");
    try (NiftiReader r = NiftiReader.open(file)) {
      NiftiHeader h = r.header();
      int n = h.voxelsPerVolume();
      double[] all = new double[(int) (n * h.volumes())];
      double[] d = new double[n];
      for (long v = 0; v < h.volumes(); v++) {
        r.readVolume(d);
        System.arraycopy(d, 0, all, (int) (v * n), n);
      }
      writeDoubles(outDir.resolve(base + ".f64"), all);
      StringBuilder json = new StringBuilder("{\"shape\": ");
      json.append(List.of(box(h.shape()))).append(", \"version\": ").append(h.version())
          .append(", \"datatype\": \"").append(h.datatype().label()).append("\"")
          .append(", \"big_endian\": ").append(h.order() == ByteOrder.BIG_ENDIAN)
          .append(", \"affine_source\": \"").append(h.affineSource()).append("\"")
          .append(", \"affine\": [");
      double[][] a = h.affine();
      for (int i = 0; i < 4; i++) {
        json.append(i > 0 ? ", " : "").append('[');
        for (int j = 0; j < 4; j++) {
          json.append(j > 0 ? ", " : "").append(a[i][j]);
        }
        json.append(']');
      }
      json.append("]}\n");
      Files.writeString(outDir.resolve(base + ".json"), json, StandardCharsets.UTF_8);
    }
    try (NiftiReader r = NiftiReader.open(file)) {
      int n = r.header().voxelsPerVolume();
      ByteBuffer out = ByteBuffer.allocate((int) (4L * n * r.header().volumes()))
          .order(ByteOrder.LITTLE_ENDIAN);
      float[] f = new float[n];
      for (long v = 0; v < r.header().volumes(); v++) {
        r.readVolume(f);
        out.asFloatBuffer().position((int) (v * n)).put(f);
      }
      Files.write(outDir.resolve(base + ".f32"), out.array());
    }
  }

  private static Long[] box(long[] values) {
    Long[] boxed = new Long[values.length];
    for (int i = 0; i < values.length; i++) {
      boxed[i] = values[i];
    }
    return boxed;
  }

  private static void writeDoubles(Path path, double[] values) throws IOException {
    ByteBuffer b = ByteBuffer.allocate(8 * values.length).order(ByteOrder.LITTLE_ENDIAN);
    b.asDoubleBuffer().put(values);
    Files.write(path, b.array());
  }
}
