/**
 * The examples of the README and the guides (docs/guide/*.md), as a reader would run them against
 * the quick start's server:
 * - **curl commands**: every line of a shell block that starts with `curl` (with its `\` continuation
 *   lines), with the variable assignments before it in its block (`AUTH="Authorization: Token $TOKEN"`)
 *   and the response the doc shows right after it, if any: `#` comment lines that hold JSON, where
 *   `…` stands for what differs from run to run (`# {"status":"ok"}`);
 * - **URLs**: every other `http://127.0.0.1:8080…` in the text (prose, links, JavaScript and HTML
 *   recipes), requested with GET.
 * And every map a URL or path of the docs names (`/maps/ID/…`, `/api/maps/ID/…`), so that a map the
 * quick start does not make is caught where no example is requested too (a relative path in prose).
 */

import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

export const SERVER = 'http://127.0.0.1:8080';

export interface CurlExample {
  kind: 'curl';
  file: string;
  line: number;
  /** The command as written, continuation lines included. */
  command: string;
  /** `NAME=value` lines before it in its block, in order, as written. */
  assignments: { name: string; line: string }[];
  /** Whether its output goes through a pipe (`| jq …`): a response shown after it is the pipe's. */
  piped: boolean;
  /** The response the doc shows after it (JSON, `…` inside strings for what varies), or undefined. */
  shown?: unknown;
  /**
   * Variables the block then takes from that response: `KEY=Xq3…` after a response showing
   * `"token": "Xq3…"` is the `token` of the response.
   */
  captures: { name: string; field: string }[];
}

export interface UrlExample {
  kind: 'url';
  file: string;
  line: number;
  url: string;
}

export type Example = CurlExample | UrlExample;

/** README.md and docs/guide/*.md, relative to the repository. */
export function docFiles(repoRoot: string): string[] {
  const guides = readdirSync(path.join(repoRoot, 'docs/guide'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/guide/${name}`);
  return ['README.md', ...guides];
}

const SHELL_LANGUAGES = new Set(['sh', 'bash', 'shell', 'console']);
const URL_PATTERN = /http:\/\/127\.0\.0\.1:8080[^\s'"`<>()\]]*/g;
/** Quoted strings of a shell line, left out to find a pipe outside them. */
const QUOTED = /'[^']*'|"(?:[^"\\]|\\[\s\S])*"/g;

export function examplesOf(file: string, text: string): Example[] {
  const lines = text.split('\n');
  const examples: Example[] = [];
  const curlLines = new Set<number>();
  let block: string | null = null;
  let assignments: CurlExample['assignments'] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = /^\s*```(\S*)/.exec(lines[i]!);
    if (fence) {
      block = block === null ? fence[1]! : null;
      assignments = [];
      continue;
    }
    if (block === null || !SHELL_LANGUAGES.has(block)) continue;
    // A logical line: the physical ones joined by their trailing backslashes.
    const start = i;
    let command = lines[i]!;
    while (command.endsWith('\\') && i + 1 < lines.length) command += `\n${lines[++i]!}`;
    const trimmed = command.trim();
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(trimmed);
    if (assignment) assignments.push({ name: assignment[1]!, line: trimmed });
    if (!/^curl\s/.test(trimmed)) continue;
    for (let k = start; k <= i; k++) curlLines.add(k);
    const example: CurlExample = {
      kind: 'curl',
      file,
      line: start + 1,
      command: trimmed,
      assignments: [...assignments],
      piped: trimmed.replace(QUOTED, '').includes('|'),
      captures: [],
    };
    // The response shown: the comment lines right after it, when they hold JSON.
    const comments: string[] = [];
    for (let k = i + 1; k < lines.length && /^\s*#/.test(lines[k]!); k++) comments.push(lines[k]!.replace(/^\s*# ?/, ''));
    if (comments.length > 0 && /^\s*[{[]/.test(comments[0]!)) {
      const json = comments.join('\n');
      try {
        example.shown = JSON.parse(json);
      } catch (error) {
        throw new Error(`${file}:${start + 1}: the response shown after the command is not JSON (… goes inside strings): ${(error as Error).message}\n${json}`);
      }
    }
    examples.push(example);
  }
  // Assignments of a value the response shown holds (`KEY=Xq3…`) take it from the real response.
  for (const example of examples) {
    if (example.kind !== 'curl' || example.shown === null || typeof example.shown !== 'object' || example.piped) continue;
    const shown = Object.entries(example.shown).filter((entry): entry is [string, string] => typeof entry[1] === 'string' && entry[1].endsWith('…'));
    for (const { name, line } of assignmentsAfter(lines, example)) {
      const value = line.slice(name.length + 1).replace(/\s+#.*$/, '').trim();
      const field = shown.find(([, placeholder]) => placeholder === value)?.[0];
      if (field) example.captures.push({ name, field });
    }
  }
  lines.forEach((line, i) => {
    if (curlLines.has(i)) return;
    for (const match of line.matchAll(URL_PATTERN)) {
      examples.push({ kind: 'url', file, line: i + 1, url: match[0].replace(/[.,;:]+$/, '') });
    }
  });
  return examples.sort((a, b) => a.line - b.line);
}

/** The `NAME=value` lines of the block after a command, up to the next command. */
function assignmentsAfter(lines: string[], example: CurlExample): CurlExample['assignments'] {
  const assignments: CurlExample['assignments'] = [];
  for (let k = example.line - 1 + example.command.split('\n').length; k < lines.length && !/^\s*(```|curl\s)/.test(lines[k]!); k++) {
    const assignment = /^([A-Za-z_][A-Za-z0-9_]*)=/.exec(lines[k]!.trim());
    if (assignment) assignments.push({ name: assignment[1]!, line: lines[k]!.trim() });
  }
  return assignments;
}

/** The map ids that URLs and paths of the text name, with the line of each. */
export function mapsNamed(text: string): { id: string; line: number }[] {
  const named: { id: string; line: number }[] = [];
  text.split('\n').forEach((line, i) => {
    for (const match of line.matchAll(/(?:https?:\/\/[^\s/'"`]+|^|[\s`'"(])\/(?:api\/)?maps\/([A-Za-z0-9_-]+)\//g)) {
      named.push({ id: match[1]!, line: i + 1 });
    }
  });
  return named;
}

/**
 * Whether `actual` has what the doc shows: every field shown, with the value shown; a string with
 * `…` stands for any string. Returns what differs, or null.
 */
export function differenceFromShown(actual: unknown, shown: unknown, at = '$'): string | null {
  if (typeof shown === 'string' && shown.includes('…')) return typeof actual === 'string' ? null : `${at} should be a string, is ${JSON.stringify(actual)}`;
  if (Array.isArray(shown)) {
    if (!Array.isArray(actual) || actual.length !== shown.length) return `${at} should be an array of ${shown.length}, is ${JSON.stringify(actual)}`;
    for (let k = 0; k < shown.length; k++) {
      const difference = differenceFromShown(actual[k], shown[k], `${at}[${k}]`);
      if (difference) return difference;
    }
    return null;
  }
  if (shown !== null && typeof shown === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return `${at} should be an object, is ${JSON.stringify(actual)}`;
    for (const [field, value] of Object.entries(shown)) {
      if (!(field in actual)) return `${at}.${field} is missing`;
      const difference = differenceFromShown((actual as Record<string, unknown>)[field], value, `${at}.${field}`);
      if (difference) return difference;
    }
    return null;
  }
  return Object.is(actual, shown) ? null : `${at} should be ${JSON.stringify(shown)}, is ${JSON.stringify(actual)}`;
}

/** The examples of every doc file, read from the repository. */
export function allExamples(repoRoot: string): { file: string; text: string; examples: Example[] }[] {
  return docFiles(repoRoot).map((file) => {
    const text = readFileSync(path.join(repoRoot, file), 'utf8');
    return { file, text, examples: examplesOf(file, text) };
  });
}
