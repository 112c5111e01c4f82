package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.nlspark.core.io.nifti.NiftiDatatype;
import org.nlspark.core.io.nifti.NiftiMask;
import org.nlspark.core.tile.Grid;
import org.nlspark.spark.api.NlsparkOptions;

/**
 * {@link NlsparkOptions#copy()} copies every field (each set here by reflection to a value
 * unlike its default, so a field added without a line in copy() fails this test), and the copy
 * is independent: setting an option on it leaves the original as it was.
 */
class NlsparkOptionsCopyTest {

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

  /** A value of {@code f}'s type that no default has, different for each field. */
  private static Object unlikeDefault(Field f, int i) {
    Class<?> t = f.getType();
    if (t == String.class) {
      return "value-of-" + f.getName();
    } else if (t == Long.class) {
      return 1000L + i;
    } else if (t == Integer.class) {
      return 100 + i;
    } else if (t == Double.class) {
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
    return fail("no test value for " + f.getName() + " of type " + t.getName()
        + ": add one here");
  }

  @Test
  void copyCarriesEveryFieldAndIsIndependent() throws Exception {
    List<Field> fields = fields();
    assertThat(fields).hasSizeGreaterThan(30);
    NlsparkOptions original = NlsparkOptions.defaults();
    NlsparkOptions defaults = NlsparkOptions.defaults();
    for (int i = 0; i < fields.size(); i++) {
      Field f = fields.get(i);
      Object v = unlikeDefault(f, i);
      assertThat(v).as(f.getName()).isNotEqualTo(f.get(defaults));
      f.set(original, v);
    }
    NlsparkOptions copy = original.copy();
    assertThat(copy).isNotSameAs(original);
    for (Field f : fields) {
      assertThat(f.get(copy)).as(f.getName()).isEqualTo(f.get(original));
    }
    // independent: changing the copy leaves the original
    copy.seed(1).replicates(2).maskFile("other.nii.gz").mask(null).tfce(false).partitions(1)
        .fdr(false).fContrasts(null);
    assertThat(original.maskFile()).isEqualTo("value-of-maskFile");
    assertThat(original.mask()).isNotNull();
    assertThat(original.tfce()).isTrue();
    assertThat(original.partitions()).isNotEqualTo(1);
    assertThat(original.fdr()).isTrue();
    assertThat(original.fContrasts()).isEqualTo("value-of-fContrasts");
    // a copy of the defaults is the defaults
    NlsparkOptions plain = defaults.copy();
    for (Field f : fields) {
      assertThat(f.get(plain)).as(f.getName()).isEqualTo(f.get(defaults));
    }
  }
}
