/**
 * The ChildLauncher of the core tests: every launch is an in-memory transport pair and a FakeChild
 * with an increasing fake pid (beyond any real pid, so /proc lookups find nothing). Nothing is
 * spawned. New children get `behaviour` as it is at launch time.
 */
import type { ChildLauncher, LaunchedChild, LaunchOptions } from '../../../orchestrator/process/child-launcher.ts';
import { createMemoryTransportPair } from '../../../shared/ipc/memory-transport.ts';
import { eventually } from './eventually.ts';
import { type ChildBehaviour, DEFAULT_BEHAVIOUR, FakeChild } from './fake-child.ts';

/** Above the kernel's pid_max (at most 2^22): never a real process. */
const FIRST_FAKE_PID = 5_000_000;

export class MemoryLauncher implements ChildLauncher {
  readonly children: FakeChild[] = [];
  readonly launches: LaunchOptions[] = [];
  /** Raw values the orchestrator end refused (failed the IPC message schema). */
  readonly invalid: Array<{ pid: number; problems: string[]; raw: unknown }> = [];
  behaviour: ChildBehaviour;
  private nextPid = FIRST_FAKE_PID;

  constructor(behaviour: Partial<ChildBehaviour> = {}) {
    this.behaviour = { ...DEFAULT_BEHAVIOUR, ...behaviour };
  }

  launch(options: LaunchOptions): LaunchedChild {
    const pid = this.nextPid++;
    const pair = createMemoryTransportPair({ a: (problems, raw) => this.invalid.push({ pid, problems, raw }) });
    const child = new FakeChild(pid, pair.b, this.behaviour, Date.now());
    this.launches.push(options);
    this.children.push(child);
    return { handle: child.handle, transport: pair.a };
  }

  /** Every child assigned to `agent:instanceKey`, in launch order (incarnations). */
  assigned(agent: string, instanceKey: string): FakeChild[] {
    return this.children.filter((c) => c.assignment?.agent === agent && c.assignment.instanceKey === instanceKey);
  }

  /** The `n`-th child assigned to `agent:instanceKey` (1-based; 2 = first respawn). */
  waitForAssigned(agent: string, instanceKey: string, n = 1): Promise<FakeChild> {
    return eventually(() => this.assigned(agent, instanceKey)[n - 1], `assignment #${n} of ${agent}:${instanceKey}`, () => this.describe());
  }

  /** The `n`-th launched child (1-based), whatever it became. */
  waitForLaunch(n: number): Promise<FakeChild> {
    return eventually(() => this.children[n - 1], `launch #${n}`, () => this.describe());
  }

  describe(): string {
    return `${this.children.length} launches: ${this.children.map((c) => `${c.pid}=${c.key}${c.assignmentProblems ? `(invalid assignment: ${c.assignmentProblems.join('; ')})` : ''}${c.alive ? '' : '(exited)'}`).join(', ')}`;
  }
}
