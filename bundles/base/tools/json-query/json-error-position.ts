/**
 * Where a JSON text first goes wrong. Bun's JSON.parse (JavaScriptCore) reports no position, so a
 * small validating scanner walks the text after a failed parse and returns the offset of the first
 * character that cannot continue a valid document (the text length for an unexpected end).
 */

class SyntaxAt {
  constructor(readonly offset: number) {}
}

export function jsonErrorOffset(text: string): number | undefined {
  let pos = 0;
  const fail = (): never => {
    throw new SyntaxAt(pos);
  };
  const skipWhitespace = (): void => {
    while (pos < text.length && ' \t\n\r'.includes(text.charAt(pos))) pos += 1;
  };
  // A misspelt literal (`tru`, `nul`) is reported at its first character, where a reader looks.
  const expectWord = (word: string): void => {
    if (text.startsWith(word, pos)) pos += word.length;
    else fail();
  };
  const digits = (): void => {
    if (!/[0-9]/.test(text.charAt(pos))) fail();
    while (/[0-9]/.test(text.charAt(pos))) pos += 1;
  };
  const number = (): void => {
    if (text.charAt(pos) === '-') pos += 1;
    if (text.charAt(pos) === '0') pos += 1;
    else digits();
    if (text.charAt(pos) === '.') {
      pos += 1;
      digits();
    }
    if (text.charAt(pos) === 'e' || text.charAt(pos) === 'E') {
      pos += 1;
      if (text.charAt(pos) === '+' || text.charAt(pos) === '-') pos += 1;
      digits();
    }
  };
  const string = (): void => {
    pos += 1; // opening quote
    for (;;) {
      if (pos >= text.length) fail();
      const code = text.charCodeAt(pos);
      if (code === 0x22) {
        pos += 1;
        return;
      }
      if (code < 0x20) fail();
      if (code === 0x5c) {
        pos += 1;
        const escape = text.charAt(pos);
        if (escape === 'u') {
          for (let i = 1; i <= 4; i += 1) {
            pos += 1;
            if (!/[0-9a-fA-F]/.test(text.charAt(pos))) fail();
          }
        } else if (!'"\\/bfnrt'.includes(escape) || escape === '') fail();
      }
      pos += 1;
    }
  };
  const value = (): void => {
    skipWhitespace();
    const char = text.charAt(pos);
    if (char === '{') {
      pos += 1;
      skipWhitespace();
      if (text.charAt(pos) === '}') {
        pos += 1;
        return;
      }
      for (;;) {
        skipWhitespace();
        if (text.charAt(pos) !== '"') fail();
        string();
        skipWhitespace();
        if (text.charAt(pos) !== ':') fail();
        pos += 1;
        value();
        skipWhitespace();
        if (text.charAt(pos) === ',') pos += 1;
        else if (text.charAt(pos) === '}') {
          pos += 1;
          return;
        } else fail();
      }
    }
    if (char === '[') {
      pos += 1;
      skipWhitespace();
      if (text.charAt(pos) === ']') {
        pos += 1;
        return;
      }
      for (;;) {
        value();
        skipWhitespace();
        if (text.charAt(pos) === ',') pos += 1;
        else if (text.charAt(pos) === ']') {
          pos += 1;
          return;
        } else fail();
      }
    }
    if (char === '"') return string();
    if (char === '-' || /[0-9]/.test(char)) return number();
    if (char === 't') return expectWord('true');
    if (char === 'f') return expectWord('false');
    if (char === 'n') return expectWord('null');
    fail();
  };
  try {
    value();
    skipWhitespace();
    return pos < text.length ? pos : undefined;
  } catch (error) {
    if (error instanceof SyntaxAt) return error.offset;
    throw error;
  }
}
