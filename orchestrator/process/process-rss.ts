/** Resident set size of a process from /proc (Linux); undefined elsewhere or once it is gone. */
export async function processRssBytes(pid: number): Promise<number | undefined> {
  try {
    const status = await Bun.file(`/proc/${pid}/status`).text();
    const match = /VmRSS:\s+(\d+) kB/.exec(status);
    return match?.[1] ? Number(match[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}
