package org.nlspark.spark.data;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.apache.spark.serializer.SerializationStream;
import org.apache.spark.serializer.SerializerInstance;
import org.junit.jupiter.api.Test;
import scala.Tuple2;
import scala.reflect.ClassTag;
import scala.reflect.ClassTag$;

/** The ingest shuffle's serializer gives back every (block, slice) record, byte for byte. */
class SliceSerializerTest {
  private static final ClassTag<Object> ANY = ClassTag$.MODULE$.apply(Object.class);

  @Test
  void recordsComeBackAsWrittenInOrder() {
    SplittableRandom random = new SplittableRandom(3);
    List<Tuple2<Integer, byte[]>> records = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      byte[] value = new byte[i == 7 ? 0 : random.nextInt(1, 70_000)];
      for (int j = 0; j < value.length; j++) {
        value[j] = (byte) random.nextInt(256);
      }
      records.add(new Tuple2<>(i == 3 ? Integer.MIN_VALUE : random.nextInt(), value));
    }
    SerializerInstance ser = new SliceSerializer().newInstance();
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SerializationStream out = ser.serializeStream(bytes);
    for (Tuple2<Integer, byte[]> r : records) { // as Spark's shuffle writers do
      out.writeKey(r._1(), ANY);
      out.writeValue(r._2(), ANY);
    }
    out.close();
    scala.collection.Iterator<Tuple2<Object, Object>> in =
        ser.deserializeStream(new ByteArrayInputStream(bytes.toByteArray())).asKeyValueIterator();
    List<Tuple2<Object, Object>> back = new ArrayList<>();
    while (in.hasNext()) {
      back.add(in.next());
    }
    assertThat(back).hasSize(records.size());
    for (int i = 0; i < records.size(); i++) {
      assertThat(back.get(i)._1()).isEqualTo(records.get(i)._1());
      assertThat((byte[]) back.get(i)._2()).isEqualTo(records.get(i)._2());
    }
    // one value's bytes, not a serialization stream's: 5 bytes per key, 5 + length per value
    long expected = 0;
    for (Tuple2<Integer, byte[]> r : records) {
      expected += 10 + r._2().length;
    }
    assertThat(bytes.size()).isEqualTo(expected);
  }

  @Test
  void refusesOtherRecords() {
    SerializationStream out =
        new SliceSerializer().newInstance().serializeStream(new ByteArrayOutputStream());
    assertThatThrownBy(() -> out.writeValue("a string", ANY))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("java.lang.String");
  }
}
