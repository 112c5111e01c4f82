package org.nlspark.spark.data;

import java.util.List;
import org.apache.hadoop.conf.Configuration;
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
 * by a list file, a directory or a glob (DESIGN §8 order). Images need the mask's grid.
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
    if (mask == null) {
      throw new InvalidInputException("Cannot read " + what + " on the executors without a"
          + " mask: pass --mask (a 3-D NIfTI, non-zero = analysed)");
    }
    List<String> images = HadoopNiftiFiles.resolveInputs(conf, uri, flag);
    int perSplit = (int) Math.max(1, SPLIT_BYTES / (4L * mask.grid().voxels()));
    NiftiHeader first;
    try (NiftiReader reader = HadoopNiftiFiles.open(conf, images.get(0), flag)) {
      first = reader.header();
    }
    if (images.size() == 1 && first.volumes() > 1) {
      return NiftiSamples.fourD(files, images.get(0), what, mask, perSplit);
    }
    return NiftiSamples.volumes(what, images, mask, perSplit, !first.prefersDouble());
  }

  /** The mask file ({@code --mask}), read on the driver (one 3-D image). */
  public static NiftiMask mask(Configuration conf, String uri) {
    return uri == null ? null : HadoopNiftiFiles.readMask(conf, uri, "--mask");
  }
}
