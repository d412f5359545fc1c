/** What `npm run test:stress` reads from bun's JUnit report (scripts/stress/junit-summary.ts). */
import { describe, expect, test } from 'bun:test';
import { summarizeJunit } from '../../scripts/stress/junit-summary.ts';

// The shape `bun test --reporter=junit` writes: one suite per file, nested suites per describe.
const REPORT = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="bun test" tests="4" assertions="9" failures="1" skipped="1" time="3.5">
  <testsuite name="tests/a.test.ts" file="tests/a.test.ts" tests="2" assertions="3" failures="0" skipped="1" time="0.25" hostname="vm">
    <testsuite name="group" file="tests/a.test.ts" line="3" tests="2" assertions="3" failures="0" skipped="1" time="9.9" hostname="vm">
      <testcase name="passes" classname="group" time="0.1" file="tests/a.test.ts" line="4" assertions="3" />
      <testcase name="is skipped" classname="group" time="0" file="tests/a.test.ts" line="5" assertions="0">
        <skipped />
      </testcase>
    </testsuite>
  </testsuite>
  <testsuite name="tests/e2e/b.test.ts" file="tests/e2e/b.test.ts" tests="2" assertions="6" failures="1" skipped="0" time="3.25" hostname="vm">
    <testsuite name="outer &amp; &quot;inner&quot;" file="tests/e2e/b.test.ts" line="8" tests="2" assertions="6" failures="1" skipped="0" time="3.2" hostname="vm">
      <testcase name="the reply &lt;arrives&gt;" classname="outer &amp; &quot;inner&quot;" time="3.1" file="tests/e2e/b.test.ts" line="9" assertions="2">
        <failure type="AssertionError" message="expect(received).toBeGreaterThan(expected)&#10;&#10;Expected: &gt; 0&#10;Received: -1&#10;">AssertionError: …</failure>
      </testcase>
      <testcase name="another" classname="outer &amp; &quot;inner&quot;" time="0.1" file="tests/e2e/b.test.ts" line="20" assertions="4" />
    </testsuite>
  </testsuite>
</testsuites>
`;

describe('summarizeJunit', () => {
  test('counts come from the root; durations from each file suite, not its describe suites', () => {
    const summary = summarizeJunit(REPORT);
    expect({ tests: summary.tests, failures: summary.failures, skipped: summary.skipped }).toEqual({ tests: 4, failures: 1, skipped: 1 });
    expect([...summary.fileSeconds]).toEqual([
      ['tests/a.test.ts', 0.25],
      ['tests/e2e/b.test.ts', 3.25],
    ]);
  });

  test('a failed test is named by file, describe path and name, with the first line of its message', () => {
    expect(summarizeJunit(REPORT).failed).toEqual([
      { file: 'tests/e2e/b.test.ts', name: 'outer & "inner" > the reply <arrives>', message: 'expect(received).toBeGreaterThan(expected)' },
    ]);
  });

  test('an empty or truncated report yields zeros instead of throwing', () => {
    expect(summarizeJunit('')).toEqual({ tests: 0, failures: 0, skipped: 0, fileSeconds: new Map(), failed: [] });
  });
});
