/**
 * Entry modules, checked without running them so that `validate` catches what `run` would hit:
 * every Tool / Extension / Connector module parses (E_MODULE_SYNTAX); a Tool module exports
 * `handlers` (tool spec §2.7, §7.2) with one handler per declared export and none undeclared
 * (tool spec §15; the loader refuses both); an Extension module exports `register` (SPEC.md §4.2).
 * Handler keys are compared only when `handlers` is an object literal; see entry-module.ts for
 * what cannot be known statically (those cases are never reported).
 */
import { relative } from 'node:path';
import { isJsonObject } from '../types/json.ts';
import { isLegacyTool } from './check-tools.ts';
import { describeDoc, type NamedDocument, specOf } from './bundle-document.ts';
import { resolveBundlePath } from './bundle-path.ts';
import {
  declarationLine,
  initializerStart,
  isExtendedLater,
  isSyntaxError,
  lookupExport,
  type ModuleSyntaxError,
  type ParsedModule,
  parseModule,
  propertyLine,
} from './entry-module.ts';
import { objectLiteralKeys } from './object-literal-keys.ts';
import type { ProblemSink } from './problem-sink.ts';
import { locate } from './source-position.ts';

const MODULE_KINDS = new Set(['Tool', 'Extension', 'Connector']);

interface ModuleCheck {
  doc: NamedDocument;
  /** `spec.entry` as written. */
  entry: string;
  /** `Tool/t (tools.yaml:6)`: names the resource and where it declares the entry. */
  label: string;
  sink: ProblemSink;
}

function reportSyntax(check: ModuleCheck, error: ModuleSyntaxError): void {
  check.sink.inModule(error, ['spec', 'entry'], 'E_MODULE_SYNTAX', `${check.label}: ${relative(check.doc.bundleRoot, error.file)} does not parse: ${error.message}`, {
    suggestion: 'fix the syntax at this position; Bun reports the same error when it loads the module',
  });
}

function declaredExports(doc: NamedDocument): Array<{ name: string; index: number }> {
  const exports = specOf(doc)?.exports;
  if (!Array.isArray(exports)) return [];
  return exports.flatMap((item, index) => (isJsonObject(item) && typeof item.name === 'string' ? [{ name: item.name, index }] : []));
}

function exportList(module: ParsedModule): string {
  return module.exports.size === 0 ? 'it exports nothing' : `it exports: ${[...module.exports].join(', ')}`;
}

function checkToolModule(check: ModuleCheck, module: ParsedModule): void {
  const declared = declaredExports(check.doc);
  const lookup = lookupExport(module, 'handlers');
  if (lookup.kind === 'syntax') return reportSyntax(check, lookup.error);
  if (lookup.kind === 'missing') {
    const handlers = declared.map((e) => `'${e.name}': async (ctx, input) => { … }`).join(', ');
    check.sink.inModule({ file: module.file, line: 1 }, ['spec', 'entry'], 'E_TOOL_HANDLERS_MISSING', `${check.label}: entry module ${check.entry} does not export "handlers" (${exportList(module)})`, {
      suggestion: `export the handlers by export name (tool spec §7.2): export const handlers = { ${handlers} };`,
    });
    return;
  }
  if (lookup.kind !== 'found') return;
  const definition = lookup.module;
  const start = initializerStart(definition, lookup.localName);
  const keys = start === undefined ? undefined : objectLiteralKeys(definition.js, start);
  // Not an object literal, or no usable exports to compare with (the schema check reports those).
  if (!keys || declared.length === 0) return;
  const line = declarationLine(definition, lookup.localName);
  const present = new Set(keys.keys);
  if (keys.complete && !isExtendedLater(definition, lookup.localName)) {
    for (const { name, index } of declared) {
      if (present.has(name)) continue;
      check.sink.inModule({ file: definition.file, line }, ['spec', 'exports', index, 'name'], 'E_TOOL_HANDLER_MISSING', `${check.label}: export "${name}" has no handler in ${relative(check.doc.bundleRoot, definition.file)} (handlers has: ${keys.keys.join(', ') || 'nothing'})`, {
        suggestion: `add '${name}': async (ctx, input) => { … } to handlers, or remove the export from spec.exports`,
      });
    }
  }
  const names = new Set(declared.map((e) => e.name));
  for (const key of keys.keys) {
    if (names.has(key)) continue;
    check.sink.inModule({ file: definition.file, line: propertyLine(definition, key, line) }, ['spec', 'exports'], 'E_TOOL_HANDLER_UNDECLARED', `${check.label}: handlers.${key} is not declared in spec.exports; the tool would not load`, {
      suggestion: `declare it under spec.exports (- name: ${key}) or remove it from handlers`,
    });
  }
}

function checkExtensionModule(check: ModuleCheck, module: ParsedModule): void {
  const lookup = lookupExport(module, 'register');
  if (lookup.kind === 'syntax') return reportSyntax(check, lookup.error);
  if (lookup.kind !== 'missing') return;
  check.sink.inModule({ file: module.file, line: 1 }, ['spec', 'entry'], 'E_EXT_REGISTER_MISSING', `${check.label}: entry module ${check.entry} does not export "register" (${exportList(module)})`, {
    suggestion: 'export async function register(api, config) { … } (SPEC.md §4.2)',
  });
}

export function checkEntryModule(doc: NamedDocument, sink: ProblemSink): void {
  if (!MODULE_KINDS.has(doc.kind)) return;
  const spec = specOf(doc);
  const entry = spec?.entry;
  if (typeof entry !== 'string' || entry === '') return;
  if (doc.kind === 'Tool' && isLegacyTool(spec)) return; // E_CONFIG_LEGACY_TOOL says it all
  const resolved = resolveBundlePath(doc.bundleRoot, entry, 'entry');
  if (!resolved.ok) return; // reported by checkPaths
  const module = parseModule(resolved.path);
  if (module === undefined) return;
  const { line } = locate(doc.doc, doc.lineCounter, ['spec', 'entry']);
  const check: ModuleCheck = { doc, entry, label: `${describeDoc(doc)} (${relative(doc.bundleRoot, doc.file)}:${line})`, sink };
  if (isSyntaxError(module)) return reportSyntax(check, module);
  if (doc.kind === 'Tool') checkToolModule(check, module);
  else if (doc.kind === 'Extension') checkExtensionModule(check, module);
}
