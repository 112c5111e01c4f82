package org.nlspark.core.io;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parses the small subset of Python literals an {@code .npy} header dict uses: dicts, tuples,
 * lists, quoted strings, integers, {@code True}/{@code False}/{@code None}. numpy reads the
 * header with {@code ast.literal_eval}; this is the same grammar, restricted, with no
 * evaluation. Values become {@link String}, {@link Long}, {@link Boolean}, {@code null},
 * {@link Tuple}, {@link List} or {@link Map} (insertion order kept).
 */
final class PyLiteral {
  /** A Python tuple; kept apart from a list because numpy requires the shape to be a tuple. */
  record Tuple(List<Object> items) {}

  /** A syntax error; {@link NpyHeader} turns it into a message naming the file. */
  static final class SyntaxError extends Exception {
    SyntaxError(String message) {
      super(message);
    }
  }

  private static final int MAX_DEPTH = 32;

  private final String text;
  private int pos;

  private PyLiteral(String text) {
    this.text = text;
  }

  /** Parses one literal that may be followed only by whitespace (numpy pads with spaces). */
  static Object parse(String text) throws SyntaxError {
    PyLiteral p = new PyLiteral(text);
    p.skipSpace();
    Object value = p.value(0);
    p.skipSpace();
    if (p.pos != text.length()) {
      throw p.error("unexpected text after the literal");
    }
    return value;
  }

  private Object value(int depth) throws SyntaxError {
    if (depth > MAX_DEPTH) {
      throw error("nesting deeper than " + MAX_DEPTH);
    }
    if (pos >= text.length()) {
      throw error("unexpected end of header");
    }
    char c = text.charAt(pos);
    switch (c) {
      case '{':
        return dict(depth);
      case '(':
        return new Tuple(sequence(')', depth, true));
      case '[':
        return sequence(']', depth, false);
      case '\'':
      case '"':
        return string();
      default:
        if (c == '-' || c == '+' || (c >= '0' && c <= '9')) {
          return integer();
        }
        if (Character.isLetter(c)) {
          return name();
        }
        throw error("unexpected character '" + c + "'");
    }
  }

  private Map<String, Object> dict(int depth) throws SyntaxError {
    pos++; // '{'
    Map<String, Object> map = new LinkedHashMap<>();
    skipSpace();
    while (!peek('}')) {
      int keyAt = pos;
      Object key = value(depth + 1);
      if (!(key instanceof String)) {
        pos = keyAt;
        throw error("dict keys must be strings");
      }
      skipSpace();
      expect(':');
      skipSpace();
      Object value = value(depth + 1);
      if (map.containsKey(key)) {
        pos = keyAt;
        throw error("duplicate key '" + key + "'");
      }
      map.put((String) key, value);
      skipSpace();
      if (!peek('}')) {
        expect(',');
        skipSpace();
      }
    }
    pos++; // '}'
    return map;
  }

  private List<Object> sequence(char close, int depth, boolean tuple) throws SyntaxError {
    pos++; // '(' or '['
    List<Object> items = new ArrayList<>();
    boolean trailingComma = false;
    skipSpace();
    while (!peek(close)) {
      items.add(value(depth + 1));
      skipSpace();
      trailingComma = false;
      if (!peek(close)) {
        expect(',');
        trailingComma = true;
        skipSpace();
      }
    }
    // "(3)" is the integer 3 in Python, not a tuple.
    if (tuple && items.size() == 1 && !trailingComma) {
      throw error("a one-element tuple needs a trailing comma");
    }
    pos++;
    return items;
  }

  private String string() throws SyntaxError {
    char quote = text.charAt(pos++);
    StringBuilder sb = new StringBuilder();
    while (true) {
      if (pos >= text.length()) {
        throw error("unterminated string");
      }
      char c = text.charAt(pos++);
      if (c == quote) {
        return sb.toString();
      }
      if (c == '\n') {
        throw error("line break inside a string");
      }
      if (c == '\\') {
        if (pos >= text.length()) {
          throw error("unterminated string");
        }
        char e = text.charAt(pos++);
        switch (e) {
          case '\\', '\'', '"' -> sb.append(e);
          case 'n' -> sb.append('\n');
          case 't' -> sb.append('\t');
          default -> throw error("unsupported escape '\\" + e + "'");
        }
      } else {
        sb.append(c);
      }
    }
  }

  private Long integer() throws SyntaxError {
    int start = pos;
    if (text.charAt(pos) == '-' || text.charAt(pos) == '+') {
      pos++;
    }
    int digits = pos;
    while (pos < text.length() && Character.isDigit(text.charAt(pos))) {
      pos++;
    }
    if (pos == digits) {
      pos = start;
      throw error("expected digits");
    }
    String literal = text.substring(start, pos);
    // Headers written by numpy under Python 2 spell long integers "3L".
    if (pos < text.length() && text.charAt(pos) == 'L') {
      pos++;
    }
    if (pos < text.length() && (text.charAt(pos) == '.' || text.charAt(pos) == 'e')) {
      pos = start;
      throw error("expected an integer");
    }
    try {
      return Long.parseLong(literal.startsWith("+") ? literal.substring(1) : literal);
    } catch (NumberFormatException e) {
      pos = start;
      throw error("integer " + literal + " does not fit in 64 bits");
    }
  }

  private Object name() throws SyntaxError {
    int start = pos;
    while (pos < text.length() && Character.isLetterOrDigit(text.charAt(pos))) {
      pos++;
    }
    String word = text.substring(start, pos);
    switch (word) {
      case "True":
        return Boolean.TRUE;
      case "False":
        return Boolean.FALSE;
      case "None":
        return null;
      default:
        pos = start;
        throw error("unknown name '" + word + "'");
    }
  }

  private boolean peek(char c) throws SyntaxError {
    if (pos >= text.length()) {
      throw error("unexpected end of header");
    }
    return text.charAt(pos) == c;
  }

  private void expect(char c) throws SyntaxError {
    if (!peek(c)) {
      throw error("expected '" + c + "' but found '" + text.charAt(pos) + "'");
    }
    pos++;
  }

  private void skipSpace() {
    while (pos < text.length()) {
      char c = text.charAt(pos);
      if (c != ' ' && c != '\t' && c != '\n' && c != '\r') {
        return;
      }
      pos++;
    }
  }

  private SyntaxError error(String what) {
    return new SyntaxError(what + " at character " + pos);
  }
}
