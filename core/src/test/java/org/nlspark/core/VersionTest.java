package org.nlspark.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.nlspark.core.engine.RunReport;

/** One version string, the pom's: what summary.json and env report. */
class VersionTest {
  @Test
  void theVersionIsThePomsProjectVersion() throws Exception {
    // surefire runs in the module's directory; core's version is its parent's
    String pom = Files.readString(Path.of("pom.xml"));
    Matcher parent = Pattern.compile("<parent>.*?<version>([^<]+)</version>.*?</parent>",
        Pattern.DOTALL).matcher(pom);
    assertThat(parent.find()).as("core/pom.xml names its parent's version").isTrue();
    assertThat(Version.NLSPARK).isEqualTo(parent.group(1).trim()).doesNotContain("${");
    assertThat(RunReport.VERSION).isEqualTo(Version.NLSPARK);
  }
}
