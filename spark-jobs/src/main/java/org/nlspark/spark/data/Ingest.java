package org.nlspark.spark.data;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.spark.sql.SparkSession;
import org.nlspark.spark.conf.NlsparkConf;

/**
 * Where a run's samples are read (DESIGN §8), decided once per run from {@link
 * NlsparkConf#INGEST} and the inputs' size: on the executors (into voxel blocks, or, for ridge,
 * each task reading them whole) or on the driver, then broadcast. The outputs are the same bytes
 * either way. {@link #facts()} is summary.json's engine.ingest: the decision and its reason
 * first, then what the engine adds as it reads (timings, blocks, storage).
 */
public final class Ingest {
  /** Where the samples are read; its label is engine.ingest's "mode". */
  public enum Where {
    /** Executors read them into voxel blocks. */
    BLOCKS("blocks"),
    /** Each task reads them whole where it runs (ridge: every replicate takes all of X). */
    EXECUTORS("executors"),
    /** The driver reads them and broadcasts them. */
    BROADCAST("broadcast");

    public final String label;

    Where(String label) {
      this.label = label;
    }
  }

  private final Where where;
  private final Map<String, Object> facts = new LinkedHashMap<>();

  private Ingest(Where where, String requested, String reason) {
    this.where = where;
    facts.put("mode", where.label);
    facts.put("requested", requested);
    facts.put("reason", reason);
  }

  /**
   * Voxel blocks for inputs of at least {@link NlsparkConf#INGEST_BLOCKS_MIN_BYTES}, else
   * broadcast.
   */
  public static Ingest of(SparkSession spark, DistributedInputs inputs) {
    Ingest ingest = decide(spark, inputs.float64Bytes(), Where.BLOCKS, "");
    ingest.facts.putAll(inputs.toMap());
    return ingest;
  }

  /**
   * ridge-bootstrap's: each task reads X, Y and X_test whole on its executor (there are no voxel
   * blocks: every replicate's SVD takes all of X) for inputs of {@code float64Bytes} at least
   * {@link NlsparkConf#INGEST_BLOCKS_MIN_BYTES}, or with {@code spark.nlspark.ingest=blocks};
   * else read here and broadcast.
   */
  public static Ingest whole(SparkSession spark, long float64Bytes, String source) {
    Ingest ingest = decide(spark, float64Bytes, Where.EXECUTORS, "; every ridge replicate takes"
        + " all of X, so each task reads the inputs whole (no voxel blocks)");
    ingest.facts.put("source", source);
    ingest.facts.put("precision", "float64");
    ingest.facts.put("float64_bytes", float64Bytes);
    return ingest;
  }

  /**
   * The one rule: {@code onExecutors} where {@link NlsparkConf#INGEST} is blocks, or auto and
   * the inputs hold at least {@link NlsparkConf#INGEST_BLOCKS_MIN_BYTES}; else broadcast. {@code
   * why} is added to the reason of an executor read.
   */
  private static Ingest decide(SparkSession spark, long bytes, Where onExecutors, String why) {
    String mode = NlsparkConf.ingest(spark);
    long min = NlsparkConf.ingestBlocksMinBytes(spark);
    boolean executors = mode.equals("blocks") || (mode.equals("auto") && bytes >= min);
    String reason = mode.equals("auto")
        ? String.format("inputs hold %d bytes as float64, %s the %d of %s", bytes,
            executors ? "at least" : "below", min, NlsparkConf.INGEST_BLOCKS_MIN_BYTES)
        : NlsparkConf.INGEST + "=" + mode;
    return executors ? new Ingest(onExecutors, mode, reason + why)
        : new Ingest(Where.BROADCAST, mode, reason);
  }

  /** Whether the executors read the samples (voxel blocks, or whole per task). */
  public boolean onExecutors() {
    return where != Where.BROADCAST;
  }

  /** Reads the samples on the driver, timed as engine.ingest's driver_read_seconds. */
  public <T> T readHere(Supplier<T> read) {
    long start = System.nanoTime();
    T value = read.get();
    facts.put("driver_read_seconds", (System.nanoTime() - start) / 1e9);
    return value;
  }

  /** A fact the engine learns as it reads (timings, blocks, storage), in engine.ingest. */
  public void put(String key, Object value) {
    facts.put(key, value);
  }

  /** engine.ingest of summary.json (the live map, which the engine's facts join). */
  public Map<String, Object> facts() {
    return facts;
  }
}
