/**
 * ConnectorProcess entry (SPEC.md §6): one per Connection. It starts bare and becomes its
 * Connection when the orchestrator's `runtime.assign` arrives (shared/child/child-shell.ts).
 */
import { runChildShell } from '../shared/child/child-shell.ts';
import { startConnector } from './connector-runtime.ts';

runChildShell({ role: 'connector', start: startConnector });
