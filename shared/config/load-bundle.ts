/**
 * loadBundle: discovery → YAML (with positions and limits) → per-document checks → references →
 * cross-resource checks → env warnings. Every problem of the run is collected; nothing throws for
 * a config problem. The built-in `@goondan/base` package is always loaded beside the user bundle.
 */
import { realpathSync } from 'node:fs';
import { resolve } from 'node:path';
import type { LoadedBundle, LoadedResource } from '../types/bundle.ts';
import { BASE_PACKAGE } from '../types/resources.ts';
import { kindValidator } from '../schemas/validators.ts';
import { BASE_PACKAGE_DIR, basePackageRealDir } from './base-package.ts';
import { type BundleDocument, isNamed, type NamedDocument } from './bundle-document.ts';
import { rememberDocument } from './bundle-internals.ts';
import { checkAgentNeeds, checkPromptConflict } from './check-agents.ts';
import { checkConnection } from './check-connections.ts';
import { checkConnectorEvents } from './check-connectors.ts';
import { checkDuplicateNames } from './check-duplicates.ts';
import { checkEntryModule } from './check-entry-modules.ts';
import { checkEnvelope } from './check-envelope.ts';
import { collectEnvWarnings } from './check-env.ts';
import { checkPackageDocs } from './check-package-docs.ts';
import { checkPaths } from './check-paths.ts';
import { checkRefs, type RefResolutions } from './check-refs.ts';
import { checkSandboxOverrides } from './check-sandbox.ts';
import { checkSchema } from './check-schema.ts';
import { checkSomethingToRun, checkSwarm } from './check-swarms.ts';
import { checkBudget } from './check-budget.ts';
import { checkAgentToolTimeouts, checkToolDeclarations } from './check-tool-declarations.ts';
import { checkLegacyTool, checkToolExports } from './check-tools.ts';
import { checkMockModel } from './check-mock-model.ts';
import { checkValueSources } from './check-value-sources.ts';
import { discoverBundle, discoverBundleFiles } from './discovery.ts';
import { ProblemSink } from './problem-sink.ts';
import { ResourceIndex } from './resource-index.ts';
import { locate } from './source-position.ts';
import { readYamlFile } from './yaml-file.ts';
import { loadBuiltinDocuments } from './builtin-yaml-cache.ts';

/** Built-in resources attached to agents implicitly (ARCHITECTURE §5), hence always "used". */
const IMPLICIT_BASE_EXTENSIONS = new Set(['context-message', 'required-tools-guard']);

function realDir(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

function loadDocuments(files: readonly string[], origin: { packageName: string; bundleRoot: string; builtin: boolean }, sink: ProblemSink): BundleDocument[] {
  return files.flatMap((file) => readYamlFile(file, origin, sink));
}

/** Per-document checks that need nothing but the document. */
function checkDocument(doc: NamedDocument, sink: ProblemSink): void {
  const schemaApplies = doc.kind !== 'Tool' || checkLegacyTool(doc, sink);
  if (schemaApplies) checkSchema(doc, sink);
  if (doc.kind === 'Tool' && schemaApplies) {
    checkToolExports(doc, sink);
    checkToolDeclarations(doc, sink);
  }
  if (doc.kind === 'Agent') {
    checkPromptConflict(doc, sink);
    checkAgentToolTimeouts(doc, sink);
  }
  checkSandboxOverrides(doc, sink);
  if (doc.kind === 'Connector') checkConnectorEvents(doc, sink);
  if (doc.kind === 'Model') checkMockModel(doc, sink);
  checkValueSources(doc, sink);
}

/** Built-in documents the user bundle actually uses (their missing entries are worth a warning). */
function usedBuiltins(docs: readonly NamedDocument[], resolutions: RefResolutions): Set<NamedDocument> {
  const used = new Set<NamedDocument>();
  for (const target of resolutions.targets()) if (target.builtin) used.add(target);
  if (docs.some((d) => d.kind === 'Agent' && !d.builtin)) {
    for (const d of docs) if (d.builtin && d.kind === 'Extension' && IMPLICIT_BASE_EXTENSIONS.has(d.name)) used.add(d);
  }
  return used;
}

function toLoadedResource(doc: NamedDocument): LoadedResource | undefined {
  const validate = kindValidator(doc.kind);
  if (!validate(doc.value)) return undefined;
  const { line, column } = doc.rootPosition ?? locate(doc.doc, doc.lineCounter, []);
  const resource: LoadedResource = {
    resource: doc.value,
    kind: doc.kind,
    name: doc.name,
    packageName: doc.packageName,
    bundleRoot: doc.bundleRoot,
    source: { file: doc.file, line, column, docIndex: doc.docIndex },
  };
  rememberDocument(resource, doc);
  return resource;
}

export interface LoadBundleOptions {
  /** Environment used to report missing variables of used resources as warnings (default process.env). */
  env?: Record<string, string | undefined>;
}

export async function loadBundle(path: string, options: LoadBundleOptions = {}): Promise<LoadedBundle> {
  const target = resolve(path);
  const baseReal = basePackageRealDir();
  const discovery = discoverBundle(target, new Set([resolve(BASE_PACKAGE_DIR), baseReal]));
  const sink = new ProblemSink();
  // Validating bundles/base itself: it is the built-in package, not a user bundle beside it.
  const isBase = realDir(discovery.rootDir) === baseReal && discovery.mainFile !== undefined;
  const userDocs = loadDocuments(discovery.files, { packageName: '', bundleRoot: discovery.rootDir, builtin: isBase }, sink);
  const baseDiscovery = isBase ? undefined : discoverBundleFiles(BASE_PACKAGE_DIR);
  const baseDocs = baseDiscovery ? loadBuiltinDocuments(baseDiscovery.files, { packageName: BASE_PACKAGE, bundleRoot: BASE_PACKAGE_DIR, builtin: true }, sink) : [];

  for (const doc of [...baseDocs, ...userDocs]) checkEnvelope(doc, sink);
  const userNamed = userDocs.filter(isNamed);
  const baseNamed = baseDocs.filter(isNamed);
  const declared = checkPackageDocs(userNamed, discovery.mainFile, sink);
  const packageName = isBase ? BASE_PACKAGE : declared;
  for (const doc of userNamed) doc.packageName = packageName;
  if (baseDiscovery) checkPackageDocs(baseNamed, baseDiscovery.mainFile, sink);

  // Dependencies first, then the bundle (SPEC.md §1.3 "deterministic").
  const all = [...baseNamed, ...userNamed];
  for (const doc of all) checkDocument(doc, sink);
  checkDuplicateNames(all, sink);
  const resolutions = checkRefs(all, new ResourceIndex(all), sink);
  const swarms = all.filter((d) => d.kind === 'Swarm');
  for (const doc of all) {
    if (doc.kind === 'Agent') checkAgentNeeds(doc, resolutions, sink);
    if (doc.kind === 'Swarm') {
      checkSwarm(doc, resolutions, sink);
      checkBudget(doc, resolutions, sink);
    }
    if (doc.kind === 'Connection') checkConnection(doc, swarms, resolutions, sink);
  }
  // Paths last: in the implicit built-in package only what the bundle uses is checked.
  const used = isBase ? undefined : usedBuiltins(all, resolutions);
  for (const doc of all) if (!doc.builtin || isBase || used?.has(doc)) checkPaths(doc, sink);
  // Entry modules without running them; the built-in ones only when validating bundles/base itself
  // (they are tested there, and parsing them on every load would only cost time).
  for (const doc of all) if (!doc.builtin || isBase) checkEntryModule(doc, sink);
  // Last, and only for an otherwise valid bundle: whether `goondan run` would find anything to start.
  if (!isBase && sink.errors.length === 0) checkSomethingToRun(userNamed, userDocs.length, discovery.mainFile, sink);

  const resources = all.flatMap((doc) => toLoadedResource(doc) ?? []);
  const bundle: LoadedBundle = {
    rootDir: discovery.rootDir,
    files: [...(baseDiscovery?.files ?? []), ...discovery.files],
    packageName,
    resources,
    errors: sink.errors,
    warnings: sink.warnings,
  };
  if (bundle.errors.length === 0) bundle.warnings.push(...collectEnvWarnings(bundle, options.env ?? process.env));
  return bundle;
}
