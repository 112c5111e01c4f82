package org.nlspark.core.io;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.nlspark.core.InvalidInputException;

/**
 * Minimal JSON for {@code summary.json}: a writer and a strict parser, so core needs no JSON
 * library.
 *
 * <p>Writing: {@link Map} (keys must be strings; iteration order kept, so pass a {@link
 * LinkedHashMap}), {@link Collection}, {@code Object[]}, {@code double[]}, {@code float[]},
 * {@code int[]}, {@code long[]}, {@link CharSequence}, {@link Number}, {@link Boolean}, {@link
 * Enum} (its name) and {@code null}. NaN and infinities become {@code null} (JSON has no such
 * numbers). Layout matches Python's {@code json.dumps(value, indent=2)}.
 *
 * <p>Parsing (RFC 8259): objects become {@link LinkedHashMap}, arrays {@link ArrayList}, numbers
 * {@link Long} when integral and in range, else {@link Double}.
 */
public final class Json {
  private static final int MAX_DEPTH = 256;

  private Json() {}

  /** Pretty-prints {@code value} with a 2-space indent, no trailing newline. */
  public static String write(Object value) {
    StringBuilder sb = new StringBuilder();
    write(value, sb, 0);
    return sb.toString();
  }

  private static void write(Object value, StringBuilder sb, int depth) {
    if (depth > MAX_DEPTH) {
      throw new IllegalArgumentException(
          "[BUG] Cannot write JSON: nesting deeper than " + MAX_DEPTH + " (a cycle?)");
    }
    if (value == null) {
      sb.append("null");
    } else if (value instanceof CharSequence s) {
      quote(s, sb);
    } else if (value instanceof Boolean b) {
      sb.append(b ? "true" : "false");
    } else if (value instanceof Float f) {
      // Float.toString keeps 0.1f as "0.1" rather than its double expansion.
      sb.append(Float.isFinite(f) ? Float.toString(f) : "null");
    } else if (value instanceof Double d) {
      number(d, sb);
    } else if (value instanceof BigDecimal d) {
      sb.append(d.toString());
    } else if (value instanceof Long
        || value instanceof Integer
        || value instanceof Short
        || value instanceof Byte
        || value instanceof BigInteger) {
      sb.append(value);
    } else if (value instanceof Number n) {
      number(n.doubleValue(), sb);
    } else if (value instanceof Enum<?> e) {
      quote(e.name(), sb);
    } else if (value instanceof Map<?, ?> map) {
      object(map, sb, depth);
    } else if (value instanceof Collection<?> c) {
      array(new ArrayList<>(c), sb, depth);
    } else if (value instanceof Object[] a) {
      array(Arrays.asList(a), sb, depth);
    } else if (value instanceof double[] a) {
      array(Arrays.stream(a).boxed().toList(), sb, depth);
    } else if (value instanceof float[] a) {
      List<Object> list = new ArrayList<>(a.length);
      for (float f : a) {
        list.add(f);
      }
      array(list, sb, depth);
    } else if (value instanceof int[] a) {
      array(Arrays.stream(a).boxed().toList(), sb, depth);
    } else if (value instanceof long[] a) {
      array(Arrays.stream(a).boxed().toList(), sb, depth);
    } else {
      throw new IllegalArgumentException(
          "[BUG] Cannot write JSON: unsupported type " + value.getClass().getName());
    }
  }

  private static void object(Map<?, ?> map, StringBuilder sb, int depth) {
    if (map.isEmpty()) {
      sb.append("{}");
      return;
    }
    sb.append('{');
    boolean first = true;
    for (Map.Entry<?, ?> e : map.entrySet()) {
      if (!(e.getKey() instanceof String key)) {
        throw new IllegalArgumentException(
            "[BUG] Cannot write JSON: object keys must be strings, but was: " + e.getKey());
      }
      sb.append(first ? "\n" : ",\n");
      indent(sb, depth + 1);
      quote(key, sb);
      sb.append(": ");
      write(e.getValue(), sb, depth + 1);
      first = false;
    }
    sb.append('\n');
    indent(sb, depth);
    sb.append('}');
  }

  private static void array(List<?> items, StringBuilder sb, int depth) {
    if (items.isEmpty()) {
      sb.append("[]");
      return;
    }
    sb.append('[');
    for (int i = 0; i < items.size(); i++) {
      sb.append(i == 0 ? "\n" : ",\n");
      indent(sb, depth + 1);
      write(items.get(i), sb, depth + 1);
    }
    sb.append('\n');
    indent(sb, depth);
    sb.append(']');
  }

  private static void number(double v, StringBuilder sb) {
    if (!Double.isFinite(v)) {
      sb.append("null");
    } else {
      // Double.toString is the shortest round-tripping form; "1.0E-5" is valid JSON.
      sb.append(v);
    }
  }

  private static void indent(StringBuilder sb, int depth) {
    sb.append(" ".repeat(2 * depth));
  }

  private static void quote(CharSequence s, StringBuilder sb) {
    sb.append('"');
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '"' -> sb.append("\\\"");
        case '\\' -> sb.append("\\\\");
        case '\n' -> sb.append("\\n");
        case '\r' -> sb.append("\\r");
        case '\t' -> sb.append("\\t");
        case '\b' -> sb.append("\\b");
        case '\f' -> sb.append("\\f");
        default -> {
          // Control characters, and the two line separators JavaScript treats as newlines.
          if (c < 0x20 || c == '\u2028' || c == '\u2029') {
            sb.append(String.format("\\u%04x", (int) c));
          } else {
            sb.append(c);
          }
        }
      }
    }
    sb.append('"');
  }

  /**
   * Parses one JSON value (surrounding whitespace allowed).
   *
   * @throws InvalidInputException naming the offset, line and column of the first defect
   */
  public static Object parse(String text) {
    Parser p = new Parser(text);
    p.skipSpace();
    Object value = p.value(0);
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("unexpected text after the value");
    }
    return value;
  }

  private static final class Parser {
    private final String text;
    private int pos;

    Parser(String text) {
      this.text = text;
    }

    Object value(int depth) {
      if (depth > MAX_DEPTH) {
        throw error("nesting deeper than " + MAX_DEPTH);
      }
      if (pos >= text.length()) {
        throw error("unexpected end of input");
      }
      char c = text.charAt(pos);
      switch (c) {
        case '{':
          return object(depth);
        case '[':
          return array(depth);
        case '"':
          return string();
        case 't':
          return literal("true", Boolean.TRUE);
        case 'f':
          return literal("false", Boolean.FALSE);
        case 'n':
          return literal("null", null);
        default:
          if (c == '-' || (c >= '0' && c <= '9')) {
            return number();
          }
          throw error("unexpected character '" + c + "'");
      }
    }

    private Map<String, Object> object(int depth) {
      pos++;
      Map<String, Object> map = new LinkedHashMap<>();
      skipSpace();
      if (consume('}')) {
        return map;
      }
      while (true) {
        skipSpace();
        if (pos >= text.length() || text.charAt(pos) != '"') {
          throw error("expected a string key");
        }
        int keyAt = pos;
        String key = string();
        skipSpace();
        expect(':');
        skipSpace();
        Object value = value(depth + 1);
        if (map.containsKey(key)) {
          pos = keyAt;
          throw error("duplicate key \"" + key + "\"");
        }
        map.put(key, value);
        skipSpace();
        if (consume('}')) {
          return map;
        }
        expect(',');
      }
    }

    private List<Object> array(int depth) {
      pos++;
      List<Object> list = new ArrayList<>();
      skipSpace();
      if (consume(']')) {
        return list;
      }
      while (true) {
        skipSpace();
        list.add(value(depth + 1));
        skipSpace();
        if (consume(']')) {
          return list;
        }
        expect(',');
      }
    }

    private String string() {
      pos++; // opening quote
      StringBuilder sb = new StringBuilder();
      while (true) {
        if (pos >= text.length()) {
          throw error("unterminated string");
        }
        char c = text.charAt(pos);
        if (c == '"') {
          pos++;
          return sb.toString();
        }
        if (c < 0x20) {
          throw error("unescaped control character in a string");
        }
        if (c != '\\') {
          sb.append(c);
          pos++;
          continue;
        }
        if (pos + 1 >= text.length()) {
          throw error("unterminated string");
        }
        char e = text.charAt(pos + 1);
        switch (e) {
          case '"', '\\', '/' -> sb.append(e);
          case 'b' -> sb.append('\b');
          case 'f' -> sb.append('\f');
          case 'n' -> sb.append('\n');
          case 'r' -> sb.append('\r');
          case 't' -> sb.append('\t');
          case 'u' -> {
            if (pos + 6 > text.length()) {
              throw error("truncated \\u escape");
            }
            int code = 0;
            for (int i = pos + 2; i < pos + 6; i++) {
              int digit = Character.digit(text.charAt(i), 16);
              if (digit < 0) {
                throw error("bad hex digit in a \\u escape");
              }
              code = code * 16 + digit;
            }
            sb.append((char) code);
            pos += 4;
          }
          default -> throw error("unknown escape '\\" + e + "'");
        }
        pos += 2;
      }
    }

    private Object number() {
      int start = pos;
      consume('-');
      if (consume('0')) {
        if (pos < text.length() && Character.isDigit(text.charAt(pos))) {
          throw error("leading zeros are not allowed");
        }
      } else if (!digits()) {
        throw error("expected digits");
      }
      boolean integral = true;
      if (consume('.')) {
        integral = false;
        if (!digits()) {
          throw error("expected digits after '.'");
        }
      }
      if (consume('e') || consume('E')) {
        integral = false;
        if (!consume('+')) {
          consume('-');
        }
        if (!digits()) {
          throw error("expected digits in the exponent");
        }
      }
      String literal = text.substring(start, pos);
      if (integral) {
        try {
          return Long.parseLong(literal);
        } catch (NumberFormatException e) {
          // Too large for a long: fall through to a double.
        }
      }
      return Double.parseDouble(literal);
    }

    private boolean digits() {
      int start = pos;
      while (pos < text.length() && text.charAt(pos) >= '0' && text.charAt(pos) <= '9') {
        pos++;
      }
      return pos > start;
    }

    private Object literal(String word, Object value) {
      if (!text.startsWith(word, pos)) {
        throw error("unexpected character '" + text.charAt(pos) + "'");
      }
      pos += word.length();
      return value;
    }

    private boolean consume(char c) {
      if (pos < text.length() && text.charAt(pos) == c) {
        pos++;
        return true;
      }
      return false;
    }

    private void expect(char c) {
      if (!consume(c)) {
        throw error(
            "expected '"
                + c
                + "' but "
                + (pos < text.length() ? "found '" + text.charAt(pos) + "'" : "the input ended"));
      }
    }

    void skipSpace() {
      while (pos < text.length()) {
        char c = text.charAt(pos);
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
          return;
        }
        pos++;
      }
    }

    InvalidInputException error(String what) {
      int line = 1;
      int column = 1;
      for (int i = 0; i < pos && i < text.length(); i++) {
        if (text.charAt(i) == '\n') {
          line++;
          column = 1;
        } else {
          column++;
        }
      }
      return new InvalidInputException(
          "Cannot parse JSON: "
              + what
              + " at offset "
              + pos
              + " (line "
              + line
              + ", column "
              + column
              + ")");
    }
  }
}
