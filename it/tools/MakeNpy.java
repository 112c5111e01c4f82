import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;

/**
 * Writes a seeded float64 .npy with a small positive effect in the first tenth of the voxels, so
 * the integration scripts need neither numpy nor a network. Run as a single-file program:
 * {@code java MakeNpy.java OUT N V SEED}: shape (N, V); N may be a comma list for more leading
 * axes ({@code 4,30} with V = 500 is (4, 30, 500), isc's subjects x time x voxels), and V = 0
 * writes the 1-D shape (N,) (a target y).
 */
public final class MakeNpy {
  public static void main(String[] args) throws IOException {
    Path out = Path.of(args[0]);
    String[] lead = args[1].split(",");
    int n = 1;
    StringBuilder shape = new StringBuilder();
    for (String d : lead) {
      n *= Integer.parseInt(d);
      shape.append(d).append(", ");
    }
    int v = Integer.parseInt(args[2]);
    SplittableRandom rng = new SplittableRandom(Long.parseLong(args[3]));
    String dims = v == 0 ? shape.toString().trim() : shape + String.valueOf(v);
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + dims + "), }";
    int pad = (16 - (10 + dict.length() + 1) % 16) % 16;
    String header = dict + " ".repeat(pad) + "\n";
    int cols = Math.max(v, 1);
    ByteBuffer buf = ByteBuffer.allocate(10 + header.length() + 8 * n * cols)
        .order(ByteOrder.LITTLE_ENDIAN);
    buf.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1)
        .put((byte) 0).putShort((short) header.length())
        .put(header.getBytes(StandardCharsets.US_ASCII));
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < cols; j++) {
        double effect = j < v / 10 ? 0.8 : 0.0;
        // Box-Muller keeps the generator to one seeded SplittableRandom.
        double g = Math.sqrt(-2 * Math.log(1 - rng.nextDouble()))
            * Math.cos(2 * Math.PI * rng.nextDouble());
        buf.putDouble(effect + g);
      }
    }
    Files.write(out, buf.array());
  }
}
