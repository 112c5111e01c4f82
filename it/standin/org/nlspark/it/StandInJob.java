package org.nlspark.it;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import scala.Tuple2;

/**
 * Stand-in for the nlspark application jar while the integration harness is built: the same
 * command line shape ({@code one-sample} / {@code bootstrap}, {@code --input --output --seed
 * --partitions --permutations --samples}), replicate draws that depend only on (seed, replicate),
 * work spread over Spark tasks and partials folded in a fixed order — so outputs are meant to be
 * byte-identical for any partitioning, executor loss or task retry, which is what the harness
 * checks. It is not the statistics engine and does not ship.
 */
public final class StandInJob {
  private static final int WINDOW = 64;

  public static void main(String[] args) throws IOException {
    String command = args[0];
    Map<String, String> opt = new HashMap<>();
    for (int i = 1; i + 1 < args.length; i += 2) {
      opt.put(args[i], args[i + 1]);
    }
    double[][] x = readNpy(Path.of(opt.get("--input")));
    Path out = Path.of(opt.get("--output"));
    long seed = Long.parseLong(opt.getOrDefault("--seed", "0"));
    int partitions = Integer.parseInt(opt.getOrDefault("--partitions", "4"));
    SparkSession.Builder builder = SparkSession.builder().appName("nlspark-standin " + command);
    if (opt.containsKey("--master")) {
      builder.master(opt.get("--master"));
    }
    SparkSession spark = builder.getOrCreate();
    JavaSparkContext sc = JavaSparkContext.fromSparkContext(spark.sparkContext());
    Files.createDirectories(out);
    int n = x.length;
    int v = x[0].length;
    if (command.equals("one-sample")) {
      int p = Integer.parseInt(opt.getOrDefault("--permutations", "1000"));
      double[] obs = new double[v];
      for (double[] row : x) {
        for (int j = 0; j < v; j++) {
          obs[j] += row[j] / n;
        }
      }
      List<Integer> windows = new ArrayList<>();
      for (int w = 0; w * WINDOW < p; w++) {
        windows.add(w);
      }
      // Each window: exceedance counts (exact, any order) and the max statistic per permutation.
      List<Tuple2<long[], double[]>> parts = sc.parallelize(windows, partitions).map(w -> {
        long[] count = new long[v];
        int lo = w * WINDOW;
        int hi = Math.min(p, lo + WINDOW);
        double[] max = new double[hi - lo];
        double[] nul = new double[v];
        for (int r = lo; r < hi; r++) {
          SplittableRandom rng = new SplittableRandom(mix(seed, r));
          java.util.Arrays.fill(nul, 0);
          for (int i = 0; i < n; i++) {
            double s = rng.nextBoolean() ? 1.0 : -1.0;
            for (int j = 0; j < v; j++) {
              nul[j] += s * x[i][j] / n;
            }
          }
          double m = 0;
          for (int j = 0; j < v; j++) {
            if (Math.abs(nul[j]) >= Math.abs(obs[j])) {
              count[j]++;
            }
            m = Math.max(m, Math.abs(nul[j]));
          }
          max[r - lo] = m;
        }
        return new Tuple2<>(count, max);
      }).collect();
      long[] count = new long[v];
      double[] nullMax = new double[p];
      for (int w = 0; w < parts.size(); w++) {
        for (int j = 0; j < v; j++) {
          count[j] += parts.get(w)._1()[j];
        }
        System.arraycopy(parts.get(w)._2(), 0, nullMax, w * WINDOW, parts.get(w)._2().length);
      }
      double[] pv = new double[v];
      double[] pf = new double[v];
      for (int j = 0; j < v; j++) {
        pv[j] = (count[j] + 1.0) / (p + 1.0);
        long c = 0;
        for (double m : nullMax) {
          if (m >= Math.abs(obs[j])) {
            c++;
          }
        }
        pf[j] = (c + 1.0) / (p + 1.0);
      }
      writeNpy(out.resolve("observed.npy"), obs);
      writeNpy(out.resolve("p.npy"), pv);
      writeNpy(out.resolve("p_fwer.npy"), pf);
      writeNpy(out.resolve("null_max.npy"), nullMax);
    } else if (command.equals("bootstrap")) {
      int b = Integer.parseInt(opt.getOrDefault("--samples", "1000"));
      List<Integer> windows = new ArrayList<>();
      for (int w = 0; w * WINDOW < b; w++) {
        windows.add(w);
      }
      // Per window: sum and sum of squares of the replicate means; folded in window order.
      List<double[][]> parts = sc.parallelize(windows, partitions).map(w -> {
        double[] sum = new double[v];
        double[] sq = new double[v];
        double[] mean = new double[v];
        for (int r = w * WINDOW; r < Math.min(b, (w + 1) * WINDOW); r++) {
          SplittableRandom rng = new SplittableRandom(mix(seed, r));
          java.util.Arrays.fill(mean, 0);
          for (int i = 0; i < n; i++) {
            double[] row = x[rng.nextInt(n)];
            for (int j = 0; j < v; j++) {
              mean[j] += row[j] / n;
            }
          }
          for (int j = 0; j < v; j++) {
            sum[j] += mean[j];
            sq[j] += mean[j] * mean[j];
          }
        }
        return new double[][] {sum, sq};
      }).collect();
      double[] sum = new double[v];
      double[] sq = new double[v];
      for (double[][] part : parts) {
        for (int j = 0; j < v; j++) {
          sum[j] += part[0][j];
          sq[j] += part[1][j];
        }
      }
      double[] mean = new double[v];
      double[] std = new double[v];
      for (int j = 0; j < v; j++) {
        mean[j] = sum[j] / b;
        std[j] = Math.sqrt(Math.max(0, (sq[j] - b * mean[j] * mean[j]) / (b - 1)));
      }
      writeNpy(out.resolve("mean.npy"), mean);
      writeNpy(out.resolve("std.npy"), std);
    } else {
      throw new IllegalArgumentException("stand-in knows one-sample and bootstrap, not: " + command);
    }
    Files.writeString(out.resolve("summary.json"), "{\"command\": \"" + command + "\"}\n");
    spark.stop();
  }

  private static long mix(long seed, long index) {
    long z = seed + 0x9E3779B97F4A7C15L * (index + 1);
    z = (z ^ (z >>> 30)) * 0xBF58476D1CE4E5B9L;
    z = (z ^ (z >>> 27)) * 0x94D049BB133111EBL;
    return z ^ (z >>> 31);
  }

  static double[][] readNpy(Path path) throws IOException {
    byte[] all = Files.readAllBytes(path);
    int headerLen = (all[8] & 0xff) | (all[9] & 0xff) << 8;
    String header = new String(all, 10, headerLen, StandardCharsets.US_ASCII);
    String shape = header.replaceAll(".*'shape': \\((\\d+), (\\d+)\\).*", "$1 $2").trim();
    String[] dims = shape.split(" ");
    int n = Integer.parseInt(dims[0]);
    int v = Integer.parseInt(dims[1]);
    ByteBuffer buf = ByteBuffer.wrap(all, 10 + headerLen, n * v * 8).order(ByteOrder.LITTLE_ENDIAN);
    double[][] x = new double[n][v];
    for (int i = 0; i < n; i++) {
      for (int j = 0; j < v; j++) {
        x[i][j] = buf.getDouble();
      }
    }
    return x;
  }

  static void writeNpy(Path path, double[] values) throws IOException {
    String dict = "{'descr': '<f8', 'fortran_order': False, 'shape': (" + values.length + ",), }";
    int pad = 16 - (10 + dict.length() + 1) % 16;
    String header = dict + " ".repeat(pad % 16) + "\n";
    ByteBuffer buf = ByteBuffer.allocate(10 + header.length() + 8 * values.length)
        .order(ByteOrder.LITTLE_ENDIAN);
    buf.put((byte) 0x93).put("NUMPY".getBytes(StandardCharsets.US_ASCII)).put((byte) 1)
        .put((byte) 0).putShort((short) header.length())
        .put(header.getBytes(StandardCharsets.US_ASCII));
    for (double d : values) {
      buf.putDouble(d);
    }
    Files.write(path, buf.array());
  }
}
