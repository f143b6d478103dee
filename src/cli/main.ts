import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createInterface } from 'node:readline/promises';
import type { AdminRequest } from '../admin.js';
import type { AccountSummary } from '../keys/accounts.js';
import type { IngestReport } from '../weather/ingest.js';
import type { FetchModel } from '../weather/providers/schedule.js';
import { commandsNamed, commandWords, RenderUsageError, SeedUsageError, usageOf } from './usage.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { callControl, ControlError, controlSocketPath } from '../platform/control.js';
import { ApiError } from '../platform/errors.js';
import { ArchiveError } from '../tools/osm/added-archive.js';
import { MapsUsageError } from '../tools/osm/publish.js';
import { ExtractError } from '../tools/osm/extract.js';
import { progressOn } from '../platform/progress.js';
import { embeddedDatabaseDir, embeddedLockFile } from '../platform/storage/open.js';
import { lockHolder } from '../platform/storage/lock.js';

/** A mistake in how the command was called; `words` name the command whose usage follows it. */
class UsageError extends Error {
  constructor(
    message: string,
    readonly words: string[] = [],
  ) {
    super(message);
  }
}

/** Options every command takes. */
const globalOptions = new Set(['data', 'config', 'help', 'version']);

/** Our one line for what node:util's parseArgs refuses, instead of its own text. */
function parseMistake(error: Error & { code?: string }): string {
  const option = /'(-[^' ]+)/.exec(error.message)?.[1] ?? 'an option';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option ${option}`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    // A value left out reads as missing at the end, and as ambiguous before another option.
    return /argument (missing|is ambiguous)/.test(error.message) ? `${option} needs a value` : `${option} takes no value`;
  }
  return 'Invalid arguments';
}

/**
 * `--bbox -10,40,10,50` as `--bbox=-10,40,10,50`: a value that starts with a minus sign and a digit
 * (a negative number) follows an option that takes a value; node:util's parseArgs would take it for
 * an option of its own and answer that the option needs a value.
 */
export function joinNegativeValues(argv: readonly string[], valued: ReadonlySet<string>): string[] {
  const joined: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    const name = arg.startsWith('--') ? arg.slice(2) : arg === '-o' ? 'output' : null;
    if (name !== null && !name.includes('=') && valued.has(name) && next !== undefined && /^-\.?\d/.test(next)) {
      joined.push(`--${name}=${next}`);
      i++;
    } else {
      joined.push(arg);
    }
  }
  return joined;
}

/** The version of this installation, from its package.json. */
function version(): string {
  return (JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
}

/**
 * The command named by the positionals, checked: a known command with a sub-command when it has
 * some, and only options it takes. Throws UsageError naming the mistake.
 */
function checkCommand(command: string, sub: string | undefined, given: string[]): void {
  const subs = commandWords.get(command);
  if (subs === undefined) throw new UsageError(`Unknown command "${command}"`);
  if (subs.length > 0 && sub === undefined) throw new UsageError(`${command} needs a command: ${subs.join(', ')}`, [command]);
  if (subs.length > 0 && !subs.includes(sub!)) throw new UsageError(`Unknown ${command} command "${sub}"`, [command]);
  const [named] = commandsNamed(subs.length > 0 ? [command, sub!] : [command]);
  const refused = given.find((option) => !globalOptions.has(option) && !named!.options.includes(option));
  if (refused !== undefined) throw new UsageError(`${named!.name} does not take --${refused}`, named!.name.split(' '));
}

/** Runs the `meridian` command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  const options = {
    data: { type: 'string' },
    config: { type: 'string' },
    port: { type: 'string' },
    host: { type: 'string' },
    account: { type: 'string' },
    key: { type: 'string' },
    since: { type: 'string' },
    model: { type: 'string' },
    run: { type: 'string' },
    attribution: { type: 'string' },
    center: { type: 'string' },
    bounds: { type: 'string' },
    auto: { type: 'boolean' },
    size: { type: 'string' },
    format: { type: 'string' },
    path: { type: 'string', multiple: true },
    markers: { type: 'string', multiple: true },
    padding: { type: 'string' },
    language: { type: 'string' },
    output: { type: 'string', short: 'o' },
    out: { type: 'string' },
    id: { type: 'string' },
    minzoom: { type: 'string' },
    maxzoom: { type: 'string' },
    store: { type: 'string' },
    bbox: { type: 'string' },
    zooms: { type: 'string' },
    'tile-size': { type: 'string' },
    scale: { type: 'string' },
    yes: { type: 'boolean' },
    json: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
    version: { type: 'boolean' },
  } as const;
  const valued = new Set(Object.entries(options).flatMap(([name, option]) => (option.type === 'string' ? [name] : [])));
  try {
    parsed = parseArgs({ args: joinNegativeValues(argv, valued), allowPositionals: true, options });
  } catch (error) {
    // The command's own usage when its name is among the arguments.
    const words = argv.filter((arg) => !arg.startsWith('-'));
    const command = words.findIndex((word) => commandWords.has(word));
    process.stderr.write(`meridian: ${parseMistake(error as Error)}\n\n${usageOf(command < 0 ? [] : words.slice(command, command + 2))}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, argument, ...more] = positionals;
  if (values.version) {
    process.stdout.write(`meridian ${version()}\n`);
    return 0;
  }
  if (command === 'help' || (values.help && command)) {
    const words = command === 'help' ? positionals.slice(1) : positionals;
    if (words.length > 0 && !commandWords.has(words[0]!)) {
      process.stderr.write(`meridian: Unknown command "${words[0]}"\n\n${usageOf([])}\n`);
      return 2;
    }
    process.stdout.write(`${usageOf(words)}\n`);
    return 0;
  }
  if (values.help || !command) {
    process.stdout.write(`${usageOf([])}\n`);
    return command || values.help ? 0 : 2;
  }
  try {
    checkCommand(command, sub, Object.keys(values));
    const config = loadConfig({
      file: values.config ?? process.env.MERIDIAN_CONFIG,
      env: process.env,
      flags: { dataDir: values.data, port: values.port, host: values.host },
    });
    // Each command's code is imported when it runs, so that `--version`, `help` and a usage
    // mistake answer at once instead of after loading the server, the renderer and PROJ (about 1 s).
    if (command === 'serve') return await serve(config);
    if (command === 'render') {
      if (!sub) throw new UsageError('render needs a MAP', ['render']);
      if (!values.size || !values.output) throw new UsageError('render needs --size WxH[@2x] and -o FILE', ['render']);
      const { renderToFile } = await import('./render.js');
      const bytes = await renderToFile(config, {
        map: sub,
        center: values.center,
        bounds: values.bounds,
        auto: values.auto,
        size: values.size,
        format: values.format,
        path: values.path ?? [],
        markers: values.markers ?? [],
        attribution: values.attribution,
        padding: values.padding,
        language: values.language,
        out: values.output,
      });
      process.stderr.write(`Wrote ${values.output} (${bytes} bytes)\n`);
      return 0;
    }
    if (command === 'maps') {
      const mapsDir = async () => (await import('../maps/registry.js')).MapRegistry.folderOf(config);
      if (sub === 'build-sprite') {
        if (!argument || more.length !== 1) throw new UsageError('maps build-sprite needs SVG_DIR and OUT_BASE', ['maps', 'build-sprite']);
        const { buildSprite } = await import('../tools/sprite/build.js');
        print(await buildSprite(path.resolve(argument), path.resolve(more[0]!)));
        return 0;
      }
      if (sub === 'import') {
        if (!argument || more.length > 0) throw new UsageError('maps import needs one EXTRACT file', ['maps', 'import']);
        const zoom = (value: string) => (/^\d+$/.test(value) ? Number(value) : NaN);
        const { importExtract } = await import('../tools/osm/import.js');
        const { writeGeocodingIndex } = await import('../geocoding/extracts/import.js');
        print(
          await importExtract(argument, {
            mapsDir: await mapsDir(),
            ...(values.id === undefined ? {} : { id: values.id }),
            ...(values.minzoom === undefined ? {} : { minzoom: zoom(values.minzoom) }),
            ...(values.maxzoom === undefined ? {} : { maxzoom: zoom(values.maxzoom) }),
            ...(values.store === undefined ? {} : { store: path.resolve(values.store) }),
            geocodingIndex: (options) => writeGeocodingIndex({ ...options, dataDir: config.dataDir }),
            progress: progressOn(process.stderr),
          }),
        );
        return 0;
      }
      if (sub === 'seed') {
        if (!argument || more.length > 0) throw new UsageError('maps seed needs one MAP', ['maps', 'seed']);
        const { seedTiles } = await import('./seed.js');
        print(
          await seedTiles(config, {
            map: argument,
            bbox: values.bbox,
            zooms: values.zooms,
            tileSize: values['tile-size'],
            format: values.format,
            scale: values.scale,
            language: values.language,
            progress: progressOn(process.stderr),
          }),
        );
        return 0;
      }
      if (sub === 'add') {
        if (!argument || more.length > 0) throw new UsageError('maps add needs one ARCHIVE (a file or an http(s) URL)', ['maps', 'add']);
        const { addArchive } = await import('../tools/osm/add.js');
        print(
          await addArchive(argument, {
            mapsDir: await mapsDir(),
            ...(values.id === undefined ? {} : { id: values.id }),
            progress: progressOn(process.stderr),
          }),
        );
        return 0;
      }
      const { buildWorld } = await import('../tools/world/build.js');
      print(await buildWorld(path.resolve(values.out ?? (await mapsDir())), { progress: progressOn(process.stderr) }));
      return 0;
    }
    if (command === 'coordinates') {
      const { buildCoordinatesCache } = await import('../coordinates/build-cache.js');
      const { coordinatesCacheDirectoryOf } = await import('../coordinates/config.js');
      print(await buildCoordinatesCache(coordinatesCacheDirectoryOf(config), config.coordinates, progressOn(process.stderr)));
      return 0;
    }
    if (command === 'geocoding') {
      const { buildWorldIndex } = await import('../geocoding/index-cache.js');
      print(await buildWorldIndex(config.dataDir));
      return 0;
    }
    if (command === 'migrate') {
      const { openMeridian } = await import('../meridian.js');
      const meridian = await openMeridian(config);
      await meridian.close();
      process.stdout.write('Database is up to date\n');
      return 0;
    }
    let args = argument === undefined ? [] : [argument, ...more];
    if (command === 'accounts' && sub === 'revoke-token') {
      if (args.length === 0) args = [(await readStandardInput()).trim()];
      else process.stderr.write('Warning: a token given as an argument is visible to other users (ps) and kept in shell history; give it on standard input\n');
    }
    const request = await adminRequest(command, sub, args, values);
    if (request.op === 'accounts.delete' && !values.yes) await confirmDeletion(config, request.accountId);
    const result = await runAdmin(config, request);
    const listing = request.op === 'usage' || request.op === 'accounts.list';
    if (listing && !values.json && process.stdout.isTTY && Array.isArray(result)) process.stdout.write(formatTable(result as Record<string, unknown>[]));
    else print(result);
    // An ingest that published some files but not others has not done what was asked.
    const failed = request.op === 'weather.ingest' ? (result as IngestReport).failed : [];
    if (failed.length > 0) {
      process.stderr.write(`Not ingested:\n${failed.join('\n')}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof RenderUsageError) {
      const words = error instanceof UsageError ? error.words : ['render'];
      process.stderr.write(`meridian: ${error.message}\n\n${usageOf(words)}\n`);
      return 2;
    }
    if (error instanceof MapsUsageError || error instanceof SeedUsageError) {
      process.stderr.write(`meridian: ${error.message}\n\n${usageOf(['maps', sub ?? ''])}\n`);
      return 2;
    }
    if (error instanceof ConfigError || error instanceof ControlError || error instanceof ApiError || error instanceof ExtractError || error instanceof ArchiveError) {
      process.stderr.write(`${error.message}\n`);
      return 1;
    }
    process.stderr.write(`meridian: ${(error as Error).message}\n`);
    return 1;
  }
}

async function adminRequest(
  command: string,
  sub: string | undefined,
  args: string[],
  values: {
    account?: string | undefined;
    key?: string | undefined;
    since?: string | undefined;
    model?: string | undefined;
    attribution?: string | undefined;
    run?: string | undefined;
  },
): Promise<AdminRequest> {
  const [argument] = args;
  if (command === 'weather' && sub === 'fetch') {
    const { fetchModels } = await import('../weather/providers/schedule.js');
    const model = values.model ?? 'gfs';
    if (!(fetchModels as readonly string[]).includes(model)) {
      throw new UsageError(`weather fetch knows the models ${fetchModels.join(', ')}, not "${model}"`, ['weather', 'fetch']);
    }
    return { op: 'weather.fetch', model: model as FetchModel, run: values.run ?? 'latest' };
  }
  if (command === 'weather') {
    if (args.length === 0) throw new UsageError('weather ingest needs at least one FILE', ['weather', 'ingest']);
    const model = values.model ?? 'gfs';
    if (!/^[a-z0-9_-]{1,32}$/.test(model)) throw new UsageError('--model must be 1 to 32 of a-z, 0-9, _ and -', ['weather', 'ingest']);
    // Before anything opens the data directory (which makes it, with a master key and a database):
    // when no file can be ingested, nothing is made. With some good files, the ingest publishes
    // them and names the others, as it does for files that fail later.
    const problems = args.map(gribInputProblem);
    if (problems.every((problem) => problem !== null)) throw new ControlError(problems.join('\n'));
    return { op: 'weather.ingest', files: args.map((file) => path.resolve(file)), model, attribution: values.attribution ?? model.toUpperCase() };
  }
  if (command === 'usage') {
    return {
      op: 'usage',
      ...(values.account ? { accountId: values.account } : {}),
      ...(values.key ? { keyId: values.key } : {}),
      ...(values.since ? { since: values.since } : {}),
    };
  }
  const needs = (what: string) => {
    if (!argument) throw new UsageError(`accounts ${sub} needs ${what}`, ['accounts', sub!]);
    return argument;
  };
  switch (sub) {
    case 'create':
      return { op: 'accounts.create', name: needs('NAME') };
    case 'list':
      return { op: 'accounts.list' };
    case 'rename':
      if (args.length !== 2) throw new UsageError('accounts rename needs ACCOUNT and NAME', ['accounts', 'rename']);
      return { op: 'accounts.rename', accountId: args[0]!, name: args[1]! };
    case 'delete':
      return { op: 'accounts.delete', accountId: needs('ACCOUNT') };
    case 'token':
      return { op: 'accounts.token', accountId: needs('ACCOUNT') };
    case 'revoke-token':
      return { op: 'accounts.revoke-token', token: needs('TOKEN') };
    default:
      throw new UsageError(`Unknown accounts command "${sub ?? ''}"`);
  }
}

/** Why `weather ingest` cannot read `file` (a regular file starting as GRIB, bzip2 or gzip does), or null. */
function gribInputProblem(file: string): string | null {
  const head = Buffer.alloc(4);
  try {
    if (!statSync(file).isFile()) return `Cannot read ${file}: not a file`;
    const fd = openSync(file, 'r');
    try {
      readSync(fd, head, 0, 4, 0);
    } finally {
      closeSync(fd);
    }
  } catch (error) {
    return `Cannot read ${file} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`;
  }
  const grib = head.toString('latin1') === 'GRIB';
  const bzip2 = head[0] === 0x42 && head[1] === 0x5a && head[2] === 0x68;
  const gzip = head[0] === 0x1f && head[1] === 0x8b;
  return grib || bzip2 || gzip ? null : `${file}: not a GRIB2 file (it does not start with "GRIB", and is not bzip2 or gzip)`;
}

/**
 * Deleting an account cannot be undone: on a terminal the operator types the account's name, as
 * hosting consoles ask; elsewhere (scripts, CI) only --yes deletes.
 */
async function confirmDeletion(config: Config, accountId: string): Promise<void> {
  if (!process.stdin.isTTY) throw new UsageError('accounts delete needs --yes when standard input is not a terminal', ['accounts', 'delete']);
  const accounts = (await runAdmin(config, { op: 'accounts.list' })) as AccountSummary[];
  const account = accounts.find((candidate) => candidate.account_id === accountId);
  if (!account) throw new ControlError(`No account ${accountId}`);
  const prompt = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await prompt.question(
      `Delete account "${account.name}" (${accountId}) with its ${account.api_keys} API keys and ${account.service_tokens} service tokens? ` +
        'This cannot be undone. Type the account name to confirm: ',
    );
    if (answer.trim() !== account.name) throw new ControlError('Not deleted: the name typed is not the account name');
  } finally {
    prompt.close();
  }
}

/**
 * On PostgreSQL, or when no server holds the embedded database, the command opens storage itself.
 * A running server owns the embedded database, so the command goes to it over the control socket.
 */
async function runAdmin(config: Config, request: AdminRequest): Promise<unknown> {
  const socket = controlSocketPath(config.dataDir);
  if (!config.databaseUrl && lockHolder(embeddedLockFile(config.dataDir)) !== null && existsSync(socket)) {
    return callControl(socket, request);
  }
  const { openMeridian } = await import('../meridian.js');
  // A new embedded database is seconds of initdb and migrations (25 s seen on a busy machine): say so.
  const fresh = !config.databaseUrl && !existsSync(embeddedDatabaseDir(config.dataDir));
  const started = performance.now();
  if (fresh) process.stderr.write(`Making the embedded database of ${config.dataDir} (its first use: seconds)…\n`);
  const meridian = await openMeridian(config);
  if (fresh) process.stderr.write(`Making the embedded database of ${config.dataDir}: done in ${Math.round((performance.now() - started) / 1000)} s\n`);
  try {
    // In this process, a fetch or an ingest shows its progress on the terminal (through a server, in its log).
    const long = request.op === 'weather.fetch' || request.op === 'weather.ingest';
    // On PostgreSQL the run goes to the catalog the instances share: they must read the folder it is written to.
    if (long && config.databaseUrl) {
      const { checkPublishingFolder } = await import('../weather/folder.js');
      const warning = await checkPublishingFolder(meridian.db, meridian.weatherDirectory);
      if (warning) process.stderr.write(`meridian: warning: ${warning}\n`);
    }
    return await meridian.admin(request, long ? progressOn(process.stderr) : undefined);
  } finally {
    await meridian.close();
  }
}

/** Rows as a table for a terminal: a header of the field names, columns padded, numbers right-aligned. */
export function formatTable(rows: readonly Record<string, unknown>[]): string {
  if (rows.length === 0) return '(none)\n';
  const columns = [...new Set(rows.flatMap((row) => Object.keys(row)))];
  const cell = (value: unknown) => (value === null || value === undefined ? '' : typeof value === 'object' ? JSON.stringify(value) : String(value));
  const numeric = columns.map((column) => rows.every((row) => typeof row[column] === 'number' || row[column] == null));
  const widths = columns.map((column) => Math.max(column.length, ...rows.map((row) => cell(row[column]).length)));
  const line = (cells: string[]) => cells.map((text, i) => (numeric[i] ? text.padStart(widths[i]!) : text.padEnd(widths[i]!))).join('  ').trimEnd();
  return [line(columns), line(widths.map((width) => '-'.repeat(width))), ...rows.map((row) => line(columns.map((column) => cell(row[column]))))].join('\n') + '\n';
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function serve(config: Config): Promise<number> {
  const [{ createServer }, { openMeridian }] = await Promise.all([import('../app.js'), import('../meridian.js')]);
  const meridian = await openMeridian(config);
  let server;
  try {
    server = await createServer(meridian);
    await server.listen();
  } catch (error) {
    await server?.close().catch(() => {});
    await meridian.close();
    throw error;
  }
  const running = server;
  // SIGHUP reloads the map definitions, as daemons reload their configuration.
  const reload = () => void running.reloadMaps('SIGHUP');
  process.on('SIGHUP', reload);
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      running.public.log.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  process.off('SIGHUP', reload);
  await running.close();
  await meridian.close();
  return 0;
}

/** Everything on standard input (a secret never belongs on the command line). */
async function readStandardInput(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
