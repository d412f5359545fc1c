/**
 * Preloaded by `bun test` (bunfig.toml): the project's own tests hold tools to their declared
 * result schemas (issue 17) — a result that does not match `returns` is an E_TOOL_RESULT_INVALID
 * error instead of a logged warning, in engines started in-process and in every daemon and agent
 * process the tests spawn (they inherit the environment).
 */
process.env.GOONDAN_STRICT_RESULTS ??= '1';
