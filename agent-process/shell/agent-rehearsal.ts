/**
 * A warm spare's rehearsal (issue 12: a new instance must not feel new). Before it says
 * `runtime.ready`, the spare receives a synthetic assignment for the preload's rehearsal plan,
 * starts as that agent in a scratch directory (the start an assignment gets) and answers one event
 * on the mock model, then throws it all away. What a process does only the first time — resolving
 * cached validators, compiling the start's, the engine's and the turn path's functions, first use
 * of the file APIs (`fs.fsync` included) — is then done when a real assignment arrives: measured,
 * it takes a new instance's engine + first turn from ~27 ms to ~5 ms, and going through the start
 * an assignment gets (not the engine alone) takes ~0.5–1 ms more off a new instance's first reply.
 * Best effort: a rehearsal that fails only leaves the spare as cold as before.
 */
import { accessSync, closeSync, constants, fsync, mkdtempSync, openSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDeferredLogger } from '../../shared/deferred-logger.ts';
import { isProcessAlive } from '../../shared/process-alive.ts';
import { within } from '../../shared/within.ts';
import { makeEvent, ORCHESTRATOR, ORCHESTRATOR_SOURCE } from '../../shared/ipc/control-events.ts';
import { type ControlPayloads, controlEvent, parseControl, type TurnReply } from '../../shared/ipc/control-protocol.ts';
import type { AgentRehearsal } from '../../shared/ipc/agent-preload.ts';
import { validateIpcMessage } from '../../shared/ipc/ipc-schemas.ts';
import type { ShellChannel } from '../../shared/child/child-shell.ts';
import { PendingReplies } from '../../shared/child/pending-replies.ts';
import { startAgent } from './agent-runtime.ts';
import { rehearsalTools, withRehearsalCall } from './rehearsal-tool.ts';

const REHEARSAL_KEY = 'rehearsal';
const REHEARSAL_INPUT = 'rehearsal';
/** Scratch directories are `<prefix><pid>-<random>`: whose they were is known after a crash. */
const SCRATCH_PREFIX = 'goondan-rehearsal-';
/** A scratch directory of the older form (no pid) this old is abandoned. */
const UNOWNED_SCRATCH_MAX_AGE_MS = 10 * 60_000;

/**
 * A rehearsal not answered by then is given up (a defect, or a mock script that streams slowly):
 * the spare says ready as it is instead of keeping new instances waiting for it.
 */
export const REHEARSAL_TIMEOUT_MS = 5_000;

/** Resolves true when the rehearsal ran its turn; false when the plan was refused, something failed or it took too long. */
export async function rehearseAgent(rehearsal: AgentRehearsal, timeoutMs = REHEARSAL_TIMEOUT_MS): Promise<boolean> {
  const root = scratchRoot();
  removeAbandonedScratch(root);
  const scratch = mkdtempSync(join(root, `${SCRATCH_PREFIX}${process.pid}-`));
  try {
    const agentPlan = { ...rehearsal.agentPlan, model: withRehearsalCall(rehearsal.agentPlan.model, REHEARSAL_INPUT) };
    const assignment = { role: 'agent' as const, agent: agentPlan.name, instanceKey: REHEARSAL_KEY, stateRoot: scratch, agentPlan, swarmPlan: rehearsal.swarmPlan };
    // The path a real assignment takes (IPC envelope, then the `runtime.assign` schema), which
    // also checks the rehearsal plan as strictly as a real one.
    const envelope = validateIpcMessage({ type: 'event', from: ORCHESTRATOR, to: 'pool', payload: controlEvent('runtime.assign', ORCHESTRATOR_SOURCE, assignment) });
    if (!envelope.ok || envelope.value.type !== 'event' || !parseControl(envelope.value.payload).ok) return false;
    // The start an assignment gets (agent-runtime.ts: inter-agent runtime, engine, turn queue),
    // then one event through it, answered and acknowledged as a real one is.
    const { channel, completed } = rehearsalChannel();
    const runtime = await startAgent(assignment, channel, {
      // Whatever a throwaway instance has to say is not the user's concern.
      logger: createDeferredLogger({ name: 'agent-rehearsal', level: 'silent' }),
      telemetry: false,
      // No handler of the plan's tools runs in a rehearsal, whatever the model asks: every call is
      // refused before it. Only the rehearsal's own no-op runs (the tool-call path, warmed).
      refuseToolCalls: 'a rehearsal runs no tool',
      ownTools: rehearsalTools,
    });
    runtime.onEvent(makeEvent('api.input', { kind: 'api', name: REHEARSAL_KEY }, { input: REHEARSAL_INPUT, instanceKey: REHEARSAL_KEY, replyTo: { target: ORCHESTRATOR, correlationId: REHEARSAL_KEY } }));
    const reply = await within(completed, timeoutMs, () => undefined);
    // A drain waits for the running turn: one that did not answer is left behind, not waited for.
    const drained = runtime.drain('orchestrator_shutdown', 0);
    if (!reply) {
      drained.catch(() => {});
      return false;
    }
    await drained;
    return reply.status === 'ok';
  } catch {
    return false;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
    await firstFileSync(root);
  }
}

/** Where a rehearsal's messages go: nowhere; its turn's acknowledgement, with the reply, ends it. */
function rehearsalChannel(): { channel: ShellChannel; completed: Promise<TurnReply> } {
  const { promise, resolve } = Promise.withResolvers<TurnReply>();
  const channel: ShellChannel = {
    transport: { send: () => true, onMessage: () => () => {}, close: () => {} },
    replies: new PendingReplies(),
    control(type, payload) {
      if (type === 'runtime.turn.completed') resolve((payload as ControlPayloads['runtime.turn.completed']).reply);
      return true;
    },
    post: () => true,
    observe: () => {},
  };
  return { channel, completed: promise };
}

/**
 * A rehearsal runs under `fsync: never` (no disk round of its own), so the first real turn's sync
 * would be this process's first `fs.fsync`, whose path through Bun's file thread pool is set up on
 * first use: measured, a new instance's first sync took 1.2 ms without this and 0.7–1.0 ms with it.
 * One fsync of the scratch root sets it up here: nothing on a memory-backed root; on a disk it
 * commits the scratch's churn now instead of inside a live instance's sync.
 */
function firstFileSync(root: string): Promise<void> {
  let fd: number;
  try {
    fd = openSync(root, 'r');
  } catch {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    fsync(fd, () => {
      closeSync(fd);
      resolve();
    });
  });
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
