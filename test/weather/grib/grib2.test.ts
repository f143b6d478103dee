import assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { GribError, readGrib, type GribMessage } from '../../../src/weather/grib/grib2.js';
import { seededRandom, tempDir } from '../../scratch.js';
import {
  assertValues,
  example,
  filter,
  firstMessage,
  grib2Examples,
  keys,
  referencePoints,
  referenceValues,
  requireReference,
  run,
  set,
} from '../eccodes.js';

let dir = '';
before(() => {
  // Every test here compares with ecCodes or reads python-grib-doc's examples.
  requireReference();
  dir = tempDir();
});
after(() => rmSync(dir, { recursive: true, force: true }));

const read = (file: string) => readGrib(new Uint8Array(readFileSync(file)));

describe('decoding against ecCodes', () => {
  for (const name of grib2Examples) {
    test(`every GRIB2 message of ${name} decodes to ecCodes' values within the packing precision`, () => {
      const file = example(name);
      const { messages } = read(file);
      assert.equal(messages.length, keys(file, ['count']).length, 'same number of fields as ecCodes');
      if (name === 'ds.waveh.bin') {
        // 21 fields of 4.5 million points would print 1.5 GB through ecCodes: the first is compared
        // point by point, every field by its mean, extremes and number of missing points.
        assertValues(messages[0].values(), referenceValues(file, dir, [1])[0], `${name} #1`);
        const stats = keys(file, ['average', 'minimum', 'maximum', 'numberOfMissing', 'binaryScaleFactor', 'decimalScaleFactor']);
        messages.forEach((message, m) => {
          const [average, minimum, maximum, missing, e, d] = stats[m].map(Number);
          const half = (2 ** e * 10 ** -d) / 2;
          const values = message.values();
          let sum = 0;
          let n = 0;
          let low = Infinity;
          let high = -Infinity;
          for (const v of values) {
            if (Number.isNaN(v)) continue;
            sum += v;
            n++;
            low = Math.min(low, v);
            high = Math.max(high, v);
          }
          assert.equal(values.length - n, missing, `#${m + 1} missing points`);
          assert.ok(Math.abs(sum / n - average) <= half + 1e-6 * Math.abs(average), `#${m + 1} average`);
          assert.ok(Math.abs(low - minimum) <= half + 1e-6 && Math.abs(high - maximum) <= half + 1e-6 * maximum, `#${m + 1} extremes`);
        });
        return;
      }
      const reference = referenceValues(file, dir);
      assert.equal(reference.length, messages.length);
      messages.forEach((message, m) => {
        const label = `${name} #${m + 1}`;
        if (name === 'gfs.grb' && m === 230) {
          // A complex-packed field of 0 bits, no groups and an empty data section: a constant 0.
          // ecCodes 2.28 reads bits past the section and returns a ramp (55 to 578160) for it.
          assert.deepEqual([message.packing.bitsPerValue, message.packing.reference], [0, 0], label);
          assert.ok(message.values().every((v) => v === 0), label);
          return;
        }
        assertValues(message.values(), reference[m], label);
      });
    });
  }

  const metadataKeys = [
    'discipline',
    'parameterCategory',
    'parameterNumber',
    'productDefinitionTemplateNumber',
    'gridDefinitionTemplateNumber',
    'dataRepresentationTemplateNumber',
    'numberOfDataPoints',
    'dataDate',
    'dataTime',
    'forecastTime',
    'indicatorOfUnitOfTimeRange',
    'stepRange',
    'typeOfFirstFixedSurface:i',
    'scaleFactorOfFirstFixedSurface',
    'scaledValueOfFirstFixedSurface',
    'typeOfSecondFixedSurface:i',
    'scaleFactorOfSecondFixedSurface',
    'scaledValueOfSecondFixedSurface',
    'typeOfStatisticalProcessing',
    'lengthOfTimeRange',
    'indicatorOfUnitForTimeRange',
    'typeOfEnsembleForecast',
    'perturbationNumber',
    'numberOfForecastsInEnsemble',
  ];
  const unitMs: Record<number, number> = { 0: 60_000, 1: 3_600_000, 2: 86_400_000, 10: 10_800_000, 11: 21_600_000, 12: 43_200_000, 13: 1000 };

  /** ecCodes reads scaled values as unsigned; GRIB2 signs them in the first bit (NCEP's -2 PVU surfaces). */
  const surfaceValue = (factor: string, scaled: string) => {
    if (factor === 'MISSING' || scaled === 'MISSING') return null;
    const magnitude = Number(scaled);
    return (magnitude >= 2 ** 31 ? -(magnitude - 2 ** 31) : magnitude) * 10 ** -Number(factor);
  };

  for (const name of grib2Examples) {
    test(`metadata of ${name} agrees with ecCodes: parameter, level, reference time, forecast time, step`, () => {
      const file = example(name);
      const { messages } = read(file);
      const rows = keys(file, metadataKeys);
      assert.equal(rows.length, messages.length);
      messages.forEach((message, m) => {
        const k = Object.fromEntries(metadataKeys.map((key, i) => [key.replace(':i', ''), rows[m][i]]));
        const label = `${name} #${m + 1}`;
        assert.deepEqual(
          [message.discipline, message.category, message.number, message.productTemplate, message.gridTemplate, message.dataTemplate, message.numberOfPoints],
          [k.discipline, k.parameterCategory, k.parameterNumber, k.productDefinitionTemplateNumber, k.gridDefinitionTemplateNumber, k.dataRepresentationTemplateNumber, k.numberOfDataPoints].map(Number),
          label,
        );
        const ref = message.referenceTime;
        assert.equal(ref.toISOString().slice(0, 10).replaceAll('-', ''), k.dataDate, `${label} date`);
        assert.equal(ref.getUTCHours() * 100 + ref.getUTCMinutes(), Number(k.dataTime), `${label} time`);
        assert.equal(message.forecastOffset, Number(k.forecastTime), `${label} forecast time`);
        assert.equal(message.forecastUnit, Number(k.indicatorOfUnitOfTimeRange), `${label} unit`);
        const unit = unitMs[message.forecastUnit];
        assert.equal(message.forecastTime.getTime(), ref.getTime() + message.forecastOffset * unit, `${label} forecast moment`);

        const statistics = message.statistics;
        const end = statistics ? (statistics.end.getTime() - ref.getTime()) / unit : null;
        assert.equal(end === null || end === message.forecastOffset ? `${message.forecastOffset}` : `${message.forecastOffset}-${end}`, k.stepRange, `${label} step`);
        if (statistics) {
          assert.equal(statistics.process, Number(k.typeOfStatisticalProcessing), `${label} process`);
          assert.equal(statistics.lengthHours * 3_600_000, Number(k.lengthOfTimeRange) * unitMs[Number(k.indicatorOfUnitForTimeRange)], `${label} length`);
        } else {
          assert.equal(k.typeOfStatisticalProcessing, 'not_found', label);
        }

        const ensemble = message.ensemble;
        if (ensemble) {
          assert.deepEqual([ensemble.type, ensemble.perturbation, ensemble.size], [k.typeOfEnsembleForecast, k.perturbationNumber, k.numberOfForecastsInEnsemble].map(Number), label);
        } else {
          assert.equal(k.perturbationNumber, 'not_found', label);
        }

        const { first, second } = message.level;
        assert.equal(first?.type ?? 255, Number(k.typeOfFirstFixedSurface), `${label} first surface`);
        if (first) assert.equal(first.value, surfaceValue(k.scaleFactorOfFirstFixedSurface, k.scaledValueOfFirstFixedSurface), `${label} level`);
        assert.equal(second?.type ?? 255, Number(k.typeOfSecondFixedSurface), `${label} second surface`);
        if (second) assert.equal(second.value, surfaceValue(k.scaleFactorOfSecondFixedSurface, k.scaledValueOfSecondFixedSurface), `${label} second level`);
      });
    });
  }
});

describe('packings, bitmaps and missing values on generated files', () => {
  // The first GFS field: 10512 points of temperature-like values, repacked by ecCodes as needed.
  const first = () => firstMessage(dir, 'gfs1.grib2', example('gfs.t12z.pgrbf120.2p5deg.grib2'));
  const withMissing = (input: string) => {
    // Every seventh point missing, through ecCodes' own missing value.
    const values = referenceValues(input, dir)[0].values;
    return Array.from(values, (v, k) => (k % 7 === 3 ? 9999 : v)).join(',');
  };

  const packings: [string, number][] = [
    ['grid_simple', 0],
    ['grid_complex', 2],
    ['grid_complex_spatial_differencing', 3],
    ['grid_jpeg', 40],
    ['grid_png', 41],
  ];
  for (const [packing, template] of packings) {
    test(`template 5.${template} (${packing}) with a bitmap decodes missing points to NaN and the others as ecCodes does`, () => {
      const input = first();
      const output = filter(dir, `bitmap-${packing}.grib2`, input, `set packingType = "${packing}"; set bitmapPresent = 1; set missingValue = 9999; set values = { ${withMissing(input)} };`);
      const [message] = read(output).messages;
      assert.equal(message.dataTemplate, template);
      assert.ok(message.hasBitmap);
      const values = message.values();
      assert.equal(values.filter(Number.isNaN).length, Math.ceil((values.length - 3) / 7));
      assertValues(values, referenceValues(output, dir)[0], packing);
    });
  }

  // PNG bit depths: 8-bit and 16-bit grey, 24-bit RGB (ecCodes picks the depth from bitsPerValue).
  for (const bits of [6, 16, 24]) {
    test(`template 5.41 (PNG) of ${bits} bits per value decodes as ecCodes does`, () => {
      const output = set(dir, `png-${bits}.grib2`, first(), `packingType=grid_png,bitsPerValue=${bits}`, true);
      const [message] = read(output).messages;
      assert.equal(message.dataTemplate, 41);
      assert.equal(message.packing.bitsPerValue, bits);
      assertValues(message.values(), referenceValues(output, dir)[0], `png ${bits}`);
    });
  }

  test('template 5.40 (JPEG 2000) at several bit depths, including over 16 bits, decodes as ecCodes does', () => {
    // ecCodes picks the bits per value from the decimal scale factor.
    const depths: number[] = [];
    for (const decimals of [0, 1, 3, 5]) {
      const output = set(dir, `jpeg-${decimals}.grib2`, first(), `packingType=grid_jpeg,decimalScaleFactor=${decimals}`, true);
      const [message] = read(output).messages;
      assert.equal(message.dataTemplate, 40);
      depths.push(message.packing.bitsPerValue);
      assertValues(message.values(), referenceValues(output, dir)[0], `jpeg D=${decimals}`);
    }
    assert.ok(depths.some((bits) => bits > 24), `bit depths ${depths}`);
  });

  test('a constant field (0 bits per value) decodes to its reference value, simple or JPEG 2000 packed', () => {
    // ecCodes writes constant fields with 0 bits for these two packings (complex ones keep 15 bits).
    const constant = Array(10512).fill(273.5).join(',');
    for (const packing of ['grid_simple', 'grid_jpeg']) {
      const output = filter(dir, `constant-${packing}.grib2`, first(), `set packingType = "${packing}"; set values = { ${constant} };`);
      const [message] = read(output).messages;
      assert.equal(message.packing.bitsPerValue, 0, packing);
      assert.ok(message.values().every((v) => v === 273.5), packing);
    }
  });
});

describe('complex packing with missing values in the data (no bitmap)', () => {
  // ecCodes 2.28 writes missing values of templates 5.2/5.3 only through a bitmap, and its encoder
  // never writes management 2 (primary and secondary missing values): the data sections here are
  // written bit by bit over the grid of an example file, and ecCodes decodes them as the reference.

  /** GRIB2's bit order: each value most significant bit first, fields padded to a whole octet. */
  class BitWriter {
    readonly bytes: number[] = [];
    #bits = 0;
    put(value: number, width: number): void {
      for (let b = width - 1; b >= 0; b--, this.#bits++) {
        if (this.#bits % 8 === 0) this.bytes.push(0);
        if (Math.floor(value / 2 ** b) % 2) this.bytes[this.bytes.length - 1] |= 0x80 >>> this.#bits % 8;
      }
    }
    align(): void {
      this.#bits = this.bytes.length * 8;
    }
  }

  interface Group {
    reference: number;
    width: number;
    /** The group's packed values (width bits each), or for a width-0 group how many points it has. */
    values: number[] | number;
  }

  const length = (group: Group) => (typeof group.values === 'number' ? group.values : group.values.length);

  /** 496 points (the example grid's): missing ones of both kinds inside a group and as whole groups, then fields of 5-bit groups. */
  function groups(): Group[] {
    const list: Group[] = [
      { reference: 5, width: 3, values: [0, 1, 7, 2, 6, 3, 4, 5] }, // 7 = 2^3 - 1 primary missing, 6 secondary
      { reference: 255, width: 0, values: 6 }, // reference all ones (8 bits): the whole group primary missing
      { reference: 254, width: 0, values: 5 }, // all ones minus one: the whole group secondary missing
      { reference: 12, width: 0, values: 4 }, // a constant run of present values
    ];
    const random = seededRandom(7);
    const next = (n: number) => Math.floor(random() * n);
    for (let left = 496 - 23; left > 0; left -= 16) {
      list.push({ reference: next(60), width: 5, values: Array.from({ length: Math.min(16, left) }, () => next(32)) });
    }
    return list;
  }

  const u32 = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255];

  /** One message: the sections before section 5 of `frame`, then template 5.2 or 5.3, no bitmap, and the groups. */
  function message(frame: Uint8Array, template: 2 | 3, management: number, order: 0 | 1 | 2): Uint8Array {
    const list = groups();
    const count = list.reduce((sum, group) => sum + length(group), 0);
    const lengths = list.map(length);
    const shortest = Math.min(...lengths);
    const lengthBits = Math.ceil(Math.log2(Math.max(...lengths) - shortest + 1));

    const s5 = new DataView(new ArrayBuffer(template === 3 ? 49 : 47));
    s5.setUint32(0, s5.byteLength);
    s5.setUint8(4, 5);
    s5.setUint32(5, count);
    s5.setUint16(9, template);
    s5.setFloat32(11, 250); // R
    s5.setUint16(15, 0x8001); // E = -1 (sign and magnitude)
    s5.setUint16(17, 1); // D
    s5.setUint8(19, 8); // bits of the group references
    s5.setUint8(20, 0); // floating-point values
    s5.setUint8(21, 1); // general group splitting
    s5.setUint8(22, management);
    s5.setUint32(23, 0xffffffff); // the substitutes: no value of the field
    s5.setUint32(27, 0xffffffff);
    s5.setUint32(31, list.length);
    s5.setUint8(35, 0); // reference of the group widths
    s5.setUint8(36, 3); // bits of the group widths
    s5.setUint32(37, shortest);
    s5.setUint8(41, 1); // length increment
    s5.setUint32(42, lengths[lengths.length - 1]);
    s5.setUint8(46, lengthBits);
    if (template === 3) {
      s5.setUint8(47, order);
      s5.setUint8(48, 2); // octets of each descriptor
    }

    const body = new BitWriter();
    if (template === 3) {
      // The first values and the minimum of the differences (signed), which the groups add to.
      for (const first of [300, 310].slice(0, order)) body.put(first, 16);
      body.put(0x8000 | 7, 16);
      body.align();
    }
    for (const group of list) body.put(group.reference, 8);
    body.align();
    for (const group of list) body.put(group.width, 3);
    body.align();
    for (const group of list) body.put(length(group) - shortest, lengthBits);
    body.align();
    for (const group of list) if (typeof group.values !== 'number') for (const value of group.values) body.put(value, group.width);

    const view = new DataView(frame.buffer, frame.byteOffset, frame.length);
    let end = 16;
    while (frame[end + 4] < 5) end += view.getUint32(end);
    const head = frame.subarray(16, end);
    const s6 = [0, 0, 0, 6, 6, 255];
    const s7 = [...u32(5 + body.bytes.length), 7, ...body.bytes];
    const total = 16 + head.length + s5.byteLength + s6.length + s7.length + 4;
    const out = new Uint8Array(total);
    out.set(frame.subarray(0, 16));
    new DataView(out.buffer).setBigUint64(8, BigInt(total));
    out.set(head, 16);
    out.set(new Uint8Array(s5.buffer), 16 + head.length);
    out.set([...s6, ...s7, ...Buffer.from('7777')], 16 + head.length + s5.byteLength);
    return out;
  }

  test('missing-value management 1 and 2 of templates 5.2 and 5.3 decode to the values and missing points grib_get_data reads', () => {
    const frame = new Uint8Array(readFileSync(example('regular_latlon_surface.grib2')));
    const cases = [
      { template: 2, management: 1, order: 0 },
      { template: 2, management: 2, order: 0 },
      { template: 3, management: 1, order: 2 },
      { template: 3, management: 2, order: 1 },
      { template: 3, management: 2, order: 2 },
    ] as const;
    const file = path.join(dir, 'complex-missing.grib2');
    writeFileSync(file, Buffer.concat(cases.map(({ template, management, order }) => message(frame, template, management, order))));
    const messages = read(file).messages;
    assert.equal(messages.length, cases.length);
    cases.forEach(({ template, management, order }, m) => {
      const label = `template 5.${template}, management ${management}, order ${order}`;
      const reference = referencePoints(file, m + 1).map((point) => point.value);
      assert.equal(reference.length, 496, label);
      // The sample holds what it is for, as ecCodes reads it: primary missing points, and secondary ones where management 2 says so.
      const missing = (k: number) => Number.isNaN(reference[k]);
      assert.deepEqual([2, 4, 8, 14, 19].map(missing), [true, management === 2, true, management === 2, false], label);
      const values = messages[m].values();
      assert.equal(messages[m].dataTemplate, template, label);
      assert.deepEqual(values.map((v) => (Number.isNaN(v) ? 1 : 0)), Float32Array.from(reference, (v) => (Number.isNaN(v) ? 1 : 0)), `${label}: missing points`);
      assertValues(values, { count: m + 1, binaryScale: -1, decimalScale: 1, values: Float64Array.from(reference) }, label);
    });
  });
});

describe('GRIB edition 1 and bytes outside messages', () => {
  test('files of GRIB1 messages give no message and list every GRIB1 message as skipped', () => {
    for (const name of ['rotated_ll.grib1', 'regular_latlon_surface.grib1', 'spherical_pressure_level.grib1', 'cl00010000_ecoclimap_rot.grib1', 'CMC_reg_WIND_ISBL_300_ps60km_2010052400_P012.grib']) {
      const file = example(name);
      const { messages, skipped } = read(file);
      assert.equal(messages.length, 0, name);
      assert.equal(skipped.filter((s) => s.reason === 'GRIB edition 1 message').length, keys(file, ['count']).length, name);
    }
  });

  test('a file mixing GRIB1 and GRIB2 messages decodes the GRIB2 ones and skips the GRIB1 ones', () => {
    const mixed = path.join(dir, 'mixed.grb');
    const grib1 = readFileSync(example('regular_latlon_surface.grib1'));
    const grib2 = readFileSync(example('regular_latlon_surface.grib2'));
    writeFileSync(mixed, Buffer.concat([grib1, grib2, grib1]));
    const { messages, skipped } = read(mixed);
    assert.equal(messages.length, 1);
    assert.deepEqual(
      skipped.map((s) => s.reason),
      ['GRIB edition 1 message', 'bytes outside any GRIB message', 'GRIB edition 1 message', 'bytes outside any GRIB message'],
    );
    assert.deepEqual(messages[0].values(), read(example('regular_latlon_surface.grib2')).messages[0].values());
  });

  test('WMO bulletin headers between the messages of NDFD files are skipped and reported', () => {
    const { messages, skipped } = read(example('ds.maxt.bin'));
    assert.equal(messages.length, 4);
    assert.deepEqual(skipped.map((s) => [s.offset > 0 || s.length === 80, s.reason]), skipped.map(() => [true, 'bytes outside any GRIB message']));
  });
});

describe('truncated and corrupt files', () => {
  const small = () => new Uint8Array(readFileSync(example('regular_latlon_surface.grib2')));

  function assertGribError(data: Uint8Array, pattern?: RegExp): void {
    assert.throws(
      () => {
        for (const message of readGrib(data).messages) message.values();
      },
      (error: unknown) => error instanceof GribError && (!pattern || pattern.test(error.message)),
    );
  }

  test('a file cut at any offset throws a GribError and returns nothing', () => {
    const data = small();
    for (let cut = 1; cut < data.length; cut++) assertGribError(data.subarray(0, cut));
  });

  test('a multi-message file cut inside a later message throws instead of returning the earlier ones', () => {
    const data = new Uint8Array(readFileSync(example('ngm.grb')));
    const offsets = keys(example('ngm.grb'), ['offset', 'totalLength']).map((r) => r.map(Number));
    const [start, length] = offsets[2];
    for (const cut of [start + 10, start + 100, start + length - 1]) {
      assert.throws(() => readGrib(data.subarray(0, cut)), GribError);
    }
  });

  test('a flipped GRIB magic, a wrong section length, a missing 7777 or an unknown edition throw GribError', () => {
    const flipped = small();
    flipped[0] = 0x48;
    assertGribError(flipped, /no GRIB message/);

    const edition = small();
    edition[7] = 3;
    assertGribError(edition, /edition 3/);

    const end = small();
    end[end.length - 1] = 0x36;
    assertGribError(end, /7777/);

    // Section 1 starts at 16: its length one byte longer, one shorter, zero and huge.
    for (const length of [22, 20, 0, 0x7fffffff]) {
      const wrong = small();
      new DataView(wrong.buffer).setUint32(16, length);
      assertGribError(wrong);
    }

    const total = small();
    new DataView(total.buffer).setUint32(12, total.length + 1);
    assertGribError(total, /truncated/);
  });

  test('random byte mutations of small files decode or throw GribError, never another error', () => {
    const inputs = [
      small(),
      new Uint8Array(readFileSync(set(dir, 'mutate-complex.grib2', example('regular_latlon_surface.grib2'), 'packingType=grid_complex_spatial_differencing'))),
      new Uint8Array(readFileSync(set(dir, 'mutate-jpeg.grib2', example('regular_latlon_surface.grib2'), 'packingType=grid_jpeg'))),
      new Uint8Array(readFileSync(set(dir, 'mutate-png.grib2', example('regular_latlon_surface.grib2'), 'packingType=grid_png,bitsPerValue=12', true))),
    ];
    for (const input of inputs) {
      fc.assert(
        fc.property(fc.array(fc.tuple(fc.nat(input.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 6 }), (mutations) => {
          const data = input.slice();
          for (const [at, value] of mutations) data[at] = value;
          try {
            for (const message of readGrib(data).messages) message.values();
          } catch (error) {
            if (!(error instanceof GribError)) throw error;
          }
        }),
        { numRuns: 300 },
      );
    }
  });
});

describe('unsupported templates', () => {
  test('a product template without support names it when its metadata is read, and values still decode', () => {
    const output = set(dir, 'pdt2.grib2', example('regular_latlon_surface.grib2'), 'productDefinitionTemplateNumber=2');
    const [message] = read(output).messages;
    assert.equal(message.productTemplate, 2);
    for (const getter of [() => message.category, () => message.level, () => message.forecastTime, () => message.statistics]) {
      assert.throws(getter, (e: unknown) => e instanceof GribError && /product definition template 4\.2\b/.test(e.message));
    }
    assert.equal(message.values().length, 496);
  });

  test('a data template without support names it when values are read', () => {
    const output = set(dir, 'ieee.grib2', example('regular_latlon_surface.grib2'), 'packingType=grid_ieee', true);
    const [message] = read(output).messages;
    assert.throws(() => message.values(), (e: unknown) => e instanceof GribError && /data representation template 5\.4\b/.test(e.message));
  });

  test('a grid template without support names it when the grid is read, and values still decode', () => {
    const [message]: GribMessage[] = read(example('rap.wrfnat.grib2')).messages;
    assert.throws(() => message.grid, (e: unknown) => e instanceof GribError && /grid definition template 3\.32769\b/.test(e.message));
    assert.equal(message.values().length, Number(run('grib_get', ['-p', 'numberOfDataPoints', example('rap.wrfnat.grib2')])));
  });
});
