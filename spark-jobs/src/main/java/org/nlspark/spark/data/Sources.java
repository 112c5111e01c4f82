package org.nlspark.spark.data;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.api.java.JavaSparkContext;
import org.apache.spark.sql.SparkSession;
import org.nlspark.core.io.nifti.DefaultMaskBuilder;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.NiftiSamples;
import org.nlspark.core.data.NpySamples;
import org.nlspark.core.data.SampleSource;
import org.nlspark.core.io.nifti.NiftiHeader;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.io.nifti.NiftiReader;
import org.nlspark.spark.io.HadoopNiftiFiles;

/**
 * Describes an {@code --input} as a {@link SampleSource} from Hadoop paths, reading headers
 * only: an {@code .npy} (row ranges), one 4-D NIfTI (volume ranges), or 3-D NIfTI files named
 * by a list file, a directory or a glob (DESIGN §8 order). Images without a mask get the whole
 * grid; {@link #withDefaultMask} then computes the default mask on the executors.
 */
public final class Sources {
  /** About how many bytes of values one read split holds (one task's read, in float32). */
  public static final long SPLIT_BYTES = 64L << 20;

  private Sources() {}

  /** An input path: .npy by its name, else NIfTI images (which need {@code mask}). */
  public static SampleSource describe(Configuration conf, String uri, NiftiMask mask,
      String flag) {
    HadoopOpener files = new HadoopOpener(conf);
    String what = flag + " " + uri;
    if (uri.endsWith(".npy")) {
      if (mask != null) {
        throw new InvalidInputException("Cannot use --mask with " + what + ": an .npy has no"
            + " grid; mask it before saving, or pass NIfTI images");
      }
      return NpySamples.describe(files, uri, what, SPLIT_BYTES);
    }
    List<String> images = HadoopNiftiFiles.resolveInputs(conf, uri, flag);
    NiftiHeader first;
    try (NiftiReader reader = HadoopNiftiFiles.open(conf, images.get(0), flag)) {
      first = reader.header();
    }
    // Without --mask, the sources get the whole grid until the default mask is built.
    NiftiMask grid = mask != null ? mask
        : NiftiMask.fromSelection(first, allVoxels(first.voxelsPerVolume()), what);
    int perSplit = (int) Math.max(1, SPLIT_BYTES / (4L * grid.grid().voxels()));
    if (images.size() == 1 && first.volumes() > 1) {
      return NiftiSamples.fourD(files, images.get(0), what, grid, perSplit);
    }
    return NiftiSamples.volumes(what, images, grid, perSplit, !first.prefersDouble());
  }

  private static boolean[] allVoxels(int n) {
    boolean[] all = new boolean[n];
    java.util.Arrays.fill(all, true);
    return all;
  }

  /**
   * The default mask of DESIGN §8 (every voxel finite in every sample and non-zero in at least
   * one), built by the executors in one pass over the files (O(grid) bits per task reach the
   * driver), and the source with it. {@code source} is an image source of {@link #describe}
   * without a mask.
   */
  public static NiftiSamples withDefaultMask(SparkSession spark, NiftiSamples source) {
    HadoopOpener files = new HadoopOpener(spark.sparkContext().hadoopConfiguration());
    List<Integer> splits = new java.util.ArrayList<>();
    for (int s = 0; s < source.splits(); s++) {
      splits.add(s);
    }
    DefaultMaskBuilder built = JavaSparkContext.fromSparkContext(spark.sparkContext())
        .parallelize(splits, Math.max(1, splits.size()))
        .map(s -> source.scan(s, files))
        .treeReduce(DefaultMaskBuilder::merge);
    return source.withMask(built.build(source.mask().geometry()));
  }

  /** The mask file ({@code --mask}), read on the driver (one 3-D image). */
  public static NiftiMask mask(Configuration conf, String uri) {
    return uri == null ? null : HadoopNiftiFiles.readMask(conf, uri, "--mask");
  }
}
