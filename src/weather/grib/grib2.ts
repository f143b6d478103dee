/**
 * GRIB2 decoding (WMO FM 92 edition 2): sections 0-8, several messages per file and several fields
 * per message, product templates 4.0/4.1/4.8/4.11, grid templates 3.0/3.1/3.10/3.20/3.30/3.40 (the
 * geometry itself is in grid.ts), data templates 5.0, 5.2, 5.3, 5.40 (JPEG 2000), 5.41 (PNG) and 5.42 (CCSDS).
 *
 * `readGrib` validates the structure of the whole file before returning anything, so a truncated
 * or corrupt file throws a GribError and yields no message; values are decoded on demand.
 * Like ecCodes, bytes between messages (WMO bulletin headers in NDFD files, padding) are skipped;
 * GRIB edition 1 messages are skipped too. Both are listed in `skipped` so a caller can tell.
 */
import { decode as decodePng } from 'fast-png';
import { unpackBits, unpackBitsSigned } from './bits.js';
import { CcsdsError, decodeCcsds } from './ccsds.js';
import { decodeJpeg2000 } from './jpeg2000.js';

export class GribError extends Error {
  override name = 'GribError';
}

export interface GribFile {
  messages: GribMessage[];
  skipped: SkippedRegion[];
}

export interface SkippedRegion {
  offset: number;
  length: number;
  reason: 'GRIB edition 1 message' | 'bytes outside any GRIB message';
}

export interface Surface {
  /** Code table 4.5 (1 ground, 100 isobaric in Pa, 103 height above ground in m, ...). */
  type: number;
  /** Scaled value decoded (value * 10^-scale), in the unit of the surface type; null when missing. */
  value: number | null;
}

export interface Level {
  first: Surface | null;
  second: Surface | null;
}

export interface Statistics {
  /**
   * End of the overall time interval: the start plus the length of the time range when there is a
   * single one (as ecCodes reckons its end step; some producers, NDFD among them, store a different
   * end date), else the end date stored in the template.
   */
  end: Date;
  /** Code table 4.10 of the first (outermost) time range: 0 average, 1 accumulation, 2 maximum, 3 minimum, ... */
  process: number;
  /** Length of the first time range in hours. */
  lengthHours: number;
}

export interface Ensemble {
  /** Code table 4.6. */
  type: number;
  perturbation: number;
  size: number;
}

export interface Earth {
  /** Code table 3.2. */
  shape: number;
  /** Semi-major and semi-minor axes in metres (equal for a sphere). */
  a: number;
  b: number;
}

export interface Scanning {
  /** Code table 3.4 as stored (bit 1 is 0x80). */
  mode: number;
  iNegative: boolean;
  jPositive: boolean;
  /** Points of a column (along j) are consecutive, instead of points of a row. */
  jConsecutive: boolean;
  /** Every other row runs in the opposite direction. */
  alternateRows: boolean;
}

interface GridBase {
  earth: Earth;
  scanning: Scanning;
  /** Points along a row (x); null for a reduced grid, whose rows have `pl` points each. */
  ni: number | null;
  /** Rows (y). */
  nj: number;
  /** First and last grid points in degrees. */
  la1: number;
  lo1: number;
}

export interface LatLonGrid extends GridBase {
  template: 0;
  la2: number;
  lo2: number;
  /** Increments in degrees; null when not given. */
  di: number | null;
  dj: number | null;
  /** Points per row of a reduced (quasi-regular) grid, in the order of the rows in the file. */
  pl: number[] | null;
}

/**
 * A latitude/longitude grid in a rotated frame (template 3.1: COSMO, UKMO and many regional
 * models): regular in rotated coordinates, whose south pole lies at the given geographic point.
 */
export interface RotatedLatLonGrid extends Omit<LatLonGrid, 'template'> {
  template: 1;
  southPoleLat: number;
  southPoleLon: number;
  /** Angle of rotation about the new polar axis, in degrees. */
  rotation: number;
}

export interface GaussianGrid extends GridBase {
  template: 40;
  la2: number;
  lo2: number;
  di: number | null;
  /** Number of parallels between a pole and the equator. */
  n: number;
  pl: number[] | null;
}

export interface MercatorGrid extends GridBase {
  template: 10;
  ni: number;
  la2: number;
  lo2: number;
  /** Latitude at which dx and dy are true. */
  lad: number;
  orientation: number;
  /** Grid lengths in metres. */
  dx: number;
  dy: number;
}

export interface PolarStereographicGrid extends GridBase {
  template: 20;
  ni: number;
  lad: number;
  lov: number;
  dx: number;
  dy: number;
  southPole: boolean;
}

export interface LambertGrid extends GridBase {
  template: 30;
  ni: number;
  lad: number;
  lov: number;
  dx: number;
  dy: number;
  southPole: boolean;
  latin1: number;
  latin2: number;
}

export type GridDefinition = LatLonGrid | RotatedLatLonGrid | GaussianGrid | MercatorGrid | PolarStereographicGrid | LambertGrid;

export interface Packing {
  /** R, E, D of Y = (R + X * 2^E) / 10^D. */
  reference: number;
  binaryScale: number;
  decimalScale: number;
  bitsPerValue: number;
}

/** Limit on points per field: 2^28 float32 values is 1 GiB, beyond any real grid. */
const MAX_POINTS = 2 ** 28;

const SUPPORTED_PRODUCTS = new Set([0, 1, 8, 11]);
const SUPPORTED_GRIDS = new Set([0, 1, 10, 20, 30, 40]);

interface Section {
  offset: number;
  length: number;
}

interface Product {
  category: number;
  number: number;
  unit: number;
  offset: number;
  level: Level;
  ensemble: Ensemble | null;
  statistics: {
    /** End of the overall interval as stored; null for a single time range, which ends after its length. */
    end: Date | null;
    process: number;
    unit: number;
    length: number;
  } | null;
}

/** One field: the sections that describe it, parsed lazily where templates may be unsupported. */
export class GribMessage {
  readonly edition = 2;
  #product: Product | GribError;
  #grid: GridDefinition | GribError;
  readonly packing: Packing;

  constructor(
    private readonly data: Uint8Array,
    /** Byte offset of the message that holds this field. */
    readonly offset: number,
    readonly discipline: number,
    readonly centre: number,
    readonly referenceTime: Date,
    readonly gridTemplate: number,
    readonly numberOfPoints: number,
    readonly productTemplate: number,
    readonly dataTemplate: number,
    /** Values actually packed in section 7 (the points present in the bitmap). */
    readonly numberOfValues: number,
    section3: Section,
    section4: Section,
    private readonly section5: Section,
    private readonly bitmap: Section | null,
    private readonly section7: Section,
  ) {
    this.#product = SUPPORTED_PRODUCTS.has(productTemplate)
      ? parseProduct(data, section4, productTemplate)
      : new GribError(`unsupported product definition template 4.${productTemplate}`);
    this.#grid = SUPPORTED_GRIDS.has(gridTemplate)
      ? parseGrid(data, section3, gridTemplate, numberOfPoints)
      : new GribError(`unsupported grid definition template 3.${gridTemplate}`);
    this.packing = readPacking(data, section5.offset);
  }

  private get product(): Product {
    if (this.#product instanceof GribError) throw this.#product;
    return this.#product;
  }

  get category(): number {
    return this.product.category;
  }

  /** Parameter number within the category (code table 4.2). */
  get number(): number {
    return this.product.number;
  }

  /** Start of the forecast: reference time plus the forecast time of section 4. */
  get forecastTime(): Date {
    return addTime(this.referenceTime, this.product.unit, this.product.offset);
  }

  /** Forecast time as stored, in units of code table 4.4 (`forecastUnit`). */
  get forecastOffset(): number {
    return this.product.offset;
  }

  get forecastUnit(): number {
    return this.product.unit;
  }

  get level(): Level {
    return this.product.level;
  }

  /** Time range of an average, accumulation, extreme... (templates 4.8, 4.11); null otherwise. */
  get statistics(): Statistics | null {
    const s = this.product.statistics;
    if (!s) return null;
    const start = this.forecastTime;
    const rangeEnd = addTime(start, s.unit, s.length);
    const lengthHours = (rangeEnd.getTime() - start.getTime()) / 3_600_000;
    return { end: s.end ?? rangeEnd, process: s.process, lengthHours };
  }

  /** Ensemble member (templates 4.1, 4.11); null otherwise. */
  get ensemble(): Ensemble | null {
    return this.product.ensemble;
  }

  /** Grid parameters; throws for grid templates without geometry support (values still decode). */
  get grid(): GridDefinition {
    if (this.#grid instanceof GribError) throw this.#grid;
    return this.#grid;
  }

  get hasBitmap(): boolean {
    return this.bitmap !== null;
  }

  /**
   * Decoded values in the order of the file (ecCodes' `values` key), NaN where the bitmap or the
   * missing-value management of templates 5.2/5.3 says a point is missing.
   */
  values(): Float32Array {
    const packed = decodePacked(this.data, this.dataTemplate, this.section5, this.section7, this.numberOfValues);
    if (!this.bitmap) return packed;
    return applyBitmap(this.data, this.bitmap, packed, this.numberOfPoints);
  }
}

// ---------------------------------------------------------------------------------------------
// File and message structure

/** Parses every GRIB2 field of a file; throws GribError if any part of the file is truncated or corrupt. */
export function readGrib(data: Uint8Array): GribFile {
  const messages: GribMessage[] = [];
  const skipped: SkippedRegion[] = [];
  let position = 0;
  while (position < data.length) {
    const start = findMagic(data, position);
    if (start < 0) {
      skipped.push({ offset: position, length: data.length - position, reason: 'bytes outside any GRIB message' });
      break;
    }
    if (start > position) {
      skipped.push({ offset: position, length: start - position, reason: 'bytes outside any GRIB message' });
    }
    if (start + 8 > data.length) throw new GribError(`truncated GRIB message at offset ${start}`);
    const edition = data[start + 7];
    if (edition === 1) {
      const length = grib1Length(data, start);
      skipped.push({ offset: start, length, reason: 'GRIB edition 1 message' });
      position = start + length;
    } else if (edition === 2) {
      const length = readMessage(data, start, messages);
      position = start + length;
    } else {
      throw new GribError(`unsupported GRIB edition ${edition} at offset ${start}`);
    }
  }
  if (messages.length === 0 && !skipped.some((s) => s.reason === 'GRIB edition 1 message')) {
    throw new GribError('no GRIB message found');
  }
  return { messages, skipped };
}

function findMagic(data: Uint8Array, from: number): number {
  for (let i = from; i + 4 <= data.length; i++) {
    if (data[i] === 0x47 && data[i + 1] === 0x52 && data[i + 2] === 0x49 && data[i + 3] === 0x42) return i;
  }
  return -1;
}

function hasEndMarker(data: Uint8Array, end: number): boolean {
  return data[end - 4] === 0x37 && data[end - 3] === 0x37 && data[end - 2] === 0x37 && data[end - 1] === 0x37;
}

/** Length of a GRIB1 message, including ECMWF's encoding of messages over 8 MB (as ecCodes reads it). */
function grib1Length(data: Uint8Array, start: number): number {
  const need = (n: number) => {
    if (start + n > data.length) throw new GribError(`truncated GRIB1 message at offset ${start}`);
  };
  need(8);
  let length = uint(data, start + 4, 3);
  if (length & 0x800000) {
    let p = start + 8;
    need(p - start + 8);
    const section1 = uint(data, p, 3);
    const flags = data[p + 7];
    p += section1;
    for (const present of [flags & 0x80, flags & 0x40]) {
      if (!present) continue;
      need(p - start + 3);
      p += uint(data, p, 3);
    }
    need(p - start + 3);
    const section4 = uint(data, p, 3);
    if (section4 < 120) length = (length & 0x7fffff) * 120 - section4 + 4;
  }
  if (length < 12 || start + length > data.length) throw new GribError(`truncated GRIB1 message at offset ${start}`);
  if (!hasEndMarker(data, start + length)) throw new GribError(`GRIB1 message at offset ${start} does not end with 7777`);
  return length;
}

/** Validates one GRIB2 message and appends its fields; returns the message length. */
function readMessage(data: Uint8Array, start: number, out: GribMessage[]): number {
  if (start + 16 > data.length) throw new GribError(`truncated GRIB message at offset ${start}`);
  const high = uint(data, start + 8, 4);
  const length = high * 2 ** 32 + uint(data, start + 12, 4);
  if (high >= 2 ** 21 || start + length > data.length) {
    throw new GribError(`truncated GRIB message at offset ${start}: ${length} bytes declared, ${data.length - start} present`);
  }
  const end = start + length;
  if (length < 16 + 21 + 4 || !hasEndMarker(data, end)) {
    throw new GribError(`GRIB message at offset ${start} does not end with 7777`);
  }
  const discipline = data[start + 6];
  const fieldsBefore = out.length;

  let p = start + 16;
  let previous = 0;
  let centre = 0;
  let referenceTime = new Date(0);
  let section3: Section | null = null;
  let section4: Section | null = null;
  let section5: Section | null = null;
  let bitmap: Section | null = null;
  while (p < end - 4) {
    if (p + 5 > end - 4) throw corrupt(start, `section header at offset ${p} overruns the message`);
    const sectionLength = uint(data, p, 4);
    const number = data[p + 4];
    if (sectionLength < 5 || p + sectionLength > end - 4) {
      throw corrupt(start, `section ${number} at offset ${p} has length ${sectionLength}, beyond the message end`);
    }
    if (!followsSection(previous, number)) {
      throw corrupt(start, `section ${number} at offset ${p} cannot follow section ${previous}`);
    }
    const section = { offset: p, length: sectionLength };
    switch (number) {
      case 1:
        requireLength(start, section, 21, 1);
        centre = uint(data, p + 5, 2);
        referenceTime = readDate(data, p + 12, start);
        break;
      case 3:
        requireLength(start, section, 14, 3);
        section3 = section;
        break;
      case 4:
        requireLength(start, section, 9, 4);
        section4 = section;
        break;
      case 5:
        requireLength(start, section, 11, 5);
        section5 = section;
        break;
      case 6: {
        requireLength(start, section, 6, 6);
        const indicator = data[p + 5];
        if (indicator === 0) bitmap = section;
        else if (indicator === 254) {
          if (!bitmap) throw corrupt(start, 'bitmap indicator 254 refers to no previous bitmap');
        } else if (indicator === 255) {
          bitmap = null;
        } else {
          throw new GribError(`unsupported predefined bitmap ${indicator} in message at offset ${start}`);
        }
        break;
      }
      case 7:
        out.push(
          field(data, start, discipline, centre, referenceTime, section3!, section4!, section5!, bitmap, section),
        );
        break;
      default:
        break;
    }
    previous = number;
    p += sectionLength;
  }
  if (previous !== 7 || out.length === fieldsBefore) throw corrupt(start, 'the message ends before a data section');
  if (p !== end - 4) throw corrupt(start, 'sections do not end where 7777 starts');
  return length;
}

/** Allowed order: 1, (2), 3, 4, 5, 6, 7, then 2, 3 or 4 again for another field of the same message. */
function followsSection(previous: number, next: number): boolean {
  switch (next) {
    case 1:
      return previous === 0;
    case 2:
      return previous === 1 || previous === 7;
    case 3:
      return previous === 1 || previous === 2 || previous === 7;
    case 4:
      return previous === 3 || previous === 7;
    default:
      return next <= 7 && previous === next - 1;
  }
}

function field(
  data: Uint8Array,
  start: number,
  discipline: number,
  centre: number,
  referenceTime: Date,
  section3: Section,
  section4: Section,
  section5: Section,
  bitmap: Section | null,
  section7: Section,
): GribMessage {
  const numberOfPoints = uint(data, section3.offset + 6, 4);
  const gridTemplate = uint(data, section3.offset + 12, 2);
  const productTemplate = uint(data, section4.offset + 7, 2);
  const numberOfValues = uint(data, section5.offset + 5, 4);
  const dataTemplate = uint(data, section5.offset + 9, 2);
  if (numberOfPoints > MAX_POINTS) throw corrupt(start, `${numberOfPoints} grid points`);
  if (bitmap) {
    if ((bitmap.length - 6) * 8 < numberOfPoints) {
      throw corrupt(start, `bitmap of ${(bitmap.length - 6) * 8} bits for ${numberOfPoints} points`);
    }
    if (numberOfValues > numberOfPoints) throw corrupt(start, `${numberOfValues} values for ${numberOfPoints} points`);
  } else if (numberOfValues !== numberOfPoints) {
    throw corrupt(start, `${numberOfValues} values for ${numberOfPoints} points and no bitmap`);
  }
  checkDataSection(data, start, dataTemplate, section5, section7, numberOfValues);
  return new GribMessage(
    data,
    start,
    discipline,
    centre,
    referenceTime,
    gridTemplate,
    numberOfPoints,
    productTemplate,
    dataTemplate,
    numberOfValues,
    section3,
    section4,
    section5,
    bitmap,
    section7,
  );
}

function requireLength(start: number, section: Section, minimum: number, number: number): void {
  if (section.length < minimum) throw corrupt(start, `section ${number} is ${section.length} bytes, under ${minimum}`);
}

function corrupt(start: number, what: string): GribError {
  return new GribError(`corrupt GRIB message at offset ${start}: ${what}`);
}

function readDate(data: Uint8Array, p: number, start: number): Date {
  const [year, month, day, hour, minute, second] = [
    uint(data, p, 2),
    data[p + 2],
    data[p + 3],
    data[p + 4],
    data[p + 5],
    data[p + 6],
  ];
  const date = new Date(Date.UTC(year, month - 1, day, hour, minute, second));
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60) {
    throw corrupt(start, `invalid date ${year}-${month}-${day} ${hour}:${minute}:${second}`);
  }
  return date;
}

// ---------------------------------------------------------------------------------------------
// Integers as GRIB2 stores them: big-endian, signed ones as sign and magnitude.

function uint(data: Uint8Array, p: number, bytes: number): number {
  let value = 0;
  for (let i = 0; i < bytes; i++) value = value * 256 + data[p + i];
  return value;
}

function int(data: Uint8Array, p: number, bytes: number): number {
  const magnitude = uint(data, p, bytes);
  const sign = 2 ** (8 * bytes - 1);
  return magnitude >= sign ? -(magnitude - sign) : magnitude;
}

function isMissing(data: Uint8Array, p: number, bytes: number): boolean {
  for (let i = 0; i < bytes; i++) if (data[p + i] !== 0xff) return false;
  return true;
}

function float32(data: Uint8Array, p: number): number {
  return new DataView(data.buffer, data.byteOffset + p, 4).getFloat32(0, false);
}

// ---------------------------------------------------------------------------------------------
// Section 4: product definition

function parseProduct(data: Uint8Array, section: Section, template: number): Product {
  const p = section.offset;
  const ensembleFields = template === 1 || template === 11 ? 3 : 0;
  const statistical = template === 8 || template === 11;
  const fixedEnd = 34 + ensembleFields + (statistical ? 12 : 0);
  if (section.length < fixedEnd) {
    throw new GribError(`corrupt product definition: template 4.${template} needs ${fixedEnd} bytes, section has ${section.length}`);
  }
  const product: Product = {
    category: data[p + 9],
    number: data[p + 10],
    unit: data[p + 17],
    offset: int(data, p + 18, 4),
    level: { first: surface(data, p + 22), second: surface(data, p + 28) },
    ensemble: ensembleFields ? { type: data[p + 34], perturbation: data[p + 35], size: data[p + 36] } : null,
    statistics: null,
  };
  if (statistical) {
    const q = p + 34 + ensembleFields;
    const ranges = data[q + 7];
    if (ranges < 1 || section.length < q - p + 12 + 12 * ranges) {
      throw new GribError(`corrupt product definition: ${ranges} time ranges do not fit template 4.${template}`);
    }
    const end = new Date(Date.UTC(uint(data, q, 2), data[q + 2] - 1, data[q + 3], data[q + 4], data[q + 5], data[q + 6]));
    product.statistics = { end: ranges === 1 ? null : end, process: data[q + 12], unit: data[q + 14], length: uint(data, q + 15, 4) };
  }
  return product;
}

function surface(data: Uint8Array, p: number): Surface | null {
  const type = data[p];
  if (type === 255) return null;
  const value =
    isMissing(data, p + 1, 1) || isMissing(data, p + 2, 4) ? null : int(data, p + 2, 4) * 10 ** -int(data, p + 1, 1);
  return { type, value };
}

const FIXED_UNIT_MS: Record<number, number> = {
  0: 60_000,
  1: 3_600_000,
  2: 86_400_000,
  10: 3 * 3_600_000,
  11: 6 * 3_600_000,
  12: 12 * 3_600_000,
  13: 1000,
};
const CALENDAR_UNIT_MONTHS: Record<number, number> = { 3: 1, 4: 12, 5: 120, 6: 360, 7: 1200 };

/** Adds `value` units of code table 4.4; months and years are calendar ones. */
function addTime(date: Date, unit: number, value: number): Date {
  const ms = FIXED_UNIT_MS[unit];
  if (ms !== undefined) return new Date(date.getTime() + value * ms);
  const months = CALENDAR_UNIT_MONTHS[unit];
  if (months === undefined) throw new GribError(`unsupported unit of time range ${unit} (code table 4.4)`);
  const result = new Date(date.getTime());
  result.setUTCMonth(result.getUTCMonth() + value * months);
  return result;
}

// ---------------------------------------------------------------------------------------------
// Section 3: grid definition

function parseGrid(data: Uint8Array, section: Section, template: number, numberOfPoints: number): GridDefinition {
  const p = section.offset;
  const need = (bytes: number) => {
    if (section.length < bytes) {
      throw new GribError(`corrupt grid definition: template 3.${template} needs ${bytes} bytes, section has ${section.length}`);
    }
  };
  const earth = readEarth(data, p + 14);
  const micro = (q: number) => int(data, q, 4) * 1e-6;
  const microUnsigned = (q: number) => uint(data, q, 4) * 1e-6;
  const millimetres = (q: number) => uint(data, q, 4) * 1e-3;
  switch (template) {
    case 0:
    case 1:
    case 40: {
      // Template 3.1 is 3.0 followed by the rotation (octets 73-84), then the list of points per row.
      const end = template === 1 ? 84 : 72;
      need(end);
      // Angles are in 10^-6 degree unless a basic angle and its subdivisions are given.
      const basic = uint(data, p + 38, 4);
      const subdivisions = uint(data, p + 42, 4);
      const unit = basic === 0 || isMissing(data, p + 38, 4) || isMissing(data, p + 42, 4) || subdivisions === 0
        ? 1e-6
        : basic / subdivisions;
      const angle = (q: number) => int(data, q, 4) * unit;
      const ni = isMissing(data, p + 30, 4) ? null : uint(data, p + 30, 4);
      const nj = uint(data, p + 34, 4);
      const di = isMissing(data, p + 63, 4) ? null : uint(data, p + 63, 4) * unit;
      const pl = readPointList(data, section, end, ni, nj, numberOfPoints);
      const base = {
        earth,
        scanning: scanning(data[p + 71]),
        ni,
        nj,
        la1: angle(p + 46),
        lo1: angle(p + 50),
        la2: angle(p + 55),
        lo2: angle(p + 59),
        di,
        pl,
      };
      const dj = isMissing(data, p + 67, 4) ? null : uint(data, p + 67, 4) * unit;
      if (template === 0) return { template, ...base, dj };
      if (template === 1) {
        const view = new DataView(data.buffer, data.byteOffset + p + 80, 4);
        return { template, ...base, dj, southPoleLat: angle(p + 72), southPoleLon: uint(data, p + 76, 4) * unit, rotation: view.getFloat32(0) };
      }
      return { template, ...base, n: uint(data, p + 67, 4) };
    }
    case 10:
      need(72);
      return {
        template,
        earth,
        ni: uint(data, p + 30, 4),
        nj: uint(data, p + 34, 4),
        la1: micro(p + 38),
        lo1: micro(p + 42),
        lad: micro(p + 47),
        la2: micro(p + 51),
        lo2: micro(p + 55),
        scanning: scanning(data[p + 59]),
        orientation: microUnsigned(p + 60),
        dx: millimetres(p + 64),
        dy: millimetres(p + 68),
      };
    case 20:
      need(65);
      return {
        template,
        earth,
        ni: uint(data, p + 30, 4),
        nj: uint(data, p + 34, 4),
        la1: micro(p + 38),
        lo1: microUnsigned(p + 42),
        lad: micro(p + 47),
        lov: micro(p + 51),
        dx: millimetres(p + 55),
        dy: millimetres(p + 59),
        southPole: (data[p + 63] & 0x80) !== 0,
        scanning: scanning(data[p + 64]),
      };
    case 30:
      need(81);
      return {
        template,
        earth,
        ni: uint(data, p + 30, 4),
        nj: uint(data, p + 34, 4),
        la1: micro(p + 38),
        lo1: microUnsigned(p + 42),
        lad: micro(p + 47),
        lov: microUnsigned(p + 51),
        dx: millimetres(p + 55),
        dy: millimetres(p + 59),
        southPole: (data[p + 63] & 0x80) !== 0,
        scanning: scanning(data[p + 64]),
        latin1: micro(p + 65),
        latin2: micro(p + 69),
      };
    default:
      throw new GribError(`unsupported grid definition template 3.${template}`);
  }
}

function scanning(mode: number): Scanning {
  return {
    mode,
    iNegative: (mode & 0x80) !== 0,
    jPositive: (mode & 0x40) !== 0,
    jConsecutive: (mode & 0x20) !== 0,
    alternateRows: (mode & 0x10) !== 0,
  };
}

/** The optional list of points per row that makes a grid reduced (section 3 octets 11-12). */
function readPointList(
  data: Uint8Array,
  section: Section,
  templateEnd: number,
  ni: number | null,
  nj: number,
  numberOfPoints: number,
): number[] | null {
  const bytes = data[section.offset + 10];
  if (bytes === 0) {
    if (ni === null) throw new GribError('corrupt grid definition: no Ni and no list of points per row');
    if (ni * nj !== numberOfPoints) throw new GribError(`corrupt grid definition: ${ni} x ${nj} is not ${numberOfPoints} points`);
    return null;
  }
  const count = (section.length - templateEnd) / bytes;
  if (count !== nj) throw new GribError(`corrupt grid definition: list of ${count} rows for ${nj} rows`);
  const pl: number[] = [];
  let total = 0;
  for (let k = 0; k < count; k++) {
    const n = uint(data, section.offset + templateEnd + k * bytes, bytes);
    pl.push(n);
    total += n;
  }
  if (total !== numberOfPoints) throw new GribError(`corrupt grid definition: rows hold ${total} points, not ${numberOfPoints}`);
  return pl;
}

function scaled(data: Uint8Array, p: number): number | null {
  if (isMissing(data, p, 1) || isMissing(data, p + 1, 4)) return null;
  return uint(data, p + 1, 4) * 10 ** -int(data, p, 1);
}

/** Code table 3.2, with the constants ecCodes uses. */
function readEarth(data: Uint8Array, p: number): Earth {
  const shape = data[p];
  const sphere = (r: number) => ({ shape, a: r, b: r });
  const axes = (a: number, b: number) => ({ shape, a, b });
  const given = (q: number, factor: number) => {
    const value = scaled(data, q);
    if (value === null || value <= 0) throw new GribError(`shape of the earth ${shape} without its size`);
    return value * factor;
  };
  switch (shape) {
    case 0:
      return sphere(6367470);
    case 1:
      return sphere(given(p + 1, 1));
    case 2:
      return axes(6378160, 6356775);
    case 3:
      return axes(given(p + 6, 1000), given(p + 11, 1000));
    case 4:
    case 5:
      return axes(6378137, 6356752.314);
    case 6:
      return sphere(6371229);
    case 7:
      return axes(given(p + 6, 1), given(p + 11, 1));
    case 8:
      return sphere(6371200);
    case 9:
      return axes(6377563.396, 6356256.909);
    default:
      throw new GribError(`unsupported shape of the earth ${shape} (code table 3.2)`);
  }
}

// ---------------------------------------------------------------------------------------------
// Sections 5-7: data

function readPacking(data: Uint8Array, p: number): Packing {
  // Templates 5.0, 5.2, 5.3, 5.40, 5.41 and 5.42 share these first fields (and the others are not decoded).
  return {
    reference: float32(data, p + 11),
    binaryScale: int(data, p + 15, 2),
    decimalScale: int(data, p + 17, 2),
    bitsPerValue: data[p + 19],
  };
}

const DATA_TEMPLATE_LENGTH: Record<number, number> = { 0: 21, 2: 47, 3: 49, 40: 23, 41: 21, 42: 25, 40000: 23, 40010: 21 };

/** Checks what can be checked without decoding: the template fits its section, simple packing fits section 7. */
function checkDataSection(
  data: Uint8Array,
  start: number,
  template: number,
  section5: Section,
  section7: Section,
  count: number,
): void {
  const length = DATA_TEMPLATE_LENGTH[template];
  if (length === undefined) return;
  requireLength(start, section5, length, 5);
  const bits = data[section5.offset + 19];
  if (template === 0 && (section7.length - 5) * 8 < count * bits) {
    throw corrupt(start, `${count} values of ${bits} bits do not fit a data section of ${section7.length - 5} bytes`);
  }
}

function decodePacked(data: Uint8Array, template: number, section5: Section, section7: Section, count: number): Float32Array {
  const p5 = section5.offset;
  const packing = readPacking(data, p5);
  const body = data.subarray(section7.offset + 5, section7.offset + section7.length);
  switch (template) {
    case 0:
      return decodeSimple(body, count, packing);
    case 2:
    case 3:
      return decodeComplex(body, count, packing, complexParameters(data, p5, template));
    case 40:
    case 40000:
      return scaleIntegers(imageSamples(body, count, packing, 'JPEG 2000'), count, packing);
    case 41:
    case 40010:
      return scaleIntegers(imageSamples(body, count, packing, 'PNG'), count, packing);
    case 42:
      return scaleIntegers(ccsdsSamples(data, p5, body, count, packing), count, packing);
    default:
      throw new GribError(`unsupported data representation template 5.${template}`);
  }
}

function allocate(count: number): Float32Array {
  if (count > MAX_POINTS) throw new GribError(`${count} values exceed the limit of ${MAX_POINTS}`);
  return new Float32Array(count);
}

/** A field packed with 0 bits per value is its reference value, unscaled, as ecCodes and g2clib write and read it. */
function constantValue(packing: Packing): number {
  return packing.reference;
}

/** Template 5.0: count values of bitsPerValue bits each. */
export function decodeSimple(body: Uint8Array, count: number, packing: Packing): Float32Array {
  const out = allocate(count);
  const { reference, bitsPerValue } = packing;
  const bscale = 2 ** packing.binaryScale;
  const dscale = 10 ** -packing.decimalScale;
  if (bitsPerValue === 0) return out.fill(constantValue(packing));
  if (count * bitsPerValue > body.length * 8) throw new GribError('data section too short for its values');
  const ints = new Float64Array(count);
  unpackBits(body, 0, bitsPerValue, count, ints, 0, 0);
  for (let k = 0; k < count; k++) out[k] = (ints[k] * bscale + reference) * dscale;
  return out;
}

interface ComplexParameters {
  missingManagement: number;
  groups: number;
  widthReference: number;
  widthBits: number;
  lengthReference: number;
  lengthIncrement: number;
  lastLength: number;
  lengthBits: number;
  /** 0 for template 5.2 (and none in 5.3), else 1 or 2. */
  differencingOrder: number;
  descriptorBytes: number;
}

function complexParameters(data: Uint8Array, p: number, template: number): ComplexParameters {
  const parameters = {
    missingManagement: data[p + 22],
    groups: uint(data, p + 31, 4),
    widthReference: data[p + 35],
    widthBits: data[p + 36],
    lengthReference: uint(data, p + 37, 4),
    lengthIncrement: data[p + 41],
    lastLength: uint(data, p + 42, 4),
    lengthBits: data[p + 46],
    differencingOrder: template === 3 ? data[p + 47] : 0,
    descriptorBytes: template === 3 ? data[p + 48] : 0,
  };
  // Order 0 (written by ecCodes when it repacks without differencing) means none, as in template 5.2.
  if (parameters.differencingOrder > 2) {
    throw new GribError(`unsupported order of spatial differencing ${parameters.differencingOrder}`);
  }
  if (parameters.missingManagement > 2) {
    throw new GribError(`unsupported missing value management ${parameters.missingManagement}`);
  }
  return parameters;
}

/**
 * Templates 5.2 and 5.3 (complex packing, with spatial differencing for 5.3): group references,
 * widths and lengths, then each group's values. Missing values (all ones in a group's width, or a
 * width-0 group whose reference is all ones) are left out of the spatial differencing, as in g2clib.
 */
export function decodeComplex(body: Uint8Array, count: number, packing: Packing, c: ComplexParameters): Float32Array {
  const out = allocate(count);
  // A constant field, however its groups are described (NCEP writes empty data sections so).
  if (packing.bitsPerValue === 0) return out.fill(constantValue(packing));
  const totalBits = body.length * 8;
  let bit = 0;
  const first = [0, 0];
  let minimum = 0;
  if (c.differencingOrder > 0 && c.descriptorBytes > 0) {
    const bits = c.descriptorBytes * 8;
    if (c.descriptorBytes > 4 || (c.differencingOrder + 1) * bits > totalBits) {
      throw new GribError(`unsupported or truncated spatial differencing descriptors of ${c.descriptorBytes} bytes`);
    }
    for (let k = 0; k < c.differencingOrder; k++, bit += bits) first[k] = unpackBitsSigned(body, bit, bits);
    minimum = unpackBitsSigned(body, bit, bits);
    bit += bits;
  }
  const groups = c.groups;
  const nbits = packing.bitsPerValue;
  const align = (b: number) => (b + 7) & ~7;
  const metaBits = align(groups * nbits) + align(groups * c.widthBits) + align(groups * c.lengthBits);
  if (groups > count || (groups === 0 && count > 0) || bit + metaBits > totalBits) {
    throw new GribError(`corrupt complex packing: ${groups} groups for ${count} values in ${body.length} bytes`);
  }
  const references = new Float64Array(groups);
  const widths = new Float64Array(groups);
  const lengths = new Float64Array(groups);
  unpackBits(body, bit, nbits, groups, references, 0, 0);
  bit = align(bit + groups * nbits);
  unpackBits(body, bit, c.widthBits, groups, widths, 0, c.widthReference);
  bit = align(bit + groups * c.widthBits);
  unpackBits(body, bit, c.lengthBits, groups, lengths, 0, 0);
  bit = align(bit + groups * c.lengthBits);
  let total = 0;
  let valueBits = 0;
  for (let g = 0; g < groups; g++) {
    lengths[g] = g === groups - 1 ? c.lastLength : c.lengthReference + lengths[g] * c.lengthIncrement;
    if (widths[g] > 32) throw new GribError(`corrupt complex packing: group width ${widths[g]}`);
    total += lengths[g];
    valueBits += lengths[g] * widths[g];
  }
  if (total !== count) throw new GribError(`corrupt complex packing: groups hold ${total} values, not ${count}`);
  if (bit + valueBits > totalBits) throw new GribError('corrupt complex packing: group values overrun the data section');

  // Integers of the present values, packed at the front; `missing` marks each point (0 present, 1 or 2 missing).
  const ints = new Float64Array(count);
  const missing = c.missingManagement > 0 ? new Uint8Array(count) : null;
  let n = 0;
  let present = 0;
  const groupMissing1 = 2 ** nbits - 1;
  for (let g = 0; g < groups; g++) {
    const width = widths[g];
    const length = lengths[g];
    const reference = references[g];
    if (!missing) {
      unpackBits(body, bit, width, length, ints, n, reference);
      n += length;
      present = n;
    } else if (width === 0) {
      const kind = reference === groupMissing1 ? 1 : c.missingManagement === 2 && reference === groupMissing1 - 1 ? 2 : 0;
      for (let k = 0; k < length; k++, n++) {
        missing[n] = kind;
        if (kind === 0) ints[present++] = reference;
      }
    } else {
      // Unpack in place at the front, then compact the present ones.
      const missing1 = 2 ** width - 1;
      const missing2 = c.missingManagement === 2 ? missing1 - 1 : -1;
      unpackBits(body, bit, width, length, ints, n, 0);
      for (let k = 0; k < length; k++, n++) {
        const x = ints[n];
        if (x === missing1) missing[n] = 1;
        else if (x === missing2) missing[n] = 2;
        else ints[present++] = x + reference;
      }
    }
    bit += width * length;
  }

  if (c.differencingOrder === 1 && present > 0) {
    ints[0] = first[0];
    for (let k = 1; k < present; k++) ints[k] += minimum + ints[k - 1];
  } else if (c.differencingOrder === 2 && present > 0) {
    ints[0] = first[0];
    if (present > 1) ints[1] = first[1];
    for (let k = 2; k < present; k++) ints[k] += minimum + 2 * ints[k - 1] - ints[k - 2];
  }

  const bscale = 2 ** packing.binaryScale;
  const dscale = 10 ** -packing.decimalScale;
  const reference = packing.reference;
  if (!missing) {
    for (let k = 0; k < count; k++) out[k] = (ints[k] * bscale + reference) * dscale;
  } else {
    let q = 0;
    for (let k = 0; k < count; k++) out[k] = missing[k] ? NaN : (ints[q++] * bscale + reference) * dscale;
  }
  return out;
}

/** Integer samples of a JPEG 2000 or PNG image: count of them, in raster order. */
function imageSamples(body: Uint8Array, count: number, packing: Packing, format: 'JPEG 2000' | 'PNG'): Float64Array | null {
  // A constant field has no image at all.
  if (packing.bitsPerValue === 0 || count === 0) return null;
  let samples: Float64Array;
  try {
    samples = format === 'PNG' ? pngSamples(body, count) : decodeJpeg2000(body, count);
  } catch (error) {
    if (error instanceof GribError) throw error;
    throw new GribError(`corrupt ${format} image: ${(error as Error).message}`, { cause: error });
  }
  if (samples.length !== count) throw new GribError(`${format} image has ${samples.length} samples, not ${count}`);
  return samples;
}

/** Template 5.42: the samples of a CCSDS (AEC) stream, whose options follow the simple-packing fields. */
function ccsdsSamples(data: Uint8Array, p5: number, body: Uint8Array, count: number, packing: Packing): Float64Array | null {
  // A constant field has no stream at all.
  if (packing.bitsPerValue === 0 || count === 0) return null;
  const parameters = {
    bitsPerSample: packing.bitsPerValue,
    flags: data[p5 + 21],
    blockSize: data[p5 + 22],
    referenceSampleInterval: uint(data, p5 + 23, 2),
  };
  try {
    return decodeCcsds(body, count, parameters);
  } catch (error) {
    if (error instanceof CcsdsError) throw new GribError(`corrupt CCSDS stream: ${error.message}`, { cause: error });
    throw error;
  }
}

/** PNG samples of any bit depth; RGB(A) pixels are 24 and 32-bit values, channels big-endian. */
function pngSamples(body: Uint8Array, count: number): Float64Array {
  // The image size (IHDR, right after the signature) is checked before anything is inflated.
  if (body.length < 24) throw new GribError('truncated PNG image');
  const view = new DataView(body.buffer, body.byteOffset, body.length);
  const pixels = view.getUint32(16) * view.getUint32(20);
  if (pixels !== count) throw new GribError(`PNG image has ${pixels} samples, not ${count}`);
  const png = decodePng(body, { checkCrc: true });
  const { width, height, depth, channels } = png;
  if (png.palette) throw new GribError('PNG with a palette is not GRIB2 data');
  const samples = new Float64Array(width * height);
  const data = png.data;
  if (depth >= 8) {
    const scale = depth === 16 ? 65536 : 256;
    for (let k = 0, q = 0; k < samples.length; k++) {
      let value = 0;
      for (let c = 0; c < channels; c++) value = value * scale + data[q++];
      samples[k] = value;
    }
  } else {
    // Rows of 1, 2 or 4-bit samples are packed and padded to a byte.
    const rowBytes = Math.ceil((width * depth * channels) / 8);
    const row = new Float64Array(width * channels);
    for (let y = 0; y < height; y++) {
      unpackBits(data as Uint8Array, y * rowBytes * 8, depth, width * channels, row, 0, 0);
      for (let x = 0; x < width; x++) {
        let value = 0;
        for (let c = 0; c < channels; c++) value = value * 2 ** depth + row[x * channels + c];
        samples[y * width + x] = value;
      }
    }
  }
  return samples;
}

function scaleIntegers(ints: Float64Array | null, count: number, packing: Packing): Float32Array {
  const out = allocate(count);
  const bscale = 2 ** packing.binaryScale;
  const dscale = 10 ** -packing.decimalScale;
  const reference = packing.reference;
  if (!ints) return out.fill(constantValue(packing));
  for (let k = 0; k < count; k++) out[k] = (ints[k] * bscale + reference) * dscale;
  return out;
}

/** Spreads the packed values over the points whose bitmap bit is 1; the others are NaN. */
function applyBitmap(data: Uint8Array, bitmap: Section, packed: Float32Array, points: number): Float32Array {
  const out = allocate(points);
  const bits = bitmap.offset + 6;
  let q = 0;
  for (let k = 0; k < points; k++) {
    if (data[bits + (k >>> 3)] & (0x80 >>> (k & 7))) {
      if (q >= packed.length) throw new GribError(`bitmap marks more points than the ${packed.length} values packed`);
      out[k] = packed[q++];
    } else {
      out[k] = NaN;
    }
  }
  if (q !== packed.length) throw new GribError(`bitmap marks ${q} points but ${packed.length} values are packed`);
  return out;
}
