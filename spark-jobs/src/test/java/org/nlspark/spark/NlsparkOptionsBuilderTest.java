package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.job.Analysis;
import org.nlspark.core.job.JobSpec;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@link NlsparkOptions} is an immutable value whose builder carries every setting: each field
 * is set here through the {@link NlsparkOptions.Builder} setter of its name (found by
 * reflection, to a value unlike its default), so a field added without a setter, without a line
 * in the constructor, in {@link NlsparkOptions#toBuilder()} or in equals fails this test.
 */
class NlsparkOptionsBuilderTest {

  private static List<Field> fields() {
    List<Field> out = new ArrayList<>();
    for (Field f : NlsparkOptions.class.getDeclaredFields()) {
      if (!Modifier.isStatic(f.getModifiers())) {
        f.setAccessible(true);
        out.add(f);
      }
    }
    return out;
  }

  /** The builder's setter of {@code f}: same name, one parameter. */
  private static Method setter(Field f) {
    for (Method m : NlsparkOptions.Builder.class.getMethods()) {
      if (m.getName().equals(f.getName()) && m.getParameterCount() == 1
          && m.getReturnType() == NlsparkOptions.Builder.class) {
        return m;
      }
    }
    return fail("NlsparkOptions." + f.getName() + " has no setter of that name on the Builder");
  }

  /** A value of type {@code t} that no default has, different for each field. */
  private static Object unlikeDefault(Class<?> t, String name, int i) {
    if (t == String.class) {
      return "value-of-" + name;
    } else if (t == Long.class || t == long.class) {
      return 1000L + i;
    } else if (t == Integer.class || t == int.class) {
      return 100 + i;
    } else if (t == Double.class || t == double.class) {
      return 0.5 + i;
    } else if (t == Boolean.class || t == boolean.class) {
      return Boolean.TRUE;
    } else if (t.isEnum()) {
      Object[] constants = t.getEnumConstants();
      return constants[constants.length - 1];
    } else if (t == Grid.class) {
      return new Grid(64, 32);
    } else if (t == NiftiMask.class) {
      return NiftiMask.fromSelection(NiftiStudy.header(NiftiDatatype.UINT8, 2, 2, 1),
          new boolean[] {true, false, true, true}, "mask");
    }
    return fail("no test value for " + name + " of type " + t.getName() + ": add one here");
  }

  private static Map<String, Object> values(NlsparkOptions o) throws IllegalAccessException {
    Map<String, Object> m = new LinkedHashMap<>();
    for (Field f : fields()) {
      m.put(f.getName(), f.get(o));
    }
    return m;
  }

  @Test
  void everyFieldIsFinalAndTheValueHasNoSetter() {
    List<Field> fields = fields();
    assertThat(fields).hasSizeGreaterThan(30);
    for (Field f : fields) {
      assertThat(Modifier.isFinal(f.getModifiers())).as(f.getName() + " is final").isTrue();
    }
    for (Method m : NlsparkOptions.class.getMethods()) {
      if (!Modifier.isStatic(m.getModifiers()) && !m.getName().equals("toBuilder")) {
        assertThat(m.getReturnType()).as(m.getName() + " returns no options or builder")
            .isNotIn(NlsparkOptions.class, NlsparkOptions.Builder.class);
      }
    }
  }

  @Test
  void everyFieldSurvivesTheBuilderRoundTrip() throws Exception {
    List<Field> fields = fields();
    NlsparkOptions defaults = NlsparkOptions.defaults();
    NlsparkOptions.Builder b = NlsparkOptions.builder();
    Map<String, Object> set = new LinkedHashMap<>();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      Method setter = setter(f);
      Object v = unlikeDefault(setter.getParameterTypes()[0], f.getName(), i);
      assertThat(v).as(f.getName()).isNotEqualTo(f.get(defaults));
      setter.invoke(b, v);
      set.put(f.getName(), v);
    }
    NlsparkOptions built = b.build();
    assertThat(values(built)).as("built: every setter sets its field").isEqualTo(set);

    NlsparkOptions again = built.toBuilder().build();
    assertThat(again).isNotSameAs(built);
    assertThat(values(again)).as("toBuilder().build()").isEqualTo(set);
    assertThat(again).isEqualTo(built).hasSameHashCodeAs(built);

    // the builder goes on without touching what it built
    b.seed(1).maskFile("other.nii.gz").mask(null).tfce(false).partitions(1).fdr(false);
    assertThat(values(built)).isEqualTo(set);
    assertThat(b.build()).isNotEqualTo(built);

    // a round trip of the defaults is the defaults
    NlsparkOptions plain = defaults.toBuilder().build();
    assertThat(values(plain)).isEqualTo(values(defaults));
    assertThat(plain).isEqualTo(defaults).isEqualTo(NlsparkOptions.builder().build());
  }

  @Test
  void equalsSeesEveryField() throws Exception {
    List<Field> fields = fields();
    NlsparkOptions defaults = NlsparkOptions.defaults();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      Method setter = setter(f);
      NlsparkOptions.Builder b = NlsparkOptions.builder();
      setter.invoke(b, unlikeDefault(setter.getParameterTypes()[0], f.getName(), i));
      assertThat(b.build()).as("differs only in " + f.getName()).isNotEqualTo(defaults);
    }
  }

  private static List<Object> settings(JobSpec s) {
    return Arrays.asList(s.statistic(), s.replicates(), s.seed(), s.tail(), s.fwer(),
        s.confidence(), s.ci(), s.saveSamples(), s.precision(), s.precisionExplicit(),
        s.backend(), s.memoryBudgetGb(), s.tailApproximation());
  }

  @Test
  void theDefaultsAreJobSpecs() {
    NlsparkOptions o = NlsparkOptions.defaults();
    assertThat(o.grid()).isEqualTo(Grid.DEFAULT);
    assertThat(o.partitions()).isNull();
    for (Analysis a : Analysis.values()) {
      JobSpec got = o.toSpec(a);
      JobSpec core = JobSpec.builder(a).build();
      assertThat(settings(got)).as(a.command()).isEqualTo(settings(core));
      assertThat(got.replicates()).isEqualTo(a == Analysis.BOOTSTRAP
          ? JobSpec.DEFAULT_BOOTSTRAP_SAMPLES : JobSpec.DEFAULT_PERMUTATIONS);
    }
    assertThat(o.toGlmOptions(null, null).permutations())
        .isEqualTo(JobSpec.DEFAULT_PERMUTATIONS);
    assertThat(o.toRidgeOptions().samples()).isEqualTo(JobSpec.DEFAULT_BOOTSTRAP_SAMPLES);
    assertThat(o.toTimeSeriesOptions().permutations()).isEqualTo(JobSpec.DEFAULT_PERMUTATIONS);
  }
}
