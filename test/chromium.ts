/**
 * Debian's Chromium driven by playwright-core, as the render references and the static-map
 * benchmark use it: headless, WebGL through SwiftShader, and no background network traffic (this
 * machine's network is closed, and Chromium's own connections would only be refused).
 */

import path from 'node:path';
import { test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
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

/** Gathers a page's script errors and Content Security Policy violations into `errors`. */
export function collectPageErrors(page: Page, errors: string[]): void {
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && /Content Security Policy/i.test(message.text())) errors.push(message.text());
  });
}

/** A browser step: when it fails, a screenshot of the page (in `artifacts`) shows why. */
export function browserStep(name: string, run: () => Promise<void>, page: () => Page | undefined, artifacts: string): void {
  test(name, async () => {
    try {
      await run();
    } catch (error) {
      await page()?.screenshot({ path: path.join(artifacts, `failed-${name.split(':')[0]!.replace(/\W+/g, '-')}.png`), fullPage: true }).catch(() => {});
      throw error;
    }
  });
}
