package org.nlspark.spark.data;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.spark.serializer.DeserializationStream;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.Serializer;
import org.apache.spark.serializer.SerializerInstance;
import scala.reflect.ClassTag;

/**
 * The serializer of the ingest's one shuffle (DESIGN §8): its records are (block index, {@link
 * Slice}) pairs only, so each key is written as a tag and an int and each value as a tag, its
 * length and its bytes in one write, and read back with one read into a new array: no Java
 * serialization stream (which copies a byte[] through its 1 KiB buffer and describes classes
 * per stream) on either side of the shuffle. The bytes a block is assembled from are the bytes
 * the read split cut.
 */
final class SliceSerializer extends Serializer implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  private static final int KEY = 'K';
  private static final int VALUE = 'V';

  @Override
  public SerializerInstance newInstance() {
    return new Instance();
  }

  private static final class Instance extends SerializerInstance {
    @Override
    public <T> ByteBuffer serialize(T t, ClassTag<T> tag) {
      java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
      SerializationStream out = serializeStream(bytes);
      out.writeObject(t, tag);
      out.close();
      return ByteBuffer.wrap(bytes.toByteArray());
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassTag<T> tag) {
      byte[] b = new byte[bytes.remaining()];
      bytes.duplicate().get(b);
      return deserializeStream(new java.io.ByteArrayInputStream(b)).readObject(tag);
    }

    @Override
    public <T> T deserialize(ByteBuffer bytes, ClassLoader loader, ClassTag<T> tag) {
      return deserialize(bytes, tag);
    }

    @Override
    public SerializationStream serializeStream(OutputStream s) {
      return new Out(s);
    }

    @Override
    public DeserializationStream deserializeStream(InputStream s) {
      return new In(s);
    }
  }

  private static final class Out extends SerializationStream {
    private final DataOutputStream out;

    Out(OutputStream s) {
      this.out = new DataOutputStream(s);
    }

    @Override
    public <T> SerializationStream writeObject(T t, ClassTag<T> tag) {
      try {
        if (t instanceof Integer key) {
          out.write(KEY);
          out.writeInt(key);
        } else if (t instanceof byte[] value) {
          out.write(VALUE);
          out.writeInt(value.length);
          out.write(value);
        } else {
          throw new IllegalArgumentException("[BUG] the slice shuffle got a "
              + (t == null ? "null" : t.getClass().getName()) + " record");
        }
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      return this;
    }

    @Override
    public void flush() {
      try {
        out.flush();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        out.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  private static final class In extends DeserializationStream {
    private final DataInputStream in;

    In(InputStream s) {
      this.in = new DataInputStream(s);
    }

    /** The next key or value; {@link EOFException} (thrown undeclared) at the stream's end. */
    @Override
    @SuppressWarnings("unchecked")
    public <T> T readObject(ClassTag<T> tag) {
      try {
        int kind = in.read();
        if (kind < 0) {
          throw new EOFException(); // Spark's record iterator ends here
        }
        if (kind == KEY) {
          return (T) Integer.valueOf(in.readInt());
        }
        if (kind != VALUE) {
          throw new IllegalStateException("[BUG] the slice shuffle read a record of kind " + kind);
        }
        byte[] value = new byte[in.readInt()];
        in.readFully(value);
        return (T) value;
      } catch (EOFException e) {
        throw sneaky(e);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void close() {
      try {
        in.close();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
  }

  @SuppressWarnings("unchecked")
  private static <E extends Throwable> RuntimeException sneaky(Throwable e) throws E {
    throw (E) e;
  }
}
