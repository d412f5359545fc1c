/**
 * Cycle detection for requests (SPEC.md §2.6): nodes are `agent:instanceKey`, and the chain of
 * the caller's current turn travels in `metadata.__callChain`. A request whose target is already on
 * the chain would deadlock (the target is waiting on us), so it is refused before anything is sent.
 */

/** The chain after `targetNode`, or a cycle report when target is already on it. */
export function extendCallChain(chain: string[], targetNode: string): { ok: true; chain: string[] } | { ok: false; cycle: string[] } {
  if (chain.includes(targetNode)) return { ok: false, cycle: [...chain, targetNode] };
  return { ok: true, chain: [...chain, targetNode] };
}
