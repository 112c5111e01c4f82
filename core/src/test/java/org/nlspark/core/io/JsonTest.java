package org.nlspark.core.io;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.nlspark.core.InvalidInputException;

class JsonTest {
  private static Map<String, Object> sample() {
    Map<String, Object> nested = new LinkedHashMap<>();
    List<Object> a = new ArrayList<>();
    a.add(1);
    a.add(Map.of("b", "c"));
    nested.put("a", a);
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("command", "bootstrap");
    m.put("samples", 1000);
    m.put("confidence", 0.95);
    m.put("ci", new double[] {1.5, -2.0e-7, 1e22});
    m.put("empty", Map.of());
    m.put("none", List.of());
    m.put("ok", true);
    m.put("x", null);
    m.put("nested", nested);
    return m;
  }

  @Test
  void writesPrettyPrintedWithTwoSpaceIndentLikePythonJsonDumps() {
    // Python's json.dumps(d, indent=2) gives this layout; Java's double spelling differs
    // (-2.0E-7 vs -2e-07), both valid JSON.
    assertThat(Json.write(sample()))
        .isEqualTo(
            String.join(
                "\n",
                "{",
                "  \"command\": \"bootstrap\",",
                "  \"samples\": 1000,",
                "  \"confidence\": 0.95,",
                "  \"ci\": [",
                "    1.5,",
                "    -2.0E-7,",
                "    1.0E22",
                "  ],",
                "  \"empty\": {},",
                "  \"none\": [],",
                "  \"ok\": true,",
                "  \"x\": null,",
                "  \"nested\": {",
                "    \"a\": [",
                "      1,",
                "      {",
                "        \"b\": \"c\"",
                "      }",
                "    ]",
                "  }",
                "}"));
  }

  @Test
  @SuppressWarnings("unchecked")
  void parsesPythonsOutputOfTheSameDocument() {
    String python =
        "{\n  \"command\": \"bootstrap\",\n  \"samples\": 1000,\n  \"confidence\": 0.95,\n"
            + "  \"ci\": [\n    1.5,\n    -2e-07,\n    1e+22\n  ],\n  \"empty\": {},\n"
            + "  \"none\": [],\n  \"ok\": true,\n  \"x\": null,\n  \"nested\": {\n"
            + "    \"a\": [\n      1,\n      {\n        \"b\": \"c\"\n      }\n    ]\n  }\n}";
    Object parsed = Json.parse(python);
    assertThat(parsed).isInstanceOf(LinkedHashMap.class);
    @SuppressWarnings("unchecked")
    Map<String, Object> m = (Map<String, Object>) parsed;
    assertThat(m.keySet())
        .containsExactly(
            "command", "samples", "confidence", "ci", "empty", "none", "ok", "x", "nested");
    assertThat(m.get("samples")).isEqualTo(1000L);
    assertThat(m.get("confidence")).isEqualTo(0.95);
    assertThat((List<Object>) m.get("ci")).containsExactly(1.5, -2.0e-7, 1e22);
    assertThat(m.get("ok")).isEqualTo(true);
    assertThat(m.containsKey("x")).isTrue();
    assertThat(m.get("x")).isNull();
    // Writing what we parsed reproduces our own rendering of the same document.
    assertThat(Json.write(parsed)).isEqualTo(Json.write(sample()));
  }

  @Test
  void nonFiniteNumbersBecomeNull() {
    assertThat(Json.write(new double[] {Double.NaN, Double.POSITIVE_INFINITY, 1.0}))
        .isEqualTo("[\n  null,\n  null,\n  1.0\n]");
    assertThat(Json.write(Float.NEGATIVE_INFINITY)).isEqualTo("null");
    assertThat(Json.write(0.1f)).isEqualTo("0.1");
    assertThat(Json.write(Double.NaN)).isEqualTo("null");
  }

  @Test
  void escapesStrings() {
    String s = "q\"b\\s/\n\t\r\b\f\u0001\u001fé\u2028";
    assertThat(Json.write(s))
        .isEqualTo("\"q\\\"b\\\\s/\\n\\t\\r\\b\\f\\u0001\\u001fé\\u2028\"");
    assertThat(Json.parse(Json.write(s))).isEqualTo(s);
  }

  @Test
  void keepsInsertionOrderAndWritesOtherTypes() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("z", 1L);
    m.put("a", new int[] {1, 2});
    m.put("m", new long[] {3});
    m.put("e", java.util.concurrent.TimeUnit.SECONDS);
    m.put("o", new Object[] {"s", false});
    assertThat(Json.write(m))
        .isEqualTo(
            "{\n  \"z\": 1,\n  \"a\": [\n    1,\n    2\n  ],\n  \"m\": [\n    3\n  ],\n"
                + "  \"e\": \"SECONDS\",\n  \"o\": [\n    \"s\",\n    false\n  ]\n}");
    assertThat(Json.write(Map.of())).isEqualTo("{}");
    assertThat(Json.write(List.of())).isEqualTo("[]");
    assertThat(Json.write(null)).isEqualTo("null");
  }

  @Test
  void roundTripsValues() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("long", Long.MIN_VALUE);
    m.put("double", -1.2345678901234567e-300);
    m.put("tiny", Double.MIN_VALUE);
    m.put("text", "Ünïcödé 😀 \"quoted\"");
    m.put("list", new ArrayList<>(List.of(1L, 2.5, "x", true)));
    m.put("nothing", null);
    assertThat(Json.parse(Json.write(m))).isEqualTo(m);
  }

  @Test
  void parsesNumbersAsLongOrDouble() {
    assertThat(Json.parse("42")).isEqualTo(42L);
    assertThat(Json.parse("-0")).isEqualTo(0L);
    assertThat(Json.parse("42.0")).isEqualTo(42.0);
    assertThat(Json.parse("1E3")).isEqualTo(1000.0);
    assertThat(Json.parse("-1.5e-3")).isEqualTo(-0.0015);
    assertThat(Json.parse("9223372036854775807")).isEqualTo(Long.MAX_VALUE);
    assertThat(Json.parse("9223372036854775808")).isEqualTo(9.223372036854775808e18);
  }

  @Test
  void parsesEscapesAndWhitespace() {
    assertThat(Json.parse(" \t\r\n\"a\\u00e9\\ud83d\\ude00\\/\\\"\" "))
        .isEqualTo("aé😀/\"");
    assertThat(Json.parse("[ ]")).isEqualTo(List.of());
    assertThat(Json.parse("{ }")).isEqualTo(Map.of());
  }

  @Test
  void rejectsMalformedJsonNamingWhere() {
    assertParseError("[1,]", "unexpected character ']' at offset 3 (line 1, column 4)");
    assertParseError("{\"a\" 1}", "expected ':' but found '1' at offset 5 (line 1, column 6)");
    assertParseError("{\n  \"a\": \"x", "unterminated string at offset 11 (line 2, column 10)");
    assertParseError("01", "leading zeros are not allowed at offset 1 (line 1, column 2)");
    assertParseError("NaN", "unexpected character 'N' at offset 0 (line 1, column 1)");
    assertParseError("tru", "unexpected character 't' at offset 0 (line 1, column 1)");
    assertParseError("1 2", "unexpected text after the value at offset 2 (line 1, column 3)");
    assertParseError("{\"a\":1,\"a\":2}", "duplicate key \"a\" at offset 7 (line 1, column 8)");
    assertParseError("", "unexpected end of input at offset 0 (line 1, column 1)");
    assertParseError("[1", "expected ',' but the input ended at offset 2 (line 1, column 3)");
    assertParseError("{1:2}", "expected a string key at offset 1 (line 1, column 2)");
    assertParseError("\"\\x\"", "unknown escape '\\x' at offset 1 (line 1, column 2)");
    assertParseError("\"a\nb\"", "unescaped control character in a string at offset 2");
    assertParseError("1.", "expected digits after '.' at offset 2");
    assertParseError("[".repeat(1000), "nesting deeper than 256");
  }

  private static void assertParseError(String text, String message) {
    assertThatThrownBy(() -> Json.parse(text))
        .isInstanceOf(InvalidInputException.class)
        .hasMessageStartingWith("Cannot parse JSON: " + message);
  }

  @Test
  void rejectsWhatItCannotWrite() {
    assertThatThrownBy(() -> Json.write(new Object()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot write JSON: unsupported type java.lang.Object");
    assertThatThrownBy(() -> Json.write(Map.of(1, "x")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot write JSON: object keys must be strings, but was: 1");
    List<Object> cycle = new ArrayList<>();
    cycle.add(cycle);
    assertThatThrownBy(() -> Json.write(cycle))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("[BUG] Cannot write JSON: nesting deeper than 256 (a cycle?)");
  }
}
