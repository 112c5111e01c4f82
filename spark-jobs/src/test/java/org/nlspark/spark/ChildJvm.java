package org.nlspark.spark;

import java.io.File;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The command line in a fresh JVM of its own: this JVM's java, module flags and class path, so a
 * test can give a run a heap smaller than its data (the small-driver checks of DESIGN §8).
 */
final class ChildJvm {
  private static final long LIMIT_SECONDS = 600;

  private ChildJvm() {}

  /** {@code java <this JVM's opens and modules> jvmOptions -cp <class path> Main}. */
  static List<String> command(String... jvmOptions) {
    return command(Main.class, jvmOptions);
  }

  /** The same with another main class (a program of the test sources, e.g. on DataFrames). */
  static List<String> command(Class<?> main, String... jvmOptions) {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + File.separator + "bin" + File.separator + "java");
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-opens") || a.startsWith("-Djdk.reflect")
          || a.startsWith("--add-modules")) {
        cmd.add(a);
      }
    }
    cmd.addAll(List.of(jvmOptions));
    cmd.add("-cp");
    cmd.add(System.getProperty("java.class.path"));
    cmd.add(main.getName());
    return cmd;
  }

  /**
   * Runs {@code cmd} in {@code dir} (stdout to child-stdout.txt there, stderr to {@code err}) on
   * loopback and returns its exit code; over 600 s is a failure.
   */
  static int run(List<String> cmd, Path dir, Path err) throws Exception {
    ProcessBuilder pb = new ProcessBuilder(cmd).directory(dir.toFile())
        .redirectOutput(dir.resolve("child-stdout.txt").toFile()).redirectError(err.toFile());
    pb.environment().put("SPARK_LOCAL_IP", "127.0.0.1");
    Process p = pb.start();
    if (!p.waitFor(LIMIT_SECONDS, TimeUnit.SECONDS)) {
      p.destroyForcibly();
      throw new AssertionError("the child JVM ran over " + LIMIT_SECONDS + " s: "
          + Files.readString(err));
    }
    return p.exitValue();
  }
}
