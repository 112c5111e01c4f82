package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.nlspark.core.engine.RunReport;
import org.nlspark.core.result.Output;

/**
 * The identity checks of the data-plane tests (DESIGN §8): two runs of one study, read two ways,
 * give the same outputs bit for bit.
 */
final class SameOutputs {
  private SameOutputs() {}

  /** The raw bits of each value, so that -0.0, NaN payloads and the last bit all count. */
  static long[] bits(double[] v) {
    long[] out = new long[v.length];
    for (int i = 0; i < v.length; i++) {
      out[i] = Double.doubleToRawLongBits(v[i]);
    }
    return out;
  }

  /** The same output names in the same order, each with the same bits. */
  static void assertSameOutputs(RunReport expected, RunReport actual, String what) {
    assertSameOutputs(expected.result.outputs(), actual.result.outputs(), what);
  }

  static void assertSameOutputs(List<Output> a, List<Output> b, String what) {
    assertThat(b.stream().map(Output::name)).as(what)
        .containsExactlyElementsOf(a.stream().map(Output::name).toList());
    for (int i = 0; i < a.size(); i++) {
      assertThat(bits(b.get(i).values())).as(what + ": " + a.get(i).name())
          .isEqualTo(bits(a.get(i).values()));
    }
  }

  /** summary.json's {@code engine.ingest}: how the run read its inputs. */
  @SuppressWarnings("unchecked")
  static Map<String, Object> ingestOf(RunReport r) {
    return (Map<String, Object>) r.engineFacts.get("ingest");
  }

  /** The values as float32, as a float32 file holds them. */
  static float[] float32(double[] g) {
    float[] f = new float[g.length];
    for (int i = 0; i < g.length; i++) {
      f[i] = (float) g[i];
    }
    return f;
  }
}
