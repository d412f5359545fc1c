/**
 * OS isolation of tool subprocesses (issue 9): how `bash` commands and stdio MCP servers are run.
 * `SandboxSpec` is what a bundle writes (Swarm `policy.sandbox`, Agent `spec.sandbox`, a tool ref's
 * `config.sandbox`, an MCP server's `sandbox`); `SandboxPlan` is the resolved form; `ProcessSandbox`
 * is what a tool or extension receives to start a process with.
 */

/**
 * `bwrap`: run inside bubblewrap when it works here, else unsandboxed with a warning.
 * `required`: never run unsandboxed (the swarm does not start; a call fails with E_SANDBOX_UNAVAILABLE).
 * `none`: no sandbox (resource limits still apply).
 */
export type SandboxMode = 'bwrap' | 'none' | 'required';

/** Per-process limits of every process a call starts (prlimit); 0 = no limit. */
export interface SandboxLimits {
  /** RLIMIT_CPU: CPU seconds per process. */
  cpuSeconds: number;
  /** RLIMIT_AS: address space per process, in MiB. */
  memoryMb: number;
  /** RLIMIT_NPROC: processes and threads, counted per sandbox (enforced inside bwrap only, and not for root). */
  processes: number;
  /** RLIMIT_FSIZE: largest file a process may write, in MiB. */
  fileSizeMb: number;
}

/** The YAML form; every field optional, a narrower level overrides a wider one field by field. */
export interface SandboxSpec {
  mode?: SandboxMode;
  network?: boolean;
  limits?: Partial<SandboxLimits>;
  /** Extra absolute host paths visible read-only inside the sandbox (a toolchain, a server's code). */
  readOnlyPaths?: string[];
}

export interface SandboxPlan {
  mode: SandboxMode;
  network: boolean;
  limits: SandboxLimits;
  readOnlyPaths: string[];
}

/** `ToolContext.sandbox` / `ExtensionApi.sandbox`: the resolved plan plus where it applies. */
export interface ProcessSandbox extends SandboxPlan {
  /** The instance workspace: bound read-write at the same path, and HOME inside the sandbox. */
  workdir: string;
  /** Never visible, whatever else is bound (only the workspace inside it is). */
  stateRoot: string;
  /**
   * Hidden unless `readOnlyPaths` names them (the bundle directory, the daemon's home): covered with
   * an empty tmpfs when they lie under a directory the sandbox binds.
   */
  hiddenPaths: string[];
  /** Files shown empty (/dev/null) when a bound directory holds them: the daemon's env file with its keys. */
  hiddenFiles?: string[];
}
