package org.nlspark.spark.io;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;

/** Small text tables (a design, contrasts, exchangeability blocks) read through Hadoop. */
public final class TextTables {
  private TextTables() {}

  /** A small text file (a design, contrasts, blocks) through Hadoop, as lines. */
  public static List<String> readLines(Configuration conf, String uri, String flag) {
    Path path = UserPaths.toPath(uri, flag);
    try {
      FileSystem fs = path.getFileSystem(conf);
      // a FIFO would block the read for ever
      HadoopNiftiFiles.checkLocal(fs.makeQualified(path), flag + " " + uri,
          false);
      FileStatus status =
          UserPaths.status(fs, path, flag + " " + uri);
      if (!status.isFile()) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri
            + ": it is not a regular file");
      }
      long limit = 64L << 20;
      if (status.getLen() > limit) {
        throw new InvalidInputException("Cannot read " + flag + " " + uri + ": it has "
            + status.getLen() + " bytes, more than the " + limit + " a text table may have");
      }
      try (BufferedReader r = new BufferedReader(new InputStreamReader(
          fs.open(path), StandardCharsets.UTF_8))) {
        List<String> lines = new ArrayList<>();
        for (String line = r.readLine(); line != null; line = r.readLine()) {
          lines.add(line); // GlmFiles drops a byte-order mark, for every front end
        }
        return lines;
      }
    } catch (IOException e) {
      throw UserPaths.readFailure(e, flag, uri);
    }
  }
}
