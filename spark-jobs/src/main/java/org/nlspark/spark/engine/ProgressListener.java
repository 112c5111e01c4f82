package org.nlspark.spark.engine;

import java.io.PrintStream;
import java.util.HashSet;
import java.util.Set;
import org.apache.spark.scheduler.SparkListener;
import org.apache.spark.scheduler.SparkListenerJobStart;
import org.apache.spark.scheduler.SparkListenerTaskEnd;

/**
 * A one-line progress report on stderr for one engine run: first, when the inputs are read into
 * voxel blocks (jobs described with {@link SparkEngine#INGEST_JOB_MARK}), the reading tasks done
 * / total; then tiles done / total,
 * replicates per second and an ETA, redrawn in place at most twice a second. Only tasks of the run's own Spark
 * job (tagged with {@link SparkEngine#RUN_ID_PROPERTY}) count. Silent unless enabled: callers
 * enable it only when stderr is a terminal and {@code --quiet} is off.
 */
final class ProgressListener extends SparkListener {
  private static final long REDRAW_NANOS = 500_000_000L;

  private final String runId;
  private final int tiles;
  private final long replicates;
  private final int partitions;
  private final boolean enabled;
  private final PrintStream err = System.err;
  private final Set<Integer> stages = new HashSet<>();
  private final Set<Integer> donePartitions = new HashSet<>();
  private final long start = System.nanoTime();
  private final Set<Integer> ingestStages = new HashSet<>();
  private final Set<Long> ingestDone = new HashSet<>();
  private int ingestTasks;
  private long lastDraw;
  private boolean drawn;

  ProgressListener(String runId, int tiles, long replicates, int partitions, boolean enabled) {
    this.runId = runId;
    this.tiles = tiles;
    this.replicates = replicates;
    this.partitions = partitions;
    this.enabled = enabled;
  }

  @Override
  public synchronized void onJobStart(SparkListenerJobStart jobStart) {
    if (jobStart.properties() != null
        && runId.equals(jobStart.properties().getProperty(SparkEngine.RUN_ID_PROPERTY))) {
      // events arrive late, on the listener bus: a job is told by its description
      String description = jobStart.properties().getProperty("spark.job.description");
      boolean ingest = description != null && description.contains(SparkEngine.INGEST_JOB_MARK);
      scala.collection.Iterator<org.apache.spark.scheduler.StageInfo> it =
          jobStart.stageInfos().iterator();
      while (it.hasNext()) {
        org.apache.spark.scheduler.StageInfo stage = it.next();
        if (!ingest) {
          stages.add(stage.stageId());
        } else if (ingestStages.add(stage.stageId())) {
          ingestTasks += stage.numTasks();
        }
      }
    }
  }

  @Override
  public synchronized void onTaskEnd(SparkListenerTaskEnd taskEnd) {
    if (ingestStages.contains(taskEnd.stageId()) && taskEnd.taskInfo().successful()) {
      ingestDone.add(taskEnd.taskInfo().taskId());
      long now = System.nanoTime();
      if (enabled && (now - lastDraw > REDRAW_NANOS || ingestDone.size() == ingestTasks)) {
        lastDraw = now;
        err.printf("\r%-64s", String.format("[nlspark] reading the inputs into voxel blocks:"
            + " tasks %d/%d", ingestDone.size(), ingestTasks));
        err.flush();
        drawn = true;
      }
      return;
    }
    if (!stages.contains(taskEnd.stageId()) || !taskEnd.taskInfo().successful()) {
      return;
    }
    donePartitions.add(taskEnd.taskInfo().index());
    long now = System.nanoTime();
    if (enabled && (now - lastDraw > REDRAW_NANOS || donePartitions.size() == partitions)) {
      lastDraw = now;
      draw(now);
    }
  }

  private void draw(long now) {
    // Tiles are spread evenly over partitions, so the done fraction of partitions is the
    // done fraction of tiles (and of replicate work).
    double fraction = partitions == 0 ? 1 : (double) donePartitions.size() / partitions;
    double seconds = (now - start) / 1e9;
    double rate = seconds > 0 ? fraction * replicates / seconds : 0;
    double eta = fraction > 0 ? seconds * (1 - fraction) / fraction : Double.NaN;
    // padded to the reading line's width, so nothing of it is left on the line
    err.printf("\r%-64s", String.format("[nlspark] tiles %d/%d  %.0f replicates/s  ETA %s",
        Math.round(fraction * tiles), tiles, rate,
        Double.isNaN(eta) ? "?" : String.format("%.0fs", eta)));
    err.flush();
    drawn = true;
  }

  /** Ends the line so later messages start on a fresh line. */
  synchronized void finish() {
    if (enabled && drawn) {
      err.println();
    }
  }
}
