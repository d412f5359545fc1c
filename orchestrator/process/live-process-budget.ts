/**
 * How many agent instance processes may live at once when the bundle does not say
 * (`Swarm.spec.policy.lifecycle.maxLiveProcesses`): the memory free at start, minus a reserve,
 * divided by the measured size of an agent process (an estimate until one has been measured).
 */
import { freemem } from 'node:os';

/** Until an agent process has been measured. */
const ESTIMATED_PROCESS_BYTES = 80 * 1024 * 1024;
/** Left for the daemon, tools and the rest of the machine. */
const RESERVED_SHARE = 0.25;
const MINIMUM = 4;

export class LiveProcessBudget {
  private processBytes = ESTIMATED_PROCESS_BYTES;
  private readonly availableBytes = freemem() * (1 - RESERVED_SHARE);

  constructor(private readonly configured: number | undefined) {}

  /** A measured resident size of an idle agent process refines the default. */
  measured(rssBytes: number): void {
    if (rssBytes > 0) this.processBytes = Math.max(this.processBytes === ESTIMATED_PROCESS_BYTES ? 0 : this.processBytes, rssBytes);
  }

  get limit(): number {
    return this.configured ?? Math.max(MINIMUM, Math.floor(this.availableBytes / this.processBytes));
  }

  get derived(): boolean {
    return this.configured === undefined;
  }
}
