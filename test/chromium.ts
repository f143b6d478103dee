/**
 * Debian's Chromium driven by playwright-core, as the render references and the static-map
 * benchmark use it: headless, WebGL through SwiftShader, and no background network traffic (this
 * machine's network is closed, and Chromium's own connections would only be refused).
 */

import { chromium, type Browser } from 'playwright-core';
import { CHROMIUM } from './peers.js';

export { CHROMIUM };

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--use-angle=swiftshader',
      '--enable-unsafe-swiftshader',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--force-color-profile=srgb',
    ],
  });
}
