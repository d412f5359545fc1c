/**
 * The bash grammar, loaded once per process and only when a policy has command rules: tree-sitter
 * (`web-tree-sitter` runtime + the `tree-sitter-bash` grammar, both WebAssembly, no native build).
 * Chosen over `sh-syntax` (re-instantiates its Go wasm on every call, ~30 ms a parse, and its JSON
 * AST drops node kinds) and `mvdan-sh` (unmaintained GopherJS build, ~280 ms to load, ~170 µs a
 * parse); tree-sitter loads in ~50 ms and parses a typical command line in ~20 µs (bench/policy-parse.ts).
 */
import { createRequire } from 'node:module';
import { Language, Parser, type Tree } from 'web-tree-sitter';

export interface ShellParser {
  /** A syntax tree the caller must `delete()`; tree-sitter never throws on bad input, it marks ERROR nodes. */
  parse(text: string): Tree;
}

let loading: Promise<ShellParser> | undefined;

async function load(): Promise<ShellParser> {
  const grammar = createRequire(import.meta.url).resolve('tree-sitter-bash/tree-sitter-bash.wasm');
  await Parser.init();
  const parser = new Parser();
  parser.setLanguage(await Language.load(grammar));
  return {
    parse(text) {
      const tree = parser.parse(text);
      if (!tree) throw new Error('invariant: tree-sitter returned no tree although a language is set');
      return tree;
    },
  };
}

/** The process-wide bash parser; the first call pays the load (a failed load is retried next time). */
export function loadShellParser(): Promise<ShellParser> {
  loading ??= load().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}
