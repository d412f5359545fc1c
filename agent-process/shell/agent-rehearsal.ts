/**
 * A warm spare's rehearsal (issue 12: a new instance must not feel new). Before it says
 * `runtime.ready`, the spare receives a synthetic assignment for the preload's rehearsal plan,
 * builds its engine in a scratch directory and runs one turn on the mock model, then throws it all
 * away. What a process does only the first time — resolving cached validators, compiling the
 * engine's and the turn path's functions, first use of the file APIs — is then done when a real
 * assignment arrives: measured, it takes a new instance's engine + first turn from ~27 ms to ~5 ms.
 * Best effort: a rehearsal that fails only leaves the spare as cold as before.
 */
import { accessSync, constants, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import { isProcessAlive } from '../../shared/process-alive.ts';
import { makeEvent, ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { controlEvent, parseControl } from '../../shared/ipc/control-protocol.ts';
import type { AgentRehearsal } from '../../shared/ipc/agent-preload.ts';
import { validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import { createAgentEngine } from '../engine/agent-engine.ts';

const REHEARSAL_KEY = 'rehearsal';
/** Scratch directories are `<prefix><pid>-<random>`: whose they were is known after a crash. */
const SCRATCH_PREFIX = 'goondan-rehearsal-';
/** A scratch directory of the older form (no pid) this old is abandoned. */
const UNOWNED_SCRATCH_MAX_AGE_MS = 10 * 60_000;

/** Resolves true when the rehearsal ran its turn; false when the plan was refused or something failed. */
export async function rehearseAgent(rehearsal: AgentRehearsal): Promise<boolean> {
  const root = scratchRoot();
  removeAbandonedScratch(root);
  const scratch = mkdtempSync(join(root, `${SCRATCH_PREFIX}${process.pid}-`));
  try {
    const assignment = { role: 'agent' as const, agent: rehearsal.agentPlan.name, instanceKey: REHEARSAL_KEY, stateRoot: scratch, ...rehearsal };
    // The path a real assignment takes (IPC envelope, then the `runtime.assign` schema), which
    // also checks the rehearsal plan as strictly as a real one.
    const envelope = validateIpcMessage({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload: controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignment) });
    if (!envelope.ok || envelope.value.type !== 'event' || !parseControl(envelope.value.payload).ok) return false;
    const engine = await createAgentEngine({
      plan: assignment.agentPlan,
      swarm: assignment.swarmPlan,
      instanceKey: REHEARSAL_KEY,
      stateRoot: scratch,
      // Whatever a throwaway engine has to say is not the user's concern.
      logger: createDeferredLogger({ name: 'agent-rehearsal', level: 'silent' }),
      env: process.env,
    });
    // No tool handler runs in a rehearsal, whatever the model asks: every call is refused before it.
    engine.abortToolCalls('a rehearsal runs no tool');
    try {
      const result = await engine.runTurn(makeEvent('api.input', { kind: 'api', name: REHEARSAL_KEY }, { input: 'rehearsal', instanceKey: REHEARSAL_KEY }));
      return result.finishReason !== 'error';
    } finally {
      await engine.close();
    }
  } catch {
    return false;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * GOONDAN_SCRATCH_DIR, else memory-backed when the machine has it (Linux /dev/shm): a rehearsal's
 * files, created and removed by every spare, then never touch the disk's journal, whose commits the
 * fsyncs of live instances wait for.
 */
function scratchRoot(): string {
  const configured = process.env.GOONDAN_SCRATCH_DIR;
  if (configured) return configured;
  try {
    accessSync(SHARED_MEMORY_DIR, constants.W_OK);
    return SHARED_MEMORY_DIR;
  } catch {
    return tmpdir();
  }
}

const SHARED_MEMORY_DIR = '/dev/shm';

/**
 * A spare killed mid-rehearsal (the pool stops idle spares with SIGKILL; a daemon may be killed)
 * leaves its scratch directory behind, and /dev/shm is memory: each rehearsal first removes those
 * of processes that are gone.
 */
export function removeAbandonedScratch(root: string, now = Date.now()): void {
  let names: string[];
  try {
    names = readdirSync(root).filter((name) => name.startsWith(SCRATCH_PREFIX));
  } catch {
    return;
  }
  for (const name of names) {
    const path = join(root, name);
    const owner = name.slice(SCRATCH_PREFIX.length).match(/^(\d+)-/)?.[1];
    try {
      const abandoned = owner === undefined ? now - statSync(path).mtimeMs > UNOWNED_SCRATCH_MAX_AGE_MS : Number(owner) !== process.pid && !isProcessAlive(Number(owner));
      if (abandoned) rmSync(path, { recursive: true, force: true });
    } catch {
      // Removed meanwhile by another spare.
    }
  }
}
