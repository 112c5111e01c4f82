package org.nlspark.core.io.nifti;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class NiftiGridTest {
  private static final double[][] MNI = {
    {-2, 0, 0, 90}, {0, 2, 0, -126}, {0, 0, 2, -72}, {0, 0, 0, 1}
  };

  @Test
  void differentDimsAreNamed() {
    NiftiGrid mask = new NiftiGrid(new int[] {64, 64, 40}, MNI);
    NiftiGrid image = new NiftiGrid(new int[] {91, 109, 91}, MNI);
    assertThatThrownBy(() -> mask.requireSame(image, "sub-01.nii.gz", "mask"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("Cannot use sub-01.nii.gz: its grid differs from the mask's:"
            + " dims (91,109,91) vs mask (64,64,40)");
  }

  @Test
  void largestAffineDifferenceIsNamedAndSmallOnesPass() {
    NiftiGrid mask = new NiftiGrid(new int[] {91, 109, 91}, MNI);
    double[][] shifted = new NiftiGrid(new int[] {91, 109, 91}, MNI).affine();
    shifted[0][3] += 2.0;
    shifted[1][1] += 0.5;
    assertThatThrownBy(() -> mask.requireSame(new NiftiGrid(new int[] {91, 109, 91}, shifted),
            "sub-02.nii", "mask"))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageContaining("sub-02.nii")
        .hasMessageContaining("affine differs by 2.0 at [0][3] (92.0 vs mask 90.0");
    double[][] close = mask.affine();
    close[2][3] += 0.9e-4;
    mask.requireSame(new NiftiGrid(new int[] {91, 109, 91}, close), "ok.nii", "mask");
    close[2][3] += 0.2e-4;
    assertThat(mask.difference(new NiftiGrid(new int[] {91, 109, 91}, close), "mask"))
        .startsWith("affine differs by 1.1");
  }
}
