/**
 * The policy against the real shells: each line is run by /bin/sh (dash, what bash__exec uses) and
 * by bash in a fresh directory, with a harmless payload (`touch -- -hit`) in place of a delete. Every
 * line after which `-hit` exists must not be allowed under `deny: touch *` (default allow) — so
 * the policy sees what the shell actually runs, including where bash and dash parse differently
 * (the payload is also valid bash arithmetic: `((touch -- -hit))` is arithmetic to bash and two
 * subshells running touch to dash).
 */
import { beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Policy, evaluate } from '../../bundles/base/extensions/tool-policy/policy-rules.ts';
import { ShellAnalyzer } from '../../bundles/base/extensions/tool-policy/shell-analysis.ts';
import { loadShellParser } from '../../bundles/base/extensions/tool-policy/shell-parser.ts';

const DENY_TOUCH: Policy = { default: 'allow', rules: [{ tool: 'bash__exec', args: { command: 'touch *' }, action: 'deny' }] };
const SHELLS = ['/bin/sh', '/bin/bash'];
const MARKER = '-hit';

/** Single-quotes a string for sh. */
const q = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;
const SPELLINGS = ['touch', '/usr/bin/touch', '\\touch', '"touch"', "'touch'", "t''ouch", '"t"ouch', "$'touch'", "$'\\x74ouch'"];
// Wrappers that run here without a terminal, a network or another user, and return when done.
const WRAPPERS = [
  '', 'command ', 'exec ', 'env ', 'env -i A=1 ', 'nice -n 5 ', 'nohup ', 'timeout 5 ', 'stdbuf -oL ', 'ionice -c3 ', 'setsid -w ', 'chroot / ', 'flock lk ', 'nice timeout 5 env ',
  'setarch x86_64 ', 'setarch x86_64 -R ', 'linux64 ', 'x86_64 ', 'setpriv ', 'setpriv --nnp -- ', 'ssh-agent ', 'timeout --sig KILL 5 ', 'nice --adj 5 ',
  'unshare -r ', 'unshare --user -r ',
];
const CONTAINERS: Array<(c: string) => string> = [
  (c) => `(${c})`, (c) => `{ ${c}; }`, (c) => `if true; then ${c}; fi`, (c) => `if ${c}; then :; fi`, (c) => `while true; do ${c}; break; done`,
  (c) => `for i in 1; do ${c}; done`, (c) => `case a in a) ${c};; esac`, (c) => `f() { ${c}; }; f`, (c) => `echo $(${c})`, (c) => `echo \`${c}\``,
  (c) => `x=$(${c})`, (c) => `true && ${c}`, (c) => `false || ${c}`, (c) => `ls | ${c}`, (c) => `${c} &`, (c) => `! ${c}`, (c) => `ls\n${c}`,
  (c) => `sh -c ${q(c)}`, (c) => `bash -c ${q(c)}`, (c) => `sh -c ${q(`sh -c ${q(c)}`)}`, (c) => `eval ${q(c)}`, (c) => `eval ${c}`,
  (c) => `sh <<'EOF'\n${c}\nEOF`, (c) => `sh <<EOF\n${c}\nEOF`, (c) => `sh -s <<EOF\n${c}\nEOF`, (c) => `bash <<< ${q(c)}`, (c) => `cat <<EOF\n$(${c})\nEOF`,
  (c) => `trap ${q(c)} EXIT`, (c) => `env -S ${q(c)}`, (c) => `flock lk -c ${q(c)}`, (c) => `echo . | xargs ${c}`, (c) => `echo x | xargs -I{} ${c}`,
  (c) => `find . -maxdepth 0 -exec ${c} \\;`, (c) => `((${c}))`, (c) => `(( ${c} ))`, (c) => `x=${q(c)}; $x`, (c) => `x=${q(c)}; eval "$x"`,
  (c) => `echo ${q(c)} | sh`, (c) => `${c.replace(' ', '${IFS}')}`, (c) => `r() { ${c}; }; r`, (c) => `alias r=${q(c)}\nr`, (c) => `ls; ${c}; ls`,
  // Where dash (which bash__exec runs) and bash read the same text differently.
  (c) => `$'\\'; ${c}; #'`, (c) => `[[ -n x || ${c} ]]`, (c) => `[[ -n x ]] || ${c}`, (c) => `[ -n x ] || ${c}`, (c) => `echo $((${c}) )`, (c) => `echo $( (${c}) )`,
  (c) => `function f { ${c}; }; f`, (c) => `function f {\n${c}\n}`, (c) => `case x in (x) ${c};; esac`, (c) => `cat <<EOF; ${c}\nbody\nEOF`,
  (c) => `cat <<EOF\nbody\nEOF\n${c}`, (c) => `cat <<-EOF\n\tbody\n\tEOF\n${c}`, (c) => `cat <<'E'OF\nbody\nEOF\n${c}`, (c) => `cat << EOF\nEOF \n${c}\nEOF`,
  (c) => `sh <<< x\n${c}\n<`, (c) => `echo x#; ${c}`, (c) => `echo x #; ${c}`, (c) => `a=1 ${c}`, (c) => `${c.replace(' ', ' >/dev/null ')}`,
  (c) => `echo $"x"; ${c}`, (c) => `x=\$"; ${c}; #"`, (c) => `echo {a,b}; ${c}`, (c) => `echo a\\\n; ${c}`,
  // bash arithmetic evaluates a variable's value as an expression: a[$(cmd)] runs cmd.
  (c) => `x=${q(`a[$(${c})]`)}; echo $((x))`, (c) => `x=${q(`a[$(${c})]`)}; [[ $x -eq 0 ]]`, (c) => `x=${q(`a[$(${c})]`)}; declare -i y=$x`,
  (c) => `x=${q(`a[$(${c})]`)}; let y=x`, (c) => `x=${q(`a[$(${c})]`)}; a=(1); echo \${a[$x]}`, (c) => `y=${q(`$(${c})`)}; echo "\${y@P}"`,
  (c) => `x=${q(`a[$(${c})]`)}; for ((i=x; i<0; i++)); do :; done`, (c) => `x=${q(`a[$(${c})]`)}; ((x))`,
  // Programs that run a command given as an option value or argument.
  (c) => `echo a | split --filter=${q(c)}`, (c) => `echo a | split --filt ${q(c)}`, (c) => `tar -cf /dev/null --checkpoint=1 --checkpoint-action=exec=${q(c)} /etc/hostname`,
  (c) => `echo x > f; tar -cf a.tar f; tar -xf a.tar --to-command=${q(c)}`, (c) => `echo x > f; tar -cf a.tar f; tar -xf a.tar --to-com ${q(c)}`,
  (c) => `echo x > f; tar -I ${q(`${c}; cat`)} -cf a.tar f`, (c) => `echo x > f; tar cfI a.tar ${q(`${c}; cat`)} f`, (c) => `echo x > f; zip -q -T -TT ${q(`${c}; true`)} a.zip f`,
  (c) => `echo x > f; zip -q -X-TT ${q(`${c}; true`)} -T a.zip f`, (c) => `echo x > f; zip -q -dg-TT${q(`${c}; true`)} -T a.zip f`, (c) => `echo x > f; zip -q --unzip ${q(`${c}; true`)} -T a.zip f`,
  // rsync runs `-e CMD HOST rsync --server …`: with `sh -c` the host part of HOST:PATH is shell code.
  (c) => `rsync -e 'sh -c' . ${q(`${c};x:dst`)}`,
  // rsync splits -e itself, with no shell: `#x` is a word (ssh's login name), not a comment hiding the ProxyCommand after it.
  (c) => `echo x > f; rsync -e ${q(`ssh -l #x -o "ProxyCommand=${c}"`)} f nohost:x`,
  // scp, sftp and ssh-copy-id hand -o ProxyCommand to ssh, which runs it before it connects; sftp runs `!cmd` lines it reads (here from a local server).
  (c) => `echo x > f; scp -o ProxyCommand=${q(c)} f nohost:x`, (c) => `sftp -o ProxyCommand=${q(c)} nohost`,
  (c) => `printf '%s\n' ${q(`!${c}`)} | sftp -D /usr/lib/openssh/sftp-server`,
  (c) => `mkdir -p .ssh; ssh-keygen -q -t ed25519 -N '' -f k; ssh-copy-id -i k -o ProxyCommand=${q(c)} nohost`,
  (c) => `printf '%s\n' ${q(`!${c}`)} q | ed`, (c) => `sg "$(id -gn)" -c ${q(c)}`, (c) => `sg "$(id -gn)" ${q(c)}`,
  (c) => `script -qc ${q(c)} /dev/null`, (c) => `script -q /dev/null -c ${q(c)}`,
];

function lines(): string[] {
  const spelled = SPELLINGS.flatMap((spelling) => WRAPPERS.map((wrapper) => `${wrapper}${spelling} -- ${MARKER}`));
  const contained = [`touch -- ${MARKER}`, `/usr/bin/touch -- ${MARKER}`, `t''ouch -- ${MARKER}`].flatMap((command) => CONTAINERS.map((wrap) => wrap(command)));
  return [...spelled, ...contained];
}

/** Runs the line in an empty directory; true when the payload created the marker. */
async function runsPayload(shell: string, line: string): Promise<boolean> {
  const dir = mkdtempSync(join(tmpdir(), 'goondan-differential-'));
  try {
    // `wait` so a backgrounded payload has finished before we look; the policy sees the line alone.
    await Bun.spawn([shell, '-c', `${line}\nwait`], { cwd: dir, stdin: 'ignore', stdout: 'ignore', stderr: 'ignore', timeout: 20_000, env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: dir } }).exited;
    return existsSync(join(dir, MARKER));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The shells under which each line ran the payload, in the lines' order. Lines run a few at a time,
 * each in its own directory: one after another, the ~1,000 shell runs took 20–40 s, mostly waiting
 * for process starts.
 */
async function payloadRunners(lines: string[], atOnce = 4): Promise<string[][]> {
  const runners: string[][] = [];
  let next = 0;
  const worker = async () => {
    while (next < lines.length) {
      const at = next++;
      const line = lines[at] ?? '';
      const ran = await Promise.all(SHELLS.map((shell) => runsPayload(shell, line)));
      runners[at] = SHELLS.filter((_, i) => ran[i]);
    }
  };
  await Promise.all(Array.from({ length: atOnce }, worker));
  return runners;
}

let shell: ShellAnalyzer;
beforeAll(async () => {
  shell = new ShellAnalyzer(await loadShellParser());
});

describe('the policy sees what the real shell runs', () => {
  test('no line that makes dash or bash run the payload is allowed by a deny rule for it', async () => {
    const all = lines();
    const runnersOf = await payloadRunners(all);
    let ran = 0;
    const bypasses: string[] = [];
    for (const [at, line] of all.entries()) {
      const runners = runnersOf[at] ?? [];
      if (runners.length === 0) continue;
      ran += 1;
      const verdict = evaluate(DENY_TOUCH, 'bash__exec', { command: line }, false, shell);
      if (verdict.action === 'allow') bypasses.push(`${JSON.stringify(line)} runs touch under ${runners.join(' and ')} but is allowed (${verdict.explanation})`);
    }
    console.log(`policy differential: ${all.length} lines, ${ran} ran the payload under /bin/sh or bash, ${bypasses.length} bypasses`);
    // The table is only a proof if most lines really run the payload.
    expect(ran).toBeGreaterThan(all.length / 2);
    expect(bypasses).toEqual([]);
  }, 300_000);
});
