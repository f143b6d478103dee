/**
 * What the `meridian` command says about itself: every command's synopsis, description, options
 * and examples, declared once. The overall usage, `meridian help COMMAND`, `COMMAND --help` and
 * the usage shown after a mistake are all made from it, and main.ts refuses options a command does
 * not take by the same table.
 */

export interface CommandHelp {
  /** `maps seed`: the words that name it. */
  name: string;
  /** Its synopsis lines, the name first. */
  synopsis: string[];
  description: string;
  /** Long options it takes beyond the global ones (`--data`, `--config`, `--help`). */
  options: string[];
  examples: string[];
}

export const commands: CommandHelp[] = [
  {
    name: 'serve',
    synopsis: ['serve [--port 8080] [--host 127.0.0.1]'],
    description: 'run the server',
    options: ['port', 'host'],
    examples: ['meridian serve', 'MERIDIAN_METRICS_TOKEN=… meridian serve --host 0.0.0.0 --port 8080'],
  },
  {
    name: 'accounts create',
    synopsis: ['accounts create NAME'],
    description: 'create an account; prints its id and first service token',
    options: [],
    examples: ["meridian accounts create 'Acme Maps'"],
  },
  {
    name: 'accounts list',
    synopsis: ['accounts list [--json]'],
    description: 'list accounts: a table on a terminal, JSON with --json or when the output is not a terminal',
    options: ['json'],
    examples: ['meridian accounts list', 'meridian accounts list --json'],
  },
  {
    name: 'accounts rename',
    synopsis: ['accounts rename ACCOUNT NAME'],
    description: 'give an account another name',
    options: [],
    examples: ["meridian accounts rename 5f0c…-… 'Acme Maps EU'"],
  },
  {
    name: 'accounts delete',
    synopsis: ['accounts delete ACCOUNT [--yes]'],
    description: 'delete an account with its API keys and service tokens (their usage counts stay, without names); asks for the account name on a terminal, needs --yes otherwise',
    options: ['yes'],
    examples: ['meridian accounts delete 5f0c…-…', 'meridian accounts delete 5f0c…-… --yes'],
  },
  {
    name: 'accounts token',
    synopsis: ['accounts token ACCOUNT'],
    description: 'issue another service token for an account',
    options: [],
    examples: ['meridian accounts token 5f0c…-…'],
  },
  {
    name: 'accounts revoke-token',
    synopsis: ['accounts revoke-token < TOKEN_FILE'],
    description: 'revoke a service token read from standard input',
    options: [],
    examples: ['meridian accounts revoke-token < token.txt'],
  },
  {
    name: 'usage',
    synopsis: ['usage [--account ID] [--key ID] [--since YYYY-MM-DD] [--json]'],
    description: 'requests per API key per day, with the key’s and the account’s names: a table on a terminal, JSON with --json or when the output is not a terminal',
    options: ['account', 'key', 'since', 'json'],
    examples: ['meridian usage', 'meridian usage --account 5f0c…-… --since 2026-01-01'],
  },
  {
    name: 'weather ingest',
    synopsis: ['weather ingest FILE... [--model gfs] [--attribution GFS]'],
    description: 'ingest GRIB2 files as a forecast run of that model',
    options: ['model', 'attribution'],
    examples: ['meridian weather ingest gfs.t12z.pgrb2.0p25.f000 gfs.t12z.pgrb2.0p25.f003 --model gfs'],
  },
  {
    name: 'weather fetch',
    synopsis: ['weather fetch [--model gfs|ifs|aifs-single] [--run latest|YYYYMMDDHH]'],
    description: 'download a run of GFS (default) or ECMWF open data (only the configured fields) and ingest it',
    options: ['run', 'model'],
    examples: ['meridian weather fetch', 'meridian weather fetch --model ifs', 'meridian weather fetch --model gfs --run 2026011206'],
  },
  {
    name: 'render',
    synopsis: [
      'render MAP (--center LON,LAT,ZOOM | --bounds MINX,MINY,MAXX,MAXY | --auto) --size WxH[@2x]',
      '       [--format png|jpg|webp] [--path P]... [--markers M]... [--attribution CORNER|false]',
      '       [--padding F] [--language xx] -o FILE',
    ],
    description: 'render a static map image without a server; the format is --format, else FILE’s extension (.png, .jpg, .webp)',
    options: ['center', 'bounds', 'auto', 'size', 'format', 'path', 'markers', 'attribution', 'padding', 'language', 'output'],
    examples: [
      'meridian render world --center 8.54,47.37,5 --size 800x600 -o zurich.jpg',
      "meridian render kirchberg --auto --size 600x400@2x --path 'stroke:red|width:3|10.0684,48.1352|10.0703,48.1366' -o route.png",
    ],
  },
  {
    name: 'maps build-world',
    synopsis: ['maps build-world [--out DIR]'],
    description: 'build the default map `world` (Natural Earth, GSHHG) into DIR (default the maps folder, <data>/maps)',
    options: ['out'],
    examples: ['meridian maps build-world'],
  },
  {
    name: 'maps import',
    synopsis: ['maps import EXTRACT [--id ID] [--minzoom 0] [--maxzoom 14] [--store DIR]'],
    description:
      'street maps from an OpenStreetMap extract (.osm.pbf, .osm, .osm.bz2): the maps ID, ID-light and ID-dark (default ID from the file name), published in the maps folder',
    options: ['id', 'minzoom', 'maxzoom', 'store'],
    examples: ['meridian maps import luxembourg-latest.osm.pbf --id luxembourg'],
  },
  {
    name: 'maps add',
    synopsis: ['maps add ARCHIVE [--id ID]'],
    description:
      'maps over tiles made elsewhere: a .pmtiles or .mbtiles file or an https://….pmtiles URL; OpenMapTiles gets ID, ID-light and ID-dark, Protomaps v4 ID (light), ID-dark, ID-white, ID-grayscale and ID-black, raster tiles ID',
    options: ['id'],
    examples: ['meridian maps add planet.pmtiles --id planet', 'meridian maps add https://example.com/region.pmtiles'],
  },
  {
    name: 'maps seed',
    synopsis: ['maps seed MAP --bbox=W,S,E,N --zooms A-B [--tile-size 512|256] [--format png|jpg|webp] [--scale 2]', '     [--language xx]'],
    description: 'render the raster tiles of an area ahead of traffic into the shared raster tile store; needs maps.rasterStore set to folder or database (MERIDIAN_MAPS_RASTER_STORE): with none there is nowhere to keep them',
    options: ['bbox', 'zooms', 'tile-size', 'format', 'scale', 'language'],
    examples: ['meridian maps seed kirchberg --bbox=10.06,48.13,10.08,48.14 --zooms 12-16'],
  },
  {
    name: 'maps build-sprite',
    synopsis: ['maps build-sprite SVG_DIR OUT_BASE'],
    description: 'build a sprite (OUT_BASE.json/.png and @2x) from the SVG files of SVG_DIR (name.json beside name.svg: sdf, stretchX...)',
    options: [],
    examples: ['meridian maps build-sprite icons/ data/maps/sprites/icons'],
  },
  {
    name: 'coordinates build-cache',
    synopsis: ['coordinates build-cache'],
    description:
      'save the registry index and compute the default transformation and the exports of every EPSG CRS under <data>/coordinates/, which the server loads (minutes; each file is left alone when it is current for the registry, engine and grids)',
    options: [],
    examples: ['meridian coordinates build-cache'],
  },
  {
    name: 'geocoding build-index',
    synopsis: ['geocoding build-index'],
    description:
      'build the world place index geocoding searches and save it as <data>/geocoding/world-index.v8, which the server loads (seconds; left alone when it is current); for servers with geocoding.buildIndex false',
    options: [],
    examples: ['meridian geocoding build-index'],
  },
  { name: 'migrate', synopsis: ['migrate'], description: 'apply database migrations and exit', options: [], examples: ['DATABASE_URL=postgres://… meridian migrate'] },
  {
    name: 'help',
    synopsis: ['help [COMMAND]'],
    description: 'this text, or a command’s usage and examples (also COMMAND --help)',
    options: [],
    examples: ['meridian help maps seed'],
  },
];

/** Words that start a command, with the sub-commands each has (empty: none). */
export const commandWords: ReadonlyMap<string, string[]> = (() => {
  const words = new Map<string, string[]>();
  for (const { name } of commands) {
    const [first, second] = name.split(' ') as [string, string | undefined];
    const subs = words.get(first) ?? [];
    if (second) subs.push(second);
    words.set(first, subs);
  }
  return words;
})();

const COLUMN = 45;
const WIDTH = 100;

/** `text` wrapped to WIDTH, every line indented by `indent` spaces. */
function wrap(text: string, indent: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(' ')) {
    if (line && indent + line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  lines.push(line);
  return lines.map((wrapped) => ' '.repeat(indent) + wrapped);
}

/** A command's synopsis with its description in the second column. */
function entry(command: CommandHelp): string {
  const lines = command.synopsis.map((line) => `  ${line}`);
  const description = wrap(command.description, COLUMN);
  const last = lines[lines.length - 1]!;
  if (lines.length === 1 && last.length < COLUMN - 1) lines[0] = last.padEnd(COLUMN) + description.shift()!.trimStart();
  return [...lines, ...description].join('\n');
}

const globalOptions = `Options for every command:
  --data DIR          data directory (default ./data; env MERIDIAN_DATA_DIR)
  --config FILE       JSON config file (env MERIDIAN_CONFIG)
  --help, -h          the command's usage and examples
DATABASE_URL selects a PostgreSQL server instead of the embedded database.`;

export const usage = `Usage: meridian <command> [options]

Commands:
${commands.map(entry).join('\n')}

${globalOptions}
meridian --version prints the version.`;

/** The commands named by `words` (`maps seed`: one; `maps`: all of maps); empty when none is. */
export function commandsNamed(words: string[]): CommandHelp[] {
  const [first, second] = words;
  if (first === undefined) return [];
  const exact = second === undefined ? undefined : commands.find((command) => command.name === `${first} ${second}`);
  if (exact) return [exact];
  return commands.filter((command) => command.name === first || command.name.startsWith(`${first} `));
}

/** The usage and examples of the commands named by `words`; the overall usage when none is. */
export function usageOf(words: string[]): string {
  const named = commandsNamed(words);
  if (named.length === 0) return usage;
  const examples = named.flatMap((command) => command.examples.map((example) => `  ${example}`));
  return `Usage: meridian ${named.length === 1 ? named[0]!.name : `${words[0]} <command>`} [options]

${named.map(entry).join('\n')}

Examples:
${examples.join('\n')}

${globalOptions}`;
}

/**
 * A `render` or `maps seed` invocation whose options do not make sense. Declared here, beside the
 * usage, so that the CLI can tell them apart without loading the renderer (cli/main.ts imports each
 * command's code only when that command runs).
 */
export class RenderUsageError extends Error {}
export class SeedUsageError extends Error {}
