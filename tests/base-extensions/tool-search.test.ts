/**
 * tool-search through the real engine: the search tool finds catalog tools and selects them, the
 * next step's catalog holds only the selection (plus alwaysInclude and the search tool), a tool
 * outside it is refused by the catalog gate, `select` picks exact names and `[]` restores every
 * tool, and the selection lives in extension state across turns and restarts.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { JsonObject } from '../../shared/types/json.ts';
import type { ToolCatalogItem } from '../../shared/types/tools.ts';
import { searchCatalog, words } from '../../bundles/base/extensions/tool-search/search-catalog.ts';
import { ECHO_EXPORTS, echoTool, errorOf, failTool, fixtureTool, makePlan, startEngine, storedToolResults, userEvent, type EngineHarness, trackEngines } from '../agent-process/helpers/engine-fixture.ts';
import { baseExtension, blobTool, promptCapture, vaultTool } from './helpers/extension-plans.ts';

const harnesses = trackEngines();

const SEARCH = 'tool-search__search';
const search = (args: JsonObject) => ({ toolCalls: [{ name: SEARCH, args }], then: 'searched' });
const script: JsonObject = {
  rules: [
    { match: 'find repeat', ...search({ query: 'repeat text' }) },
    { match: 'find zebra', ...search({ query: 'zebra' }) },
    { match: 'pick vault', ...search({ select: ['vault__login', 'nope__missing'] }) },
    { match: 'reset', ...search({ select: [] }) },
    { match: 'empty search', ...search({}) },
    { match: 'say', toolCalls: [{ name: 'echo__say', args: { text: 'hi' } }], then: 'said' },
    { match: 'login', toolCalls: [{ name: 'vault__login', args: { user: 'ann', password: 'pw' } }], then: 'logged in' },
  ],
};

const ALL = ['echo__say', 'echo__inspect', 'echo__json', 'fail__throw', 'fail__long', 'fail__nonjson', 'blob__make', 'vault__login', SEARCH];

async function engine(config: JsonObject = { maxResults: 2 }, stateRoot?: string) {
  const capture = promptCapture();
  const h = await startEngine(
    makePlan({ tools: [echoTool(), failTool(), blobTool(), vaultTool()], script, extensions: [baseExtension('tool-search', config), capture.plan] }),
    stateRoot ? { stateRoot } : {},
  );
  harnesses.push(h);
  return { h, capture };
}

function lastOutput(h: EngineHarness): unknown {
  const output = storedToolResults(h.paths).at(-1)?.output;
  return typeof output === 'object' && output !== null && 'value' in output ? output.value : undefined;
}

describe('search selects, the next step narrows', () => {
  test('matches are returned and selected; from the next step the catalog is the selection plus the search tool', async () => {
    const { h, capture } = await engine();
    const result = await h.engine.runTurn(userEvent('find repeat'));
    expect(result.responseText).toBe('searched');
    const [first, second] = capture.steps;
    expect(first?.catalog).toEqual(ALL);
    expect(second?.catalog).toEqual(['echo__say', 'blob__make', SEARCH]);
    expect(lastOutput(h)).toEqual({
      matches: [
        { name: 'echo__say', description: 'Repeat a text.' },
        { name: 'blob__make', description: 'Produce a text of the given size.' },
      ],
      selected: ['echo__say', 'blob__make'],
      note: 'The matching tools are selected and available from your next step on.',
    });
  });

  test('a match shows the display name and the result schema (returns) its export declares (issue 17)', async () => {
    const returns: JsonObject = { type: 'string', description: 'The text, unchanged.' };
    const echo = fixtureTool('echo', 'echo.ts', ECHO_EXPORTS.map((e) => (e.name === 'say' ? { ...e, displayName: 'Repeat', returns } : e)));
    const h = await harnesses.start(makePlan({ tools: [echo], script, extensions: [baseExtension('tool-search', { maxResults: 1 })] }));
    await h.engine.runTurn(userEvent('find repeat'));
    expect(lastOutput(h)).toMatchObject({ matches: [{ name: 'echo__say', description: 'Repeat a text.', displayName: 'Repeat', returns }] });
  });

  test('a selected tool runs; an unselected one is refused by the catalog gate', async () => {
    const { h } = await engine();
    await h.engine.runTurn(userEvent('find repeat'));
    expect((await h.engine.runTurn(userEvent('say it'))).responseText).toBe('said');
    await h.engine.runTurn(userEvent('login now'));
    expect(errorOf(storedToolResults(h.paths).at(-1)?.output)).toMatchObject({ code: 'E_TOOL_NOT_IN_CATALOG' });
  });

  test('select picks exact names and reports unknown ones; select [] restores every tool; no match keeps the selection', async () => {
    const { h, capture } = await engine();
    await h.engine.runTurn(userEvent('pick vault'));
    expect(lastOutput(h)).toMatchObject({ selected: ['vault__login'], unknown: ['nope__missing'] });
    await h.engine.runTurn(userEvent('find zebra'));
    expect(lastOutput(h)).toMatchObject({ matches: [], selected: ['vault__login'], note: expect.stringContaining('unchanged') });
    expect(capture.steps.at(-1)?.catalog).toEqual(['vault__login', SEARCH]);
    await h.engine.runTurn(userEvent('reset'));
    expect(capture.steps.at(-1)?.catalog).toEqual(ALL);
  });

  test('alwaysInclude tools stay in the narrowed catalog', async () => {
    const { h, capture } = await engine({ maxResults: 1, alwaysInclude: ['vault__login'] });
    await h.engine.runTurn(userEvent('find repeat'));
    expect(capture.steps.at(-1)?.catalog).toEqual(['echo__say', 'vault__login', SEARCH]);
  });

  test('a call with neither query nor select is an error the model can act on', async () => {
    const { h } = await engine();
    await h.engine.runTurn(userEvent('empty search'));
    expect(errorOf(storedToolResults(h.paths).at(-1)?.output)).toMatchObject({ code: 'E_TOOL_INVALID_ARGS', suggestion: expect.stringContaining('"query"') });
  });
});

describe('the selection is instance state', () => {
  test('stored in extensions/tool-search.json and restored by a restarted engine', async () => {
    const first = await engine();
    await first.h.engine.runTurn(userEvent('pick vault'));
    await first.h.engine.close();
    expect(JSON.parse(readFileSync(join(first.h.paths.extensionsDir, 'tool-search.json'), 'utf8'))).toEqual({ selected: ['vault__login'] });

    const second = await engine({ maxResults: 2 }, first.h.stateRoot);
    expect((await second.h.engine.runTurn(userEvent('login again'))).responseText).toBe('logged in');
    expect(second.capture.steps[0]?.catalog).toEqual(['vault__login', SEARCH]);
  });

  test('over 30 turns every step offers exactly the tools the last successful selection chose', async () => {
    const { h, capture } = await engine();
    const cycle = ['find repeat', 'say', 'login', 'pick vault', 'login', 'find zebra', 'say', 'reset', 'login', 'say'];
    let selection: string[] = [];
    for (let turn = 0; turn < 30; turn++) {
      const text = cycle[turn % cycle.length] ?? 'say';
      const before = selection;
      if (text === 'find repeat') selection = ['echo__say', 'blob__make'];
      if (text === 'pick vault') selection = ['vault__login'];
      if (text === 'reset') selection = [];
      const result = await h.engine.runTurn(userEvent(`${text} ${turn}`));
      const steps = capture.steps.filter((step) => step.turnId === result.turnId);
      // Step 0 runs with the selection from before this turn; later steps with the one it made.
      const expected = (names: string[]) => (names.length === 0 ? ALL : ALL.filter((name) => names.includes(name) || name === SEARCH));
      expect({ turn, step: 0, catalog: steps[0]?.catalog }).toEqual({ turn, step: 0, catalog: expected(before) });
      for (const step of steps.slice(1)) expect({ turn, step: step.stepIndex, catalog: step.catalog }).toEqual({ turn, step: step.stepIndex, catalog: expected(selection) });
    }
  });
});

describe('searchCatalog (pure)', () => {
  const catalog: ToolCatalogItem[] = [
    { name: 'file-system__read', description: 'Read a file from the workspace.' },
    { name: 'file-system__write', description: 'Write text to a file.' },
    { name: 'http-fetch__get', description: 'Fetch a URL over HTTP and read the response.' },
    { name: 'slack__send', description: 'Send a message to a Slack channel.' },
  ];

  test('name words rank above description words; ties keep catalog order; maxResults caps', () => {
    expect(searchCatalog(catalog, 'read', 10).map((m) => m.name)).toEqual(['file-system__read', 'http-fetch__get']);
    expect(searchCatalog(catalog, 'file', 10).map((m) => m.name)).toEqual(['file-system__read', 'file-system__write']);
    expect(searchCatalog(catalog, 'send message slack', 1).map((m) => m.name)).toEqual(['slack__send']);
    expect(searchCatalog(catalog, 'fetch', 10)[0]?.score).toBe(4);
  });

  test('nothing for an empty or unmatched query', () => {
    expect(searchCatalog(catalog, '  ', 10)).toEqual([]);
    expect(searchCatalog(catalog, 'zebra', 10)).toEqual([]);
  });

  test('words split names on separators and case', () => {
    expect(words('File-System__READ')).toEqual(['file', 'system', 'read']);
  });
});
