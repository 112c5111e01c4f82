package org.nlspark.core.backend;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class BlasTest {
  @Test
  void bundledOpenBlasIsActiveAndComputes() {
    System.out.println(Blas.describe());
    assertThat(Blas.isNativeOpenBlas()).as(Blas.describe()).isTrue();
    double[] a = {1, 2, 3, 4}; // 2x2 column-major
    double[] b = {5, 6, 7, 8};
    double[] c = new double[4];
    Blas.get().dgemm("N", "N", 2, 2, 2, 1.0, a, 2, b, 2, 0.0, c, 2);
    assertThat(c).containsExactly(23, 34, 31, 46);
  }
}
