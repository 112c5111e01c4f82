package org.nlspark.spark.io;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.io.InputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.LocalFileSystem;
import org.apache.hadoop.fs.Path;
import org.nlspark.core.InvalidInputException;
import org.nlspark.core.data.SampleSource;

/**
 * Opens sample files through Hadoop FileSystem on whichever JVM it is shipped to (driver or
 * executor), with the driver's Hadoop configuration (so hdfs:// and s3a:// settings travel).
 */
public final class HadoopOpener implements SampleSource.Opener, Serializable {
  private static final long serialVersionUID = 1L;

  private final byte[] conf;
  private transient Configuration configuration;

  public HadoopOpener(Configuration conf) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      conf.write(out);
    } catch (IOException e) {
      throw new UncheckedIOException("[BUG] cannot serialize the Hadoop configuration", e);
    }
    this.conf = bytes.toByteArray();
    this.configuration = conf;
  }

  public Configuration configuration() {
    if (configuration == null) {
      Configuration c = new Configuration(false);
      try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(conf))) {
        c.readFields(in);
      } catch (IOException e) {
        throw new UncheckedIOException("[BUG] cannot read the Hadoop configuration", e);
      }
      configuration = c;
    }
    return configuration;
  }

  @Override
  public InputStream open(String path) throws IOException {
    Path p = new Path(path);
    try {
      return fileSystem(p).open(p);
    } catch (FileNotFoundException e) {
      throw missing(path);
    }
  }

  @Override
  public long size(String path) throws IOException {
    Path p = new Path(path);
    try {
      return fileSystem(p).getFileStatus(p).getLen();
    } catch (FileNotFoundException e) {
      throw missing(path);
    }
  }

  /** Inputs come from numpy and nibabel, without Hadoop's .crc side files: local reads are raw. */
  private FileSystem fileSystem(Path p) throws IOException {
    FileSystem fs = p.getFileSystem(configuration());
    return fs instanceof LocalFileSystem ? ((LocalFileSystem) fs).getRawFileSystem() : fs;
  }

  private static InvalidInputException missing(String path) {
    return UserPaths.noSuchFile(path, "check the path (executors must reach it too: use a"
        + " shared file system such as hdfs:// on a cluster)");
  }
}
