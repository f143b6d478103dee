import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { createServer, openMeridian } from '../app.js';
import type { AdminRequest } from '../admin.js';
import type { IngestReport } from '../weather/ingest.js';
import { ConfigError, loadConfig, type Config } from '../config.js';
import { callControl, ControlError, controlSocketPath } from '../platform/control.js';
import { ApiError } from '../platform/errors.js';
import { renderToFile, RenderUsageError } from './render.js';
import { seedTiles, SeedUsageError } from './seed.js';
import { buildWorld } from '../tools/world/build.js';
import { buildSprite } from '../tools/sprite/build.js';
import { importExtract } from '../tools/osm/import.js';
import { addArchive } from '../tools/osm/add.js';
import { ArchiveError } from '../tools/osm/added-archive.js';
import { MapsUsageError } from '../tools/osm/publish.js';
import { ExtractError } from '../tools/osm/extract.js';
import { progressOn } from '../platform/progress.js';
import { embeddedLockFile } from '../platform/storage/open.js';
import { lockHolder } from '../platform/storage/lock.js';

const usage = `Usage: meridian <command> [options]

Commands:
  serve [--port 8080] [--host 127.0.0.1]     run the server
  accounts create NAME                       create an account; prints its id and first service token
  accounts list                              list accounts
  accounts token ACCOUNT                     issue another service token for an account
  accounts revoke-token < TOKEN_FILE         revoke a service token read from standard input
  usage [--account ID] [--key ID] [--since YYYY-MM-DD]
                                             requests per API key per day
  weather ingest FILE... [--model gfs] [--attribution GFS]
                                             ingest GRIB2 files as a forecast run of that model
  weather fetch [--run latest|YYYYMMDDHH]     download a GFS run (only the needed fields) and ingest it
  render MAP (--center LON,LAT,ZOOM | --bounds MINX,MINY,MAXX,MAXY | --auto) --size WxH[@2x]
         [--format png|jpg|webp] [--path P]... [--markers M]... [--attribution CORNER|false]
         [--padding F] [--language xx] -o FILE
                                             render a static map image without a server
  maps build-world [--out DIR]               build the default map \`world\` (Natural Earth, GSHHG) into
                                             DIR (default the maps folder, <data>/maps)
  maps import EXTRACT [--id ID] [--minzoom 0] [--maxzoom 14] [--store DIR]
                                             street maps from an OpenStreetMap extract (.osm.pbf, .osm,
                                             .osm.bz2): the maps ID, ID-light and ID-dark (default ID
                                             from the file name), published in the maps folder
  maps add ARCHIVE [--id ID]                 maps over tiles made elsewhere: a .pmtiles or .mbtiles file
                                             or an https://….pmtiles URL; OpenMapTiles gets ID, ID-light
                                             and ID-dark, Protomaps v4 ID (light), ID-dark, ID-white,
                                             ID-grayscale and ID-black, raster tiles ID
  maps seed MAP --bbox=W,S,E,N --zooms A-B [--tile-size 512|256] [--format png|jpg|webp] [--scale 2]
       [--language xx]                       render the raster tiles of an area ahead of traffic into
                                             the shared raster tile store (maps.rasterStore)
  maps build-sprite SVG_DIR OUT_BASE         build a sprite (OUT_BASE.json/.png and @2x) from the SVG
                                             files of SVG_DIR (name.json beside name.svg: sdf, stretchX...)
  migrate                                    apply database migrations and exit

Options for every command:
  --data DIR          data directory (default ./data; env MERIDIAN_DATA_DIR)
  --config FILE       JSON config file (env MERIDIAN_CONFIG)
DATABASE_URL selects a PostgreSQL server instead of the embedded database.`;

class UsageError extends Error {}

/** Runs the `meridian` command; resolves to the process exit code. */
export async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      allowPositionals: true,
      options: {
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
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n\n${usage}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [command, sub, argument, ...more] = positionals;
  if (values.help || !command) {
    process.stdout.write(`${usage}\n`);
    return command || values.help ? 0 : 2;
  }
  try {
    const config = loadConfig({
      file: values.config ?? process.env.MERIDIAN_CONFIG,
      env: process.env,
      flags: { dataDir: values.data, port: values.port, host: values.host },
    });
    if (command === 'serve') return await serve(config);
    if (command === 'render') {
      if (!sub) throw new UsageError('render needs a MAP');
      if (!values.size || !values.output) throw new UsageError('render needs --size WxH[@2x] and -o FILE');
      const bytes = await renderToFile(config, {
        map: sub,
        center: values.center,
        bounds: values.bounds,
        auto: values.auto,
        size: values.size,
        format: values.format ?? 'png',
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
      if (sub === 'build-sprite') {
        if (!argument || more.length !== 1) throw new UsageError('maps build-sprite needs SVG_DIR and OUT_BASE');
        print(await buildSprite(path.resolve(argument), path.resolve(more[0]!)));
        return 0;
      }
      if (sub === 'import') {
        if (!argument || more.length > 0) throw new UsageError('maps import needs one EXTRACT file');
        const zoom = (value: string) => (/^\d+$/.test(value) ? Number(value) : NaN);
        print(
          await importExtract(argument, {
            mapsDir: config.maps.dir ?? path.join(config.dataDir, 'maps'),
            ...(values.id === undefined ? {} : { id: values.id }),
            ...(values.minzoom === undefined ? {} : { minzoom: zoom(values.minzoom) }),
            ...(values.maxzoom === undefined ? {} : { maxzoom: zoom(values.maxzoom) }),
            ...(values.store === undefined ? {} : { store: path.resolve(values.store) }),
            progress: progressOn(process.stderr),
          }),
        );
        return 0;
      }
      if (sub === 'seed') {
        if (!argument || more.length > 0) throw new UsageError('maps seed needs one MAP');
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
        if (!argument || more.length > 0) throw new UsageError('maps add needs one ARCHIVE (a file or an http(s) URL)');
        print(
          await addArchive(argument, {
            mapsDir: config.maps.dir ?? path.join(config.dataDir, 'maps'),
            ...(values.id === undefined ? {} : { id: values.id }),
            progress: progressOn(process.stderr),
          }),
        );
        return 0;
      }
      if (sub !== 'build-world') throw new UsageError(`Unknown maps command "${sub ?? ''}"`);
      print(await buildWorld(path.resolve(values.out ?? config.maps.dir ?? path.join(config.dataDir, 'maps'))));
      return 0;
    }
    if (command === 'migrate') {
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
    const request = adminRequest(command, sub, args, values);
    const result = await runAdmin(config, request);
    print(result);
    // An ingest that published some files but not others has not done what was asked.
    const failed = request.op === 'weather.ingest' ? (result as IngestReport).failed : [];
    if (failed.length > 0) {
      process.stderr.write(`Not ingested:\n${failed.join('\n')}\n`);
      return 1;
    }
    return 0;
  } catch (error) {
    if (error instanceof UsageError || error instanceof RenderUsageError) {
      process.stderr.write(`${error.message}\n\n${usage}\n`);
      return 2;
    }
    if (error instanceof MapsUsageError || error instanceof SeedUsageError) {
      process.stderr.write(`${error.message}\n`);
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

function adminRequest(
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
): AdminRequest {
  const [argument] = args;
  if (command === 'weather' && sub === 'fetch') {
    if (values.model !== undefined && values.model !== 'gfs') throw new UsageError('weather fetch knows the model gfs only');
    return { op: 'weather.fetch', run: values.run ?? 'latest' };
  }
  if (command === 'weather') {
    if (sub !== 'ingest') throw new UsageError(`Unknown weather command "${sub ?? ''}"`);
    if (args.length === 0) throw new UsageError('weather ingest needs at least one FILE');
    const model = values.model ?? 'gfs';
    if (!/^[a-z0-9_-]{1,32}$/.test(model)) throw new UsageError('--model must be 1 to 32 of a-z, 0-9, _ and -');
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
  if (command !== 'accounts') throw new UsageError(`Unknown command "${command}"`);
  const needs = (what: string) => {
    if (!argument) throw new UsageError(`accounts ${sub} needs ${what}`);
    return argument;
  };
  switch (sub) {
    case 'create':
      return { op: 'accounts.create', name: needs('NAME') };
    case 'list':
      return { op: 'accounts.list' };
    case 'token':
      return { op: 'accounts.token', accountId: needs('ACCOUNT') };
    case 'revoke-token':
      return { op: 'accounts.revoke-token', token: needs('TOKEN') };
    default:
      throw new UsageError(`Unknown accounts command "${sub ?? ''}"`);
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
  const meridian = await openMeridian(config);
  try {
    return await meridian.admin(request);
  } finally {
    await meridian.close();
  }
}

function print(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

async function serve(config: Config): Promise<number> {
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
  await new Promise<void>((resolve) => {
    const stop = (signal: string) => {
      running.public.log.info({ signal }, 'shutting down');
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
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
