/**
 * The bundle templates `goondan init` writes (files under templates/<name>/ at the package root)
 * and, per template, the message that shows it working offline.
 */
import { join } from 'node:path';

export const TEMPLATES_DIR = join(import.meta.dir, '..', '..', '..', 'templates');

export interface BundleTemplate {
  name: string;
  summary: string;
  /** An input the template's scripted model answers (printed in the next-steps `run` command). */
  sampleInput: string;
}

export const BUNDLE_TEMPLATES: readonly BundleTemplate[] = [
  { name: 'minimal', summary: 'one agent with one tool of its own', sampleInput: 'Count the words in: the quick brown fox' },
  { name: 'multi-agent', summary: 'a coordinator that asks a researcher agent, and a formatting tool', sampleInput: 'Research the moon' },
  { name: 'coder', summary: 'a coding agent with bash and file-system tools under a permission policy', sampleInput: 'Create a hello world script and run it.' },
  { name: 'mcp', summary: 'an agent using the tools of a local MCP server (stdio, no network)', sampleInput: 'Reverse the text: hello world' },
];

export const DEFAULT_TEMPLATE = 'minimal';

export function findTemplate(name: string): BundleTemplate | undefined {
  return BUNDLE_TEMPLATES.find((t) => t.name === name);
}
