/**
 * What `ssh-keygen` writes (checked with OpenSSH 9.2; it reads no options after its operands). With no
 * mode option it generates a key: `-f FILE` writes FILE and FILE.pub (and `-O write-attestation=PATH`
 * PATH); without -f it reads the file name from standard input (default ~/.ssh/id_TYPE), as `-p`
 * (rewrites the key) and `-c` (the key and its .pub) do. `-R HOST` and `-H` rewrite the known_hosts
 * file (`-f`, default ~/.ssh/known_hosts) and keep the old one as FILE.old; `-s CA` writes
 * NAME-cert.pub for each key NAME[.pub]; `-Y sign` writes FILE.sig for each FILE; `-k` writes the KRL
 * at -f (its -s is the CA key, not a signing); `-A` writes host keys under PREFIX/etc/ssh (`-f PREFIX`);
 * `-K` writes the resident keys it downloads into the current directory; `-M generate|screen` writes
 * its output file and `-O checkpoint=FILE`. The other modes print. `-D` and `-w` load a library
 * (PKCS#11, FIDO middleware), which runs its code.
 */
import type { CommandCall, CommandFacts } from './command-call.ts';
import { type ScannedOptions, hasOption, optionValues, scanOptions } from './option-scan.ts';
import { type Word, literalWord, runtimeWord } from './shell-words.ts';

/** ssh-keygen's getopt string, the options that take a value. */
const KEYGEN_VALUED = ['-b', '-C', '-D', '-E', '-F', '-I', '-M', '-N', '-O', '-P', '-R', '-V', '-Y', '-Z', '-a', '-f', '-m', '-n', '-r', '-s', '-t', '-w', '-z'];
/** Options that choose a mode other than generating a key. */
const MODES = ['-Y', '-k', '-Q', '-s', '-L', '-R', '-H', '-F', '-D', '-A', '-l', '-B', '-p', '-c', '-e', '-i', '-X', '-y', '-r', '-K', '-M'];
const HOST_KEY_TYPES = ['rsa', 'ecdsa', 'ed25519'];

/** A file named after another (`FILE.pub`, `FILE.sig`): only known at run time when that one is. */
const beside = (file: Word, name: (text: string) => string): Word => (file.literal ? literalWord(name(file.text)) : runtimeWord(name(file.text)));

/** `-O NAME=VALUE` values for NAME. */
const optionSettings = (scan: ScannedOptions, name: string): Word[] =>
  optionValues(scan, '-O').flatMap((o) => (o.text.startsWith(`${name}=`) ? [beside(o, (t) => t.slice(name.length + 1))] : []));

/** The key file `-p`, `-c` and generation act on: -f, or a name read from standard input. */
function keyFile(call: CommandCall, scan: ScannedOptions, what: string): Word | undefined {
  const [file] = optionValues(scan, '-f').slice(-1);
  if (!file) call.unresolved(`ssh-keygen ${what} without -f reads the file to write from standard input (default ~/.ssh/id_TYPE): name it with -f`);
  return file;
}

function judgeWrites(call: CommandCall, scan: ScannedOptions, operands: readonly Word[]): void {
  const [file] = optionValues(scan, '-f').slice(-1);
  const signing = optionValues(scan, '-Y').some((op) => !op.literal || op.text === 'sign');
  if (signing) for (const data of operands) call.write(beside(data, (t) => `${t}.sig`), 'ssh-keygen -Y sign');
  if (hasOption(scan, '-k') && file) call.write(file, 'ssh-keygen -k (KRL)');
  if (hasOption(scan, '-s') && !hasOption(scan, '-k')) for (const key of operands) call.write(beside(key, (t) => `${t.replace(/\.pub$/, '')}-cert.pub`), 'ssh-keygen -s (certificate)');
  if (hasOption(scan, '-R', '-H')) {
    const knownHosts = file ?? literalWord('~/.ssh/known_hosts');
    for (const target of [knownHosts, beside(knownHosts, (t) => `${t}.old`)]) call.write(target, hasOption(scan, '-R') ? 'ssh-keygen -R' : 'ssh-keygen -H');
  }
  if (hasOption(scan, '-A')) for (const type of HOST_KEY_TYPES) call.write(beside(file ?? literalWord(''), (t) => `${t}/etc/ssh/ssh_host_${type}_key`), 'ssh-keygen -A');
  // Downloaded resident keys are named id_TYPE_rk[_USER] in the current directory.
  if (hasOption(scan, '-K')) call.write(literalWord('id_ed25519_sk_rk'), 'ssh-keygen -K');
  if (hasOption(scan, '-M')) for (const target of [...operands.slice(0, 1), ...optionSettings(scan, 'checkpoint')]) call.write(target, 'ssh-keygen -M');
  const changes = hasOption(scan, '-p') ? '-p' : hasOption(scan, '-c') ? '-c' : undefined;
  if (changes) {
    const key = keyFile(call, scan, changes);
    if (key) for (const target of changes === '-c' ? [key, beside(key, (t) => `${t}.pub`)] : [key]) call.write(target, `ssh-keygen ${changes}`);
  }
  if (hasOption(scan, ...MODES)) return;
  const key = keyFile(call, scan, '(generating a key)');
  const generated = key ? [key, beside(key, (t) => `${t}.pub`)] : [];
  for (const target of [...generated, ...optionSettings(scan, 'write-attestation')]) call.write(target, 'ssh-keygen (new key)');
}

export function runSshKeygen(call: CommandCall): CommandFacts {
  const scan = scanOptions(call.args, { valued: KEYGEN_VALUED });
  for (const library of optionValues(scan, '-D')) call.unresolved(`ssh-keygen -D ${library.text} loads that PKCS#11 library, which runs its code`);
  for (const library of optionValues(scan, '-w')) {
    if (!(library.literal && library.text === 'internal')) call.unresolved(`ssh-keygen -w ${library.text} loads that FIDO middleware library, which runs its code`);
  }
  if (scan.runtimeWord) call.unresolved(`ssh-keygen has an argument only known at run time (${scan.runtimeWord.text}), which may be an option that writes a file (-f, -R)`);
  judgeWrites(call, scan, call.args.slice(scan.rest));
  return {};
}
