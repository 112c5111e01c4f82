package org.nlspark.spark.api;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.RowFactory;
import org.apache.spark.sql.SparkSession;
import org.apache.spark.sql.types.DataTypes;
import org.apache.spark.sql.types.StructField;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.result.Output;
import org.nlspark.core.result.Result;
import org.nlspark.spark.output.HadoopOutput;
import org.nlspark.spark.output.HadoopReport;
import org.nlspark.spark.output.NiftiOutputs;
import org.nlspark.spark.output.SurfaceOutputs;

/** A result taken out of the JVM: as a DataFrame, as Breeze, or written as files. */
final class ResultExport {
  private ResultExport() {}

  /**
   * One row per voxel: {@code voxel} (int), then one double column per per-voxel output, in the
   * order of DESIGN §6 (e.g. mean, std, ci_lower, ci_upper, z, p). Outputs of another shape
   * (samples, null_max) are left out; read them from {@code result.outputs()}.
   */
  static Dataset<Row> toDataFrame(SparkSession spark, Result result) {
    int voxels = result.voxels();
    List<Output> columns = new ArrayList<>();
    List<StructField> fields = new ArrayList<>();
    fields.add(DataTypes.createStructField("voxel", DataTypes.IntegerType, false));
    for (Output o : result.outputs()) {
      if (o.shape().length == 1 && o.shape()[0] == voxels) {
        columns.add(o);
        fields.add(DataTypes.createStructField(o.name(), DataTypes.DoubleType, true));
      }
    }
    List<Row> rows = new ArrayList<>(voxels);
    for (int v = 0; v < voxels; v++) {
      Object[] values = new Object[columns.size() + 1];
      values[0] = v;
      for (int c = 0; c < columns.size(); c++) {
        values[c + 1] = columns.get(c).values()[v];
      }
      rows.add(RowFactory.create(values));
    }
    return spark.createDataFrame(rows, DataTypes.createStructType(fields));
  }

  /** A Breeze vector over the same values (copied), for Scala users. */
  static breeze.linalg.DenseVector<Object> toBreeze(double[] values) {
    return new breeze.linalg.DenseVector$mcD$sp(values.clone());
  }

  /** Writes {@code summary} as summary.json next to the report's outputs. */
  static String write(Configuration conf, RunReport report, Map<String, Object> summary,
      String dir, boolean overwrite) {
    long start = System.nanoTime();
    try (HadoopOutput.OutputDir out = HadoopOutput.OutputDir.open(conf, dir, overwrite)) {
      for (Output o : report.result.outputs()) {
        out.writeNpy(o);
      }
      NiftiOutputs.write(out, "", report);
      SurfaceOutputs.write(out, "", report);
      if (PythonCall.stagedMask(report)) {
        out.writeNiftiMask(NiftiOutputs.MASK_FILE, report.mask());
      }
      Map<String, String> meshFiles = PythonCall.stagedSurfaceFiles(report);
      if (report.grayordinates() != null && !report.surface().voxelsOnly()) {
        // CIFTI: the one mesh of both cortices and the voxels, and its grayordinates, for the
        // report (the inputs name two meshes and no vertex mask)
        meshFiles.put("surface", PythonCall.MESH_FILE);
        meshFiles.put("mask", PythonCall.VERTEX_MASK_FILE);
      }
      SurfaceOutputs.writeMeshFiles(out, report, meshFiles);
      Map<String, Object> full = summary;
      if (report.mask() != null && !summary.containsKey("grid")) {
        full = new LinkedHashMap<>(summary);
        full.put("grid", NiftiOutputs.grid(report.mask(), report.maskSource(), conf));
      }
      // a Python call's staged files are gone once it returns: named by their arguments
      @SuppressWarnings("unchecked")
      Map<String, Object> named = (Map<String, Object>) PythonCall.relabel(full);
      named = SurfaceOutputs.withMeshFiles(named, meshFiles);
      out.writeJson("summary.json", withWriteTime(named, (System.nanoTime() - start) / 1e9));
      String written = out.commit();
      HadoopReport.writeOrWarn(conf, written); // report.html: last, from the finished directory
      return written;
    }
  }

  /** The summary with the time the outputs took to write, so its timings add up to the wall. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> withWriteTime(Map<String, Object> summary, double seconds) {
    Map<String, Object> m = new LinkedHashMap<>(summary);
    Object t = m.get("timings");
    if (t instanceof Map) {
      Map<String, Object> timings = new LinkedHashMap<>((Map<String, Object>) t);
      double before = ((Number) timings.getOrDefault("write_seconds", 0.0)).doubleValue();
      timings.put("write_seconds", seconds);
      timings.put("wall_seconds",
          ((Number) timings.get("wall_seconds")).doubleValue() - before + seconds);
      m.put("timings", timings);
    }
    return m;
  }
}
