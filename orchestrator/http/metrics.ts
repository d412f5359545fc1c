/**
 * Counters behind `GET /metrics` (Prometheus text format 0.0.4). Gauges for process status are
 * computed at scrape time from the process table.
 */
import type { RuntimeEvent } from '../../shared/types/turns.ts';
import type { UsageTotals } from '../../shared/usage/usage-totals.ts';

type Labels = Record<string, string>;

class Counter {
  private readonly values = new Map<string, { labels: Labels; value: number }>();
  constructor(
    readonly name: string,
    readonly help: string,
  ) {}
  inc(labels: Labels = {}, by = 1): void {
    const key = JSON.stringify(labels);
    const entry = this.values.get(key);
    if (entry) entry.value += by;
    else this.values.set(key, { labels, value: by });
  }
  render(): string[] {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} counter`];
    for (const { labels, value } of this.values.values()) lines.push(`${this.name}${formatLabels(labels)} ${value}`);
    return lines;
  }
}

export class Metrics {
  readonly eventsRouted = new Counter('goondan_events_routed_total', 'Events routed by the orchestrator, by kind.');
  readonly restarts = new Counter('goondan_process_restarts_total', 'Process respawns after a crash, by agent.');
  readonly turns = new Counter('goondan_turns_total', 'Finished turns, by agent and result.');
  readonly toolCalls = new Counter('goondan_tool_calls_total', 'Tool calls, by tool and status.');
  readonly tokens = new Counter('goondan_tokens_total', 'Model tokens used, by agent and kind.');
  readonly malformedMessages = new Counter('goondan_malformed_messages_total', 'Dropped malformed IPC messages and HTTP bodies, by source.');
  readonly deadLetters = new Counter('goondan_dead_letters_total', 'Events given up after repeated crashes, by agent.');
  readonly instancesCollected = new Counter('goondan_instances_collected_total', 'Instances whose state was deleted after gcGraceSeconds idle, by agent.');
  readonly startFailures = new Counter('goondan_start_failures_total', 'Processes that could not start (runtime.failed or start-up timeout), by agent and code.');

  observe(event: RuntimeEvent): void {
    switch (event.type) {
      case 'turn.completed':
        this.turns.inc({ agent: event.agentName, result: event.finishReason });
        if (event.tokenUsage) {
          this.tokens.inc({ agent: event.agentName, kind: 'prompt' }, event.tokenUsage.promptTokens);
          this.tokens.inc({ agent: event.agentName, kind: 'completion' }, event.tokenUsage.completionTokens);
        }
        break;
      case 'turn.failed':
        this.turns.inc({ agent: event.agentName, result: 'failed' });
        break;
      case 'tool.completed':
        this.toolCalls.inc({ tool: event.toolName, status: event.status });
        break;
      case 'tool.failed':
        this.toolCalls.inc({ tool: event.toolName, status: 'failed' });
        break;
      default:
        break;
    }
  }

  render(
    processStatusCounts: Record<string, number>,
    uptimeSeconds: number,
    capacity?: { queued: number; maxLive: number },
    usage: ReadonlyArray<{ agent: string; instanceKey: string; totals: UsageTotals }> = [],
  ): string {
    const lines: string[] = [
      ...(capacity
        ? [
            '# HELP goondan_spawn_queue Agent instances waiting for a live-process slot (their events wait in the durable inbox).',
            '# TYPE goondan_spawn_queue gauge',
            `goondan_spawn_queue ${capacity.queued}`,
            '# HELP goondan_max_live_processes The live agent process limit (lifecycle.maxLiveProcesses, or derived from memory).',
            '# TYPE goondan_max_live_processes gauge',
            `goondan_max_live_processes ${capacity.maxLive}`,
          ]
        : []),
      '# HELP goondan_processes Child processes by kind and status.',
      '# TYPE goondan_processes gauge',
      ...Object.entries(processStatusCounts).map(([key, n]) => {
        const [kind = '', status = ''] = key.split('/');
        return `goondan_processes${formatLabels({ kind, status })} ${n}`;
      }),
      '# HELP goondan_uptime_seconds Seconds since the orchestrator started.',
      '# TYPE goondan_uptime_seconds gauge',
      `goondan_uptime_seconds ${uptimeSeconds.toFixed(3)}`,
    ];
    for (const counter of [this.eventsRouted, this.restarts, this.turns, this.toolCalls, this.tokens, this.malformedMessages, this.deadLetters, this.startFailures, this.instancesCollected]) {
      lines.push(...counter.render());
    }
    lines.push(...renderUsage(usage));
    return `${lines.join('\n')}\n`;
  }
}

/** Model calls, tokens and cost per agent instance, from the orchestrator's usage ledger. */
function renderUsage(usage: ReadonlyArray<{ agent: string; instanceKey: string; totals: UsageTotals }>): string[] {
  const calls = ['# HELP goondan_model_calls_total Model calls, by agent and instance.', '# TYPE goondan_model_calls_total counter'];
  const tokens = ['# HELP goondan_model_tokens_total Model tokens, by agent, instance and kind (prompt, completion, cached_prompt).', '# TYPE goondan_model_tokens_total counter'];
  const cost = ['# HELP goondan_model_cost_total Cost of model calls (Model.spec.pricing), by agent, instance and currency.', '# TYPE goondan_model_cost_total counter'];
  for (const { agent, instanceKey: instance, totals } of usage) {
    calls.push(`goondan_model_calls_total${formatLabels({ agent, instance })} ${totals.calls}`);
    tokens.push(`goondan_model_tokens_total${formatLabels({ agent, instance, kind: 'prompt' })} ${totals.promptTokens}`);
    tokens.push(`goondan_model_tokens_total${formatLabels({ agent, instance, kind: 'completion' })} ${totals.completionTokens}`);
    tokens.push(`goondan_model_tokens_total${formatLabels({ agent, instance, kind: 'cached_prompt' })} ${totals.cachedPromptTokens}`);
    for (const [currency, amount] of Object.entries(totals.cost)) cost.push(`goondan_model_cost_total${formatLabels({ agent, instance, currency })} ${amount}`);
  }
  return [...calls, ...tokens, ...cost];
}

function formatLabels(labels: Labels): string {
  const entries = Object.entries(labels);
  if (entries.length === 0) return '';
  const escape = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
  return `{${entries.map(([k, v]) => `${k}="${escape(v)}"`).join(',')}}`;
}
