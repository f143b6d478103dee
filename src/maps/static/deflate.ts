/**
 * zlib streams (RFC 1950) written by libdeflate, the fast whole-buffer deflate that GDAL compresses
 * GeoTIFF tiles with: Debian's `libdeflate0`, called through koffi (a C FFI, no build step). On our
 * images up to 512x512 at its level 1 it takes 0.59-0.64x the time of Node's zlib at level 4 for as
 * many bytes (`bench/static-encoders.ts`, docs/benchmarks.md, PNG encoders): libdeflate compresses a
 * whole buffer at once, where zlib streams through a window, and keeps its compressor from one call
 * to the next, where `deflateSync` sets up and frees zlib's state each time.
 *
 * One compressor per level and thread, made on first use and kept for the thread's life; the output
 * goes to a buffer of the thread's, reused: what `deflate` returns is valid until its next call.
 */

import koffi from 'koffi';

/** The shared library's soname, as Debian's libdeflate0 installs it. */
const LIBRARY = 'libdeflate.so.0';

interface Binding {
  compressor: (level: number) => unknown;
  compress: (compressor: unknown, input: Uint8Array, inputBytes: number, output: Uint8Array, outputBytes: number) => number | bigint;
  bound: (compressor: unknown, inputBytes: number) => number | bigint;
}

let binding: Binding | undefined;
const compressors = new Map<number, unknown>();
let output = Buffer.alloc(0);

function bind(): Binding {
  if (binding) return binding;
  let library: ReturnType<typeof koffi.load>;
  try {
    library = koffi.load(LIBRARY);
  } catch (error) {
    throw new Error(`${LIBRARY} cannot be loaded (${(error as Error).message}): install Debian's libdeflate0 (scripts/setup.sh does)`);
  }
  binding = {
    compressor: library.func('void *libdeflate_alloc_compressor(int compression_level)'),
    compress: library.func('size_t libdeflate_zlib_compress(void *compressor, const void *in, size_t in_nbytes, void *out, size_t out_nbytes_avail)'),
    bound: library.func('size_t libdeflate_zlib_compress_bound(void *compressor, size_t in_nbytes)'),
  };
  return binding;
}

/** `input` as a zlib stream at `level` (0-12; 0 stores). Valid until the next call on this thread. */
export function deflate(input: Uint8Array, level: number): Buffer {
  if (!(Number.isInteger(level) && level >= 0 && level <= 12)) throw new RangeError(`libdeflate has no level ${level}`);
  const { compressor: make, compress, bound } = bind();
  let compressor = compressors.get(level);
  if (compressor === undefined) {
    compressor = make(level);
    if (compressor === null) throw new Error(`libdeflate could not make a compressor of level ${level}`);
    compressors.set(level, compressor);
  }
  const most = Number(bound(compressor, input.byteLength));
  if (output.length < most) output = Buffer.allocUnsafe(most);
  const written = Number(compress(compressor, input, input.byteLength, output, most));
  // The bound is enough for any input: 0 would be libdeflate failing.
  if (written === 0) throw new Error(`libdeflate wrote nothing for ${input.byteLength} bytes`);
  return output.subarray(0, written);
}
