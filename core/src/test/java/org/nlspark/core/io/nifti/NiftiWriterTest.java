package org.nlspark.core.io.nifti;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NiftiWriterTest {
  @TempDir Path dir;

  private static final double[][] ROWS = {{-2, 0, 0, 90}, {0, 2, 0, -126}, {0, 0, 2, -72}};

  private static NiftiMask mask(NiftiHeader.Builder b, int nx, int ny, int nz, long seed) {
    // Through bytes, as a mask read from a file: NIfTI-1 fields are float32 there.
    NiftiHeader h = NiftiHeader.parse(
        b.datatype(NiftiDatatype.FLOAT32).shape(nx, ny, nz).build().toBytes(), "mask.nii");
    SplittableRandom r = new SplittableRandom(seed);
    double[] v = new double[nx * ny * nz];
    for (int f = 0; f < v.length; f++) {
      v[f] = r.nextInt(3) == 0 ? 0 : 1;
    }
    v[0] = 1;
    return NiftiMask.fromImage(h, v, "mask.nii");
  }

  @Test
  void mapRoundTripKeepsValuesFillAndTheMasksGeometry() throws Exception {
    double s = Math.sqrt(0.5);
    for (int version : new int[] {1, 2}) {
      for (ByteOrder order : new ByteOrder[] {ByteOrder.LITTLE_ENDIAN, ByteOrder.BIG_ENDIAN}) {
        NiftiHeader.Builder b = NiftiHeader.builder().version(version).order(order)
            .pixdim(-1, 2, 2, 2, 0.8).xyztUnits(10)
            .qform(1, new double[] {0, 0, s}, new double[] {3, 4, 5})
            .sform(4, ROWS);
        NiftiMask mask = mask(b, 6, 5, 4, version);
        float[] values = new float[mask.count()];
        for (int n = 0; n < values.length; n++) {
          values[n] = 0.5f + n;
        }
        Path out = dir.resolve("t_v" + version + order + ".nii.gz");
        NiftiWriter.writeMap(out, mask, values, 1f);
        NiftiHeader[] h = new NiftiHeader[1];
        double[] volume = NiftiReader.read3d(out, h);
        NiftiHeader written = h[0];
        assertThat(written.version()).isEqualTo(version);
        assertThat(written.datatype()).isEqualTo(NiftiDatatype.FLOAT32);
        assertThat(written.shape()).containsExactly(6, 5, 4);
        assertThat(written.sformCode()).isEqualTo(4);
        assertThat(written.qformCode()).isEqualTo(1);
        assertThat(written.quatern()).containsExactly(mask.geometry().quatern());
        assertThat(written.qoffset()).containsExactly(mask.geometry().qoffset());
        assertThat(written.pixdim()[0]).isEqualTo(-1);
        assertThat(written.xyztUnits()).isEqualTo(2);
        assertThat(written.affine()).isDeepEqualTo(mask.geometry().affine());
        assertThat(written.qformAffine()).isDeepEqualTo(mask.geometry().qformAffine());
        assertThat(written.grid().difference(mask.grid(), "mask")).isNull();
        byte[] sel = mask.toSelectionVolume();
        int n = 0;
        float[] masked = new float[mask.count()];
        float[] asFloat = new float[volume.length];
        for (int f = 0; f < volume.length; f++) {
          asFloat[f] = (float) volume[f];
          if (sel[f] == 0) {
            assertThat(volume[f]).isEqualTo(1.0);
          }
        }
        mask.extract(asFloat, masked, 0);
        assertThat(masked).containsExactly(values);
      }
    }
  }

  @Test
  void pixdimOnlyMaskGivesTheSameAffine() {
    NiftiMask mask = mask(NiftiHeader.builder().pixdim(1, 3, 3, 4), 4, 4, 4, 3);
    Path out = dir.resolve("p.nii.gz");
    NiftiWriter.writeMap(out, mask, new float[mask.count()], 0f);
    NiftiHeader written = NiftiReader.readHeader(out);
    assertThat(written.affineSource()).isEqualTo("pixdims");
    assertThat(written.affine()).isDeepEqualTo(mask.geometry().affine());
  }

  @Test
  void maskIsWrittenAsUint8AndReadsBackAsTheSameMask() {
    NiftiMask mask = mask(NiftiHeader.builder().sform(2, ROWS), 7, 3, 5, 9);
    Path out = dir.resolve("mask.nii.gz");
    NiftiWriter.writeMask(out, mask);
    assertThat(NiftiReader.readHeader(out).datatype()).isEqualTo(NiftiDatatype.UINT8);
    NiftiMask back = NiftiMask.read(out);
    assertThat(back.count()).isEqualTo(mask.count());
    for (int n = 0; n < mask.count(); n++) {
      assertThat(back.fileIndex(n)).isEqualTo(mask.fileIndex(n));
    }
    assertThat(back.grid().difference(mask.grid(), "mask")).isNull();
  }

  @Test
  void headerBytesSitAtTheSpecsOffsets() throws Exception {
    // Offsets typed from nifti1.h / nifti2.h, independently of NiftiLayout.
    NiftiMask mask = mask(NiftiHeader.builder().sform(1, ROWS), 3, 2, 2, 1);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    NiftiWriter.writeMap(out, mask, new float[mask.count()], 0f);
    byte[] raw = new GZIPInputStream(new ByteArrayInputStream(out.toByteArray())).readAllBytes();
    ByteBuffer b = ByteBuffer.wrap(raw).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(b.getInt(0)).isEqualTo(348);
    assertThat(b.getShort(40)).isEqualTo((short) 3);
    assertThat(b.getShort(42)).isEqualTo((short) 3);
    assertThat(b.getShort(70)).isEqualTo((short) 16);
    assertThat(b.getShort(72)).isEqualTo((short) 32);
    assertThat(b.getFloat(108)).isEqualTo(352f);
    assertThat(b.getFloat(112)).isEqualTo(1f);
    assertThat(b.getShort(254)).isEqualTo((short) 1);
    assertThat(b.getFloat(280 + 12)).isEqualTo(90f);
    assertThat(b.getFloat(296 + 12)).isEqualTo(-126f);
    assertThat(b.getFloat(312 + 12)).isEqualTo(-72f);
    assertThat(new String(raw, 344, 3, "US-ASCII")).isEqualTo("n+1");
    assertThat(raw.length).isEqualTo(352 + 4 * 12);

    NiftiHeader v2 = NiftiHeader.builder().version(2).shape(3, 2, 2).sform(1, ROWS).build();
    ByteBuffer c = ByteBuffer.wrap(v2.toBytes()).order(ByteOrder.LITTLE_ENDIAN);
    assertThat(c.getInt(0)).isEqualTo(540);
    assertThat(c.getShort(12)).isEqualTo((short) 16);
    assertThat(c.getLong(16)).isEqualTo(3);
    assertThat(c.getLong(24)).isEqualTo(3);
    assertThat(c.getLong(168)).isEqualTo(544);
    assertThat(c.getInt(348)).isEqualTo(1);
    assertThat(c.getDouble(400 + 24)).isEqualTo(90);
    assertThat(c.getDouble(464 + 24)).isEqualTo(-72);
    assertThat(c.get(4)).isEqualTo((byte) 'n');
    assertThat(c.get(6)).isEqualTo((byte) '2');
    assertThat(Files.exists(dir)).isTrue();
  }
}
