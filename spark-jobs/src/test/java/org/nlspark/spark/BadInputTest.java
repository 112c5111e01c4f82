package org.nlspark.spark;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** DESIGN §6's bad inputs: exit 2 (3 for refused resources), a message, no output left. */
class BadInputTest {
  @TempDir Path dir;
  Path x;
  Path out;

  @BeforeEach
  void data() {
    x = TestData.matrix(dir, "x.npy", 6, 20, TestData.gaussian(1, 6, 20, 0));
    out = dir.resolve("out");
  }

  /** Runs with --output out, expects the code and message, and that nothing was written. */
  private CliRun expect(int code, String message, String... args) throws IOException {
    String[] full = Stream.concat(Stream.of(args), Stream.of("--output", out.toString()))
        .toArray(String[]::new);
    CliRun r = CliRun.of(full);
    assertThat(r.code()).as(r.err()).isEqualTo(code);
    assertThat(r.err()).contains(message);
    assertThat(r.err()).doesNotContain("\tat ");
    assertThat(r.err().strip().split("\n").length).isLessThanOrEqualTo(2);
    assertThat(out).doesNotExist();
    try (Stream<Path> s = Files.list(dir)) {
      assertThat(s.map(p -> p.getFileName().toString()))
          .noneMatch(name -> name.startsWith(".out.tmp"));
    }
    return r;
  }

  @Test
  void missingFile() throws IOException {
    expect(2, "no-such.npy", "one-sample", "--input", dir.resolve("no-such.npy").toString());
  }

  @Test
  void notAnNpy() throws IOException {
    Path text = dir.resolve("notes.npy");
    Files.writeString(text, "subject,voxel\n1,2\n", StandardCharsets.UTF_8);
    expect(2, "notes.npy", "one-sample", "--input", text.toString());
  }

  @Test
  void truncatedFile() throws IOException {
    byte[] all = Files.readAllBytes(x);
    Path cut = dir.resolve("cut.npy");
    Files.write(cut, Arrays.copyOf(all, all.length - 8));
    expect(2, "cut.npy", "bootstrap", "--input", cut.toString());
  }

  @Test
  void hostileHeaderFailsFastWithoutAllocating() throws IOException {
    Path hostile = dir.resolve("hostile.npy");
    String header = "{'descr': '<f8', 'fortran_order': False, 'shape': (1000000, 1000000), }";
    StringBuilder h = new StringBuilder(header);
    while ((10 + h.length() + 1) % 64 != 0) {
      h.append(' ');
    }
    h.append('\n');
    byte[] head = h.toString().getBytes(StandardCharsets.ISO_8859_1);
    byte[] file = new byte[10 + head.length + 64];
    byte[] magic = {(byte) 0x93, 'N', 'U', 'M', 'P', 'Y', 1, 0,
        (byte) (head.length & 0xff), (byte) (head.length >> 8)};
    System.arraycopy(magic, 0, file, 0, 10);
    System.arraycopy(head, 0, file, 10, head.length);
    Files.write(hostile, file);
    expect(2, "hostile.npy", "one-sample", "--input", hostile.toString());
  }

  @Test
  void wrongDtype() throws IOException {
    byte[] all = Files.readAllBytes(x);
    String s = new String(all, StandardCharsets.ISO_8859_1).replaceFirst("<f8", "<i8");
    Path ints = dir.resolve("ints.npy");
    Files.write(ints, s.getBytes(StandardCharsets.ISO_8859_1));
    expect(2, "i8", "one-sample", "--input", ints.toString());
  }

  @Test
  void wrongRank() throws IOException {
    Path v = TestData.vector(dir, "v.npy", new double[] {1, 2, 3});
    expect(2, "v.npy", "one-sample", "--input", v.toString());
  }

  @Test
  void nanValues() throws IOException {
    double[] values = TestData.gaussian(1, 6, 20, 0);
    values[27] = Double.NaN;
    Path nan = TestData.matrix(dir, "nan.npy", 6, 20, values);
    expect(2, "NaN", "bootstrap", "--input", nan.toString());
  }

  @Test
  void groupsWithDifferentVoxels() throws IOException {
    Path y = TestData.matrix(dir, "y.npy", 6, 19, TestData.gaussian(2, 6, 19, 0));
    expect(2, "19", "two-sample", "--input", x.toString(), "--input2", y.toString());
  }

  @Test
  void targetOfWrongLength() throws IOException {
    Path t = TestData.vector(dir, "t.npy", new double[] {1, 2, 3, 4, 5});
    expect(2, "5 values", "correlation", "--input", x.toString(), "--target", t.toString());
  }

  @Test
  void targetWithZeroVariance() throws IOException {
    Path t = TestData.vector(dir, "t.npy", new double[] {2, 2, 2, 2, 2, 2});
    expect(2, "zero variance", "correlation", "--input", x.toString(), "--target",
        t.toString());
  }

  @Test
  void oneSample() throws IOException {
    Path one = TestData.matrix(dir, "one.npy", 1, 20, TestData.gaussian(3, 1, 20, 0));
    expect(2, "at least 2 samples", "one-sample", "--input", one.toString());
  }

  @Test
  void noPermutations() throws IOException {
    expect(2, "--permutations must be at least 1, but was: 0", "one-sample", "--input",
        x.toString(), "--permutations", "0");
  }

  @Test
  void confidenceOutsideUnitInterval() throws IOException {
    expect(2, "--confidence must be in (0, 1), but was: 1.5", "bootstrap", "--input",
        x.toString(), "--confidence", "1.5");
  }

  @Test
  void flags() throws IOException {
    expect(2, "Unknown option --sample", "bootstrap", "--input", x.toString(), "--sample", "3");
    expect(2, "--samples must be a whole number, but was: many", "bootstrap", "--input",
        x.toString(), "--samples", "many");
    expect(2, "--memory-budget-gb must be a finite number, but was: lots", "bootstrap",
        "--input", x.toString(), "--memory-budget-gb", "lots");
    expect(2, "--tail", "one-sample", "--input", x.toString(), "--tail", "left");
    expect(2, "--stat must be one of [mean, t]", "one-sample", "--input", x.toString(),
        "--stat", "median");
    expect(2, "--partitions must be at least 1, but was: 0", "one-sample", "--input",
        x.toString(), "--partitions", "0");
    expect(2, "--backend must be one of [cpu, gpu, auto], but was: tpu", "one-sample",
        "--input", x.toString(), "--backend", "tpu");
    expect(2, "Unknown command 'permute'", "permute", "--input", x.toString());
    expect(2, "--input is required", "one-sample");
    CliRun missing = CliRun.of("bootstrap", "--input", x.toString(), "--output");
    assertThat(missing.code()).isEqualTo(2);
    assertThat(missing.err()).contains("--output needs a value");
  }

  @Test
  void gpuRequestedButAbsentIsRefused() throws IOException {
    expect(3, "GPU", "one-sample", "--input", x.toString(), "--backend", "gpu");
  }

  @Test
  void existingNonEmptyOutputIsRefusedUnlessOverwrite() throws IOException {
    Files.createDirectories(out);
    Files.writeString(out.resolve("keep.txt"), "mine");
    CliRun r = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20");
    assertThat(r.code()).isEqualTo(2);
    assertThat(r.err()).contains(out.toString(), "--overwrite");
    assertThat(out.resolve("keep.txt")).hasContent("mine");
    CliRun again = CliRun.of("one-sample", "--input", x.toString(), "--output", out.toString(),
        "--permutations", "20", "--overwrite", "--quiet");
    assertThat(again.code()).as(again.err()).isZero();
    // --overwrite replaces only what an earlier run wrote (DESIGN §6)
    assertThat(out.resolve("keep.txt")).hasContent("mine");
    assertThat(out.resolve("p.npy")).exists();
  }

  @Test
  void bootstrapOverTheBudgetIsRefusedBeforeResampling() throws IOException {
    Path big = TestData.matrix(dir, "big.npy", 4, 5000, TestData.gaussian(4, 4, 5000, 0));
    CliRun r = expect(3, "--memory-budget-gb", "bootstrap", "--input", big.toString(),
        "--samples", "20000", "--save-samples", "--memory-budget-gb", "0.1");
    assertThat(r.err()).contains("GB");
  }

  /**
   * Issue 41 case 17: a single binary file as --input was read as a list file (exit 1, "Nul
   * character not allowed" and its bytes on the terminal); now exit 2 naming the file and, where
   * it is recognisable, its format, and never its bytes.
   */
  @Test
  void aBinaryFileIsNotReadAsAListOfPaths() throws IOException {
    byte[] random = new byte[600];
    new java.util.Random(41).nextBytes(random);
    random[7] = 0;
    Path mgz = dir.resolve("brain.mgz");
    Files.write(mgz, gzip(new byte[] {0, 0, 0, 1, 0, 0, 1, 0}));
    CliRun m = expect(2, "it is surface data (GIFTI or MGH), which needs its mesh; give"
        + " --surface", "one-sample", "--input", mgz.toString());
    Path gz = dir.resolve("subjects.gz");
    Files.write(gz, gzip("a.nii.gz\nb.nii.gz\n".getBytes(StandardCharsets.UTF_8)));
    CliRun g = expect(2, "it is gzip-compressed, not a text list of image paths", "one-sample",
        "--input", gz.toString());
    Path bin = dir.resolve("noise.dat");
    Files.write(bin, random);
    CliRun b = expect(2, "noise.dat: it is a binary file, not a NIfTI image", "one-sample",
        "--input", bin.toString());
    Path gii = dir.resolve("lh.func.gii");
    Files.writeString(gii, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<GIFTI Version=\"1.0\">"
        + "</GIFTI>\n");
    expect(2, "it is surface data (GIFTI or MGH), which needs its mesh", "one-sample",
        "--input", gii.toString());
    Path unnamed = dir.resolve("lh-func.dat");
    Files.writeString(unnamed, "<?xml version=\"1.0\"?>\n<GIFTI Version=\"1.0\"></GIFTI>\n");
    expect(2, "it is a GIFTI file without a .gii name; name it .func.gii or .shape.gii",
        "one-sample", "--input", unnamed.toString());
    Path latin1 = dir.resolve("list.txt");
    Files.write(latin1, "sub-\u00e9.nii.gz\n".getBytes(StandardCharsets.ISO_8859_1));
    CliRun l = expect(2, "list.txt: it is a binary file", "one-sample", "--input",
        latin1.toString());
    for (CliRun r : new CliRun[] {m, g, b, l}) {
      assertThat(r.err()).doesNotContain("Nul character").doesNotContain("\u0000")
          .doesNotContain("\ufffd").doesNotContain("Exception");
    }
  }

  private static byte[] gzip(byte[] content) throws IOException {
    java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();
    try (java.util.zip.GZIPOutputStream z = new java.util.zip.GZIPOutputStream(bytes)) {
      z.write(content);
    }
    return bytes.toByteArray();
  }

  /**
   * Issue 41 case 22: a CIFTI file is named as CIFTI, not told to split into 3-D or 4-D; a
   * parcellated one is not read, and a "dense" one in a NIfTI-1 header is not CIFTI-2.
   */
  @Test
  void aCiftiFileIsNamed() throws IOException {
    Path cifti = dir.resolve("sub-01.pscalar.nii");
    org.nlspark.core.io.nifti.NiftiHeader header = org.nlspark.core.io.nifti.NiftiHeader
        .builder().datatype(org.nlspark.core.io.nifti.NiftiDatatype.FLOAT32)
        .shape(1, 1, 1, 1, 3, 5).pixdim(1, 1, 1, 1, 1, 1, 1, 1).build();
    NiftiStudy.write(cifti, header, new float[15]);
    CliRun r = expect(2, "it is a CIFTI file", "one-sample", "--input", cifti.toString());
    assertThat(r.err()).contains("the CIFTI files nlspark reads are dense scalars and series"
        + " (.dscalar.nii, .dtseries.nii)").doesNotContain("split it into");
    Path dense = dir.resolve("sub-01.dtseries.nii");
    NiftiStudy.write(dense, header, new float[15]);
    expect(2, "a CIFTI-2 file is a NIfTI-2 file (a 540-byte header, magic n+2), and this one"
        + " is not", "one-sample", "--input", dense.toString(), "--surface-left", dense.toString());
  }

  /**
   * Issue 41 case 18: an input path under a regular file (design.csv/X.npy) was exit 1,
   * "UncheckedIOException ... Not a directory"; now exit 2 naming the file in the way.
   */
  @Test
  void aPathUnderAFileNamesTheFile() throws IOException {
    Path design = dir.resolve("design.csv");
    Files.writeString(design, "intercept\n1\n");
    expect(2, design + " is a file, not a directory", "one-sample", "--input",
        design.resolve("X.npy").toString());
    expect(2, design + " is a file, not a directory", "one-sample", "--input",
        design.resolve("sub-01.nii.gz").toString());
  }
}
