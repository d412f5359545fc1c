/**
 * A reply as it streams in: the `step.delta` chunks of one turn (by traceId, agent and instance)
 * appended in order. The composer's bubble shows `text` and how many chunks made it. Pure.
 */
import type { StepDelta } from './live-event.ts';

export class ReplyStream {
  private chunks: string[] = [];

  constructor(
    readonly traceId: string,
    readonly agent: string,
    readonly instanceKey: string,
  ) {}

  /** True when the delta belongs to this reply (and was added). */
  accept(delta: StepDelta): boolean {
    if (delta.traceId !== this.traceId || delta.agentName !== this.agent || delta.instanceKey !== this.instanceKey) return false;
    this.chunks.push(delta.text);
    return true;
  }

  get text(): string {
    return this.chunks.join('');
  }

  get chunkCount(): number {
    return this.chunks.length;
  }
}
