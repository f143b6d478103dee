/**
 * ICU's Arabic shaping (u_shapeArabic) and bidirectional algorithm (ubidi), compiled to WebAssembly
 * in npm @mapbox/mapbox-gl-rtl-text, the plugin MapLibre GL JS used before it shaped text itself:
 * an independent implementation to check ours against. The package exports only its source (which
 * imports a .wasm module); its bundle, a UMD script, is loaded by path and leaves its API, a
 * promise, on globalThis when neither CommonJS nor AMD is around.
 */

import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

export interface IcuRtl {
  applyArabicShaping(text: string): string;
  processBidirectionalText(text: string, lineBreakPoints: number[]): string[];
}

let loaded: Promise<IcuRtl> | undefined;

export function icuRtl(): Promise<IcuRtl> {
  loaded ??= (async () => {
    const entry = createRequire(import.meta.url).resolve('@mapbox/mapbox-gl-rtl-text');
    const bundle = path.join(path.dirname(entry), '../dist/mapbox-gl-rtl-text.js');
    await import(pathToFileURL(bundle).href);
    return (globalThis as unknown as Record<string, Promise<IcuRtl>>)['mapbox-gl-rtl-text']!;
  })();
  return loaded;
}
