/**
 * The `download_file` exports of the chat tools: reads at most `maxBytes` of a provider file,
 * saves it inside the workspace (`savePath`, else `downloads/<name>`) and describes it; base64
 * only when asked, since a file in the model's context is expensive.
 */
import { basename } from 'node:path';
import type { JsonObject, ToolContext } from '../../../shared/types/index.ts';
import { NEVER_ABORTED } from './chat-api-client.ts';
import { BaseToolError, describeError } from './tool-error.ts';
import { openFileForWriting } from './file-system/verified-open.ts';
import { resolveWorkspacePath } from './workspace-path.ts';

export const DEFAULT_DOWNLOAD_MAX_BYTES = 3_000_000;

export interface DownloadOptions {
  url: string;
  headers: Record<string, string>;
  /** For errors; never the URL (it may hold the token). */
  label: string;
  fileName: string;
  maxBytes?: number;
  savePath?: string;
  includeBase64?: boolean;
  secrets: readonly string[];
}

export async function downloadToWorkspace(ctx: ToolContext, options: DownloadOptions): Promise<JsonObject> {
  const maxBytes = options.maxBytes ?? DEFAULT_DOWNLOAD_MAX_BYTES;
  // Checked before anything is fetched: a path outside the workspace fails without a download.
  const policy = { workdir: ctx.workdir, roots: [], allowOutsideWorkdir: false };
  const target = resolveWorkspacePath(policy, options.savePath ?? `downloads/${basename(options.fileName) || 'file'}`, 'savePath');
  let response: Response;
  try {
    response = await fetch(options.url, { headers: options.headers, signal: AbortSignal.any([ctx.signal ?? NEVER_ABORTED, AbortSignal.timeout(60_000)]) });
  } catch (error) {
    const text = options.secrets.reduce((message, secret) => message.split(secret).join('[redacted]'), describeError(error));
    throw new BaseToolError('E_TOOL_DOWNLOAD', `${options.label} failed: ${text}`);
  }
  if (!response.ok) throw new BaseToolError('E_TOOL_DOWNLOAD', `${options.label} failed: HTTP ${response.status}`);
  const declared = Number(response.headers.get('content-length') ?? '0');
  const body = new Uint8Array(await response.arrayBuffer());
  if (declared > maxBytes || body.byteLength > maxBytes) {
    throw new BaseToolError('E_TOOL_DOWNLOAD_TOO_LARGE', `${options.label}: the file is ${Math.max(declared, body.byteLength)} bytes, over maxBytes ${maxBytes}`, { suggestion: 'raise maxBytes if the file is really needed' });
  }
  // Opened through verified descriptors: a link swapped into the workspace since the check leads nowhere else.
  const opened = await openFileForWriting(policy, target, false);
  try {
    await opened.handle.truncate(0);
    await opened.handle.write(body);
  } finally {
    await opened.handle.close();
  }
  const mimeType = response.headers.get('content-type') ?? 'application/octet-stream';
  const result: JsonObject = { savedTo: target.display, bytes: body.byteLength, mimeType };
  if (options.includeBase64) result.base64 = Buffer.from(body).toString('base64');
  return result;
}
