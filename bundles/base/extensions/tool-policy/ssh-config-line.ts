/**
 * One ssh_config line given with `-o` (`-o KEYWORD=VALUE`, `-o 'KEYWORD VALUE'`, `-o 'KEYWORD = VALUE'`),
 * split as OpenSSH's readconf splits it; the keyword is case-insensitive.
 */
export interface ConfigLine {
  /** As written (`ProxyCommand`), for messages. */
  keyword: string;
  /** Lower case (`proxycommand`), for comparing. */
  key: string;
  setting: string;
}

const CONFIG_LINE = /^\s*([A-Za-z0-9]+)(?:\s*=\s*|\s+)([\s\S]*)$/;

export function readConfigLine(text: string): ConfigLine | undefined {
  const match = CONFIG_LINE.exec(text);
  if (!match) return undefined;
  const [, keyword = '', setting = ''] = match;
  return { keyword, key: keyword.toLowerCase(), setting };
}
