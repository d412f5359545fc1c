/**
 * Reads what a chaos run left in the state root and counts what issue 10 forbids: accepted events
 * missing from every history, inputs that appear twice, and tool executions (counter lines) beyond
 * one per tool call the model made. Files being written may end in a torn line: such lines are
 * skipped while polling and counted once the daemon has stopped.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { instancesDir } from '../../shared/state-paths.ts';

interface StoredMessage {
  id: string;
  data: { role: string; content: unknown };
  metadata: Record<string, unknown>;
}

export interface ChaosAudit {
  instances: number;
  /** Input messages per event id, over all histories. */
  inputs: Map<string, number>;
  /** Final texts of finished turns (`done <label>`). */
  answers: Set<string>;
  toolCalls: number;
  toolResultsOk: number;
  interrupted: number;
  counterLines: number;
  /** Counter lines whose (message, call) the model never asked for, or a call counted twice. */
  extraExecutions: string[];
  /** An ok result without its execution (would mean a made-up result). */
  okWithoutExecution: string[];
  /** Histories (base with its edits, as an agent loads it) that do not start with their one system message. */
  systemPromptsOff: string[];
  tornLines: number;
}

export function auditChaos(stateRoot: string, workspaceId: string): ChaosAudit {
  const dir = instancesDir(stateRoot, workspaceId);
  const audit: ChaosAudit = {
    instances: 0,
    inputs: new Map(),
    answers: new Set(),
    toolCalls: 0,
    toolResultsOk: 0,
    interrupted: 0,
    counterLines: 0,
    extraExecutions: [],
    okWithoutExecution: [],
    systemPromptsOff: [],
    tornLines: 0,
  };
  if (!existsSync(dir)) return audit;
  for (const name of readdirSync(dir)) {
    const base = join(dir, name, 'messages', 'base.jsonl');
    if (!existsSync(base)) continue;
    audit.instances += 1;
    const executions = new Map<string, number>();
    for (const line of jsonLines(join(dir, name, 'workspace', 'counter.jsonl'), audit)) {
      const key = `${String(line.messageId)}/${String(line.toolCallId)}`;
      executions.set(key, (executions.get(key) ?? 0) + 1);
      audit.counterLines += 1;
    }
    const asked = new Set<string>();
    let callsOf = new Map<string, string>(); // toolCallId → key, for the latest assistant message
    const history = withEdits(jsonLines(base, audit) as unknown as StoredMessage[], jsonLines(join(dir, name, 'messages', 'base-edits.jsonl'), audit));
    const systemAt = history.flatMap((message, index) => (message.data.role === 'system' ? [index] : []));
    if (systemAt.length > 0 && (systemAt.length > 1 || systemAt[0] !== 0)) audit.systemPromptsOff.push(`${name}: system messages at ${systemAt.join(', ')}`);
    for (const message of history) {
      const { role, content } = message.data;
      if (role === 'user' && typeof message.metadata.eventId === 'string') {
        audit.inputs.set(message.metadata.eventId, (audit.inputs.get(message.metadata.eventId) ?? 0) + 1);
      }
      if (role === 'assistant') {
        callsOf = new Map();
        for (const part of parts(content)) {
          if (part.type === 'tool-call') {
            const key = `${message.id}/${String(part.toolCallId)}`;
            callsOf.set(String(part.toolCallId), key);
            asked.add(key);
            audit.toolCalls += 1;
          }
          if (part.type === 'text' && typeof part.text === 'string' && part.text.startsWith('done ')) audit.answers.add(part.text.slice(5));
        }
        if (typeof content === 'string' && content.startsWith('done ')) audit.answers.add(content.slice(5));
      }
      if (role === 'tool') {
        for (const part of parts(content)) {
          if (part.type !== 'tool-result') continue;
          const key = callsOf.get(String(part.toolCallId)) ?? `?/${String(part.toolCallId)}`;
          if (JSON.stringify(part.output).includes('E_TOOL_INTERRUPTED')) audit.interrupted += 1;
          else if (!JSON.stringify(part.output).includes('"error"')) {
            audit.toolResultsOk += 1;
            if ((executions.get(key) ?? 0) !== 1) audit.okWithoutExecution.push(`${name}: ${key}`);
          }
        }
      }
    }
    for (const [key, count] of executions) {
      if (!asked.has(key)) audit.extraExecutions.push(`${name}: ${key} ran but the model never asked for it`);
      else if (count > 1) audit.extraExecutions.push(`${name}: ${key} ran ${count} times`);
    }
  }
  return audit;
}

/** The base's replacements (`base-edits.jsonl`) applied, as an agent's load does. */
function withEdits(base: StoredMessage[], edits: Array<Record<string, unknown>>): StoredMessage[] {
  const messages = [...base];
  for (const edit of edits) {
    if (edit.type !== 'replace' || typeof edit.targetId !== 'string') continue;
    const at = messages.findIndex((message) => message.id === edit.targetId);
    if (at >= 0) messages[at] = edit.message as StoredMessage;
  }
  return messages;
}

function parts(content: unknown): Array<Record<string, unknown>> {
  return Array.isArray(content) ? content.filter((p): p is Record<string, unknown> => typeof p === 'object' && p !== null) : [];
}

function jsonLines(file: string, audit: ChaosAudit): Array<Record<string, unknown>> {
  if (!existsSync(file)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const raw of readFileSync(file, 'utf8').split('\n')) {
    if (raw.trim() === '') continue;
    try {
      out.push(JSON.parse(raw) as Record<string, unknown>);
    } catch {
      audit.tornLines += 1;
    }
  }
  return out;
}
