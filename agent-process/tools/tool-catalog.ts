/**
 * The Tool Catalog of one step (tool spec §3): the Agent's `spec.tools` exports plus the tools
 * extensions registered so far, rebuilt before every step so a tool registered during step N is
 * offered in step N+1 (tool spec §12.3). Items are fresh copies: step middleware may edit or drop
 * them without affecting later steps.
 */
import type { ToolCatalogItem } from '../../shared/types/tools.ts';
import type { ToolRegistry } from './tool-registry.ts';

export function buildToolCatalog(registry: ToolRegistry): ToolCatalogItem[] {
  return registry.list().map((tool) => ({ ...tool.item }));
}
