package org.nlspark.core.stats;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Outputs are the same bits on every JDK only if no statistic calls a {@code Math} function that
 * a JIT may intrinsify differently (JDK 25's {@code Math.tanh} changed isc's intervals in the last
 * bit against JDK 17): every transcendental function in the sources that compute results is
 * {@code StrictMath}. The report's chart drawing is exempt (pixels, not results).
 */
class StrictMathOnlyTest {
  private static final Pattern LOOSE = Pattern.compile("(?<![A-Za-z.])Math\\.(tanh|sinh|cosh|cbrt"
      + "|exp|expm1|log|log1p|log10|pow|sin|cos|tan|asin|acos|atan|atan2|hypot)\\(");

  @Test
  void everyTranscendentalCallInTheComputingSourcesIsStrictMath() throws IOException {
    List<String> loose = new ArrayList<>();
    for (String dir : new String[] {"src/main/java", "../spark-jobs/src/main/java"}) {
      Path root = Path.of(dir);
      assertThat(root).as("source folder " + dir + " (run from the core module)").isDirectory();
      try (Stream<Path> files = Files.walk(root)) {
        for (Path f : (Iterable<Path>) files.filter(p -> p.toString().endsWith(".java"))::iterator) {
          List<String> lines = Files.readAllLines(f);
          for (int i = 0; i < lines.size(); i++) {
            if (LOOSE.matcher(lines.get(i)).find()) {
              loose.add(f + ":" + (i + 1) + ": " + lines.get(i).trim());
            }
          }
        }
      }
    }
    assertThat(loose).as("Math.* calls that should be StrictMath.*").isEmpty();
  }
}
