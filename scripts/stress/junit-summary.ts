/**
 * What `npm run test:stress` needs from one `bun test --reporter=junit` report: test and failure
 * counts, each test file's duration, and the failed tests by name. Bun writes the report in a fixed
 * shape (one top-level <testsuite> per file whose name is the file path, nested suites per
 * `describe`, a <failure> child in a failed <testcase>), so a few patterns read it without an XML
 * dependency.
 */

export interface FailedTest {
  file: string;
  /** `describe > … > test`, as the console reporter prints it. */
  name: string;
  /** First line of the failure message. */
  message: string;
}

export interface JunitSummary {
  tests: number;
  failures: number;
  skipped: number;
  /** Seconds per test file. */
  fileSeconds: Map<string, number>;
  failed: FailedTest[];
}

const ATTRIBUTE = /([\w:-]+)="([^"]*)"/g;

function attributesOf(tag: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const match of tag.matchAll(ATTRIBUTE)) attributes[match[1] ?? ''] = unescapeXml(match[2] ?? '');
  return attributes;
}

function unescapeXml(text: string): string {
  return text
    .replace(/&#(\d+);/g, (_whole, code: string) => String.fromCodePoint(Number(code)))
    .replace(/&quot;/g, '"')
    .replace(/&apos;/g, "'")
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

export function summarizeJunit(xml: string): JunitSummary {
  const root = attributesOf(/<testsuites\b[^>]*>/.exec(xml)?.[0] ?? '');
  const fileSeconds = new Map<string, number>();
  for (const [tag] of xml.matchAll(/<testsuite\b[^>]*>/g)) {
    const suite = attributesOf(tag);
    // A file's own suite is named after the file; nested suites are its describe blocks.
    if (suite.file !== undefined && suite.name === suite.file) fileSeconds.set(suite.file, Number(suite.time ?? 0));
  }
  const failed: FailedTest[] = [];
  for (const [, open, body] of xml.matchAll(/(<testcase\b[^>]*[^/]>)([\s\S]*?)<\/testcase>/g)) {
    const failure = /<failure\b[^>]*>/.exec(body ?? '');
    if (!failure) continue;
    const testcase = attributesOf(open ?? '');
    const describePath = testcase.classname ? `${testcase.classname} > ` : '';
    failed.push({
      file: testcase.file ?? '?',
      name: `${describePath}${testcase.name ?? '?'}`,
      message: (attributesOf(failure[0]).message ?? '').split('\n').find((line) => line.trim() !== '') ?? '',
    });
  }
  return { tests: Number(root.tests ?? 0), failures: Number(root.failures ?? 0), skipped: Number(root.skipped ?? 0), fileSeconds, failed };
}
