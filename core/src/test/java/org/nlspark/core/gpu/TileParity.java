package org.nlspark.core.gpu;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.nlspark.core.job.JobInputs;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.resample.ResamplingPlan;
import org.nlspark.core.tile.Grid;
import org.nlspark.core.tile.PartialResult;
import org.nlspark.core.tile.TileExecutor;
import org.nlspark.core.tile.TilePlan;
import org.nlspark.core.tile.TilePlanner;
import org.nlspark.core.tile.TileSpec;

/**
 * Bit-for-bit comparison of {@link GpuTileExecutor} on a {@link Device} with the CPU
 * {@link TileExecutor}, tile by tile: observed statistics, exceedance counts, null maxima, tails,
 * saved samples and window moments. Every NaN equals every NaN (payloads differ between devices);
 * +0.0 and -0.0 differ. Shared by the host-build parity suite and the device check.
 */
final class TileParity {
  private TileParity() {}

  /** {cpu, device} per tile, and the device's peak memory when it is a {@link HostDevice}. */
  static final class Results extends ArrayList<PartialResult[]> {
    private static final long serialVersionUID = 1L;
    long peak;
    /** The first difference found, or null when every tile is the same. */
    String difference;
  }

  /** Runs every tile of the job on the CPU and on {@code device}, recording the first difference. */
  static Results run(Device device, JobSpec spec, JobInputs inputs, Grid grid) {
    ResamplingPlan resampling = ResamplingPlan.forJob(spec, inputs);
    int tail = TilePlanner.tailSize(spec, resampling.replicates());
    TilePlan plan = new TilePlan(grid, inputs.voxels(), resampling.replicates(), 6, 1, 0, tail,
        1.0, "parity");
    Results results = new Results();
    for (TileSpec tile : plan.tiles()) {
      PartialResult cpu = TileExecutor.execute(spec, inputs, resampling, plan, tile);
      PartialResult other = GpuTileExecutor.execute(device, spec, inputs, resampling, plan, tile);
      if (results.difference == null) {
        String d = difference(cpu, other);
        if (d != null) {
          results.difference = spec.analysis().command() + " " + spec.statistic() + " "
              + spec.precision().label() + " tail " + spec.tail().cliName() + " fwer "
              + spec.fwer() + " tile " + tile.index() + ": " + d;
        }
      }
      results.add(new PartialResult[] {cpu, other});
    }
    if (device instanceof HostDevice) {
      results.peak = ((HostDevice) device).peakBytes();
    }
    return results;
  }

  /** The first difference between two results of one tile, or null when they are the same. */
  static String difference(PartialResult cpu, PartialResult other) {
    List<String> d = new ArrayList<>();
    if (cpu.undefinedVoxels != other.undefinedVoxels) {
      d.add("undefined voxels " + other.undefinedVoxels + " vs " + cpu.undefinedVoxels);
    }
    differ(d, "observed", cpu.observed, other.observed);
    if ((cpu.counts == null) != (other.counts == null)) {
      d.add("counts present " + (other.counts != null) + " vs " + (cpu.counts != null));
    } else if (cpu.counts != null) {
      if (!Arrays.equals(cpu.counts.toBytes(), other.counts.toBytes())) {
        long[] a = cpu.counts.counts();
        long[] b = other.counts.counts();
        int v = 0;
        while (v < a.length && a[v] == b[v]) {
          v++;
        }
        d.add(v < a.length ? "count of voxel " + v + " " + b[v] + " vs " + a[v]
            : "counts' replicate totals " + other.counts.n() + " vs " + cpu.counts.n());
      }
    }
    if ((cpu.nullMax == null) != (other.nullMax == null)) {
      d.add("null maxima present " + (other.nullMax != null) + " vs " + (cpu.nullMax != null));
    } else if (cpu.nullMax != null) {
      differ(d, "null maxima", cpu.nullMax.maxima(), other.nullMax.maxima());
    }
    if (cpu.tails != null && (other.tails == null
        || !Arrays.equals(cpu.tails.toBytes(), other.tails.toBytes()))) {
      d.add("percentile tails differ");
    }
    if (cpu.samples != null && (other.samples == null
        || !Arrays.equals(cpu.samples.toBytes(), other.samples.toBytes()))) {
      d.add("saved samples differ");
    }
    if ((cpu.windowMoments == null) != (other.windowMoments == null)) {
      d.add("window moments present " + (other.windowMoments != null) + " vs "
          + (cpu.windowMoments != null));
    } else if (cpu.windowMoments != null) {
      if (cpu.windowMoments.length != other.windowMoments.length) {
        d.add("window moments " + other.windowMoments.length + " vs "
            + cpu.windowMoments.length);
      } else {
        for (int k = 0; k < cpu.windowMoments.length; k++) {
          if (cpu.windowMoments[k].n() != other.windowMoments[k].n()) {
            d.add("window " + k + " moment count");
          }
          differ(d, "window " + k + " mean", cpu.windowMoments[k].mean(),
              other.windowMoments[k].mean());
          differ(d, "window " + k + " m2", cpu.windowMoments[k].m2(),
              other.windowMoments[k].m2());
        }
      }
    }
    return d.isEmpty() ? null : d.get(0);
  }

  private static void differ(List<String> d, String what, double[] cpu, double[] other) {
    if (cpu == null || other == null) {
      if (cpu != other) {
        d.add(what + " present " + (other != null) + " vs " + (cpu != null));
      }
      return;
    }
    if (cpu.length != other.length) {
      d.add(what + " length " + other.length + " vs " + cpu.length);
      return;
    }
    for (int i = 0; i < cpu.length; i++) {
      if (Double.doubleToLongBits(cpu[i]) != Double.doubleToLongBits(other[i])) {
        d.add(what + "[" + i + "] " + other[i] + " vs " + cpu[i]);
        return;
      }
    }
  }
}
